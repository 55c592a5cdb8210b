package providers

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Client is one provider as every caller of it sees it: its normalised base
// URL, its key and its transport. It is immutable; the proxy builds a new one
// at each reload and keeps the transport while the base URL stays the same.
type Client struct {
	Type *Type
	// base is the URL endpoints are appended to; query is the base URL's own
	// query ("?api-version=…"), kept after the endpoint's path.
	base, query string
	auth        Authorizer
	transport   *http.Transport
}

// New prepares a client of the given api_type. t is the pooled transport to
// call through (NewTransport when the caller keeps none). The error names a
// configuration problem: an unknown type or a base URL that is not http(s).
func New(apiType, baseURL, key string, t *http.Transport) (*Client, error) {
	typ, ok := Lookup(apiType)
	if !ok {
		return nil, fmt.Errorf("unknown api_type %q", apiType)
	}
	if typ.auth == nil {
		return nil, fmt.Errorf("api_type %q cannot be called yet", apiType)
	}
	c := &Client{Type: typ, auth: typ.auth(key), transport: t}
	var err error
	c.base, c.query, err = typ.normaliseBase(baseURL)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// normaliseBase reads a provider's base URL by the SDK conventions of its
// type (see basePath). A trailing slash is tolerated either way.
func (t *Type) normaliseBase(base string) (root, query string, err error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil {
		return "", "", fmt.Errorf("base URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", fmt.Errorf("base URL %q: want http(s)://host[/path]", base)
	}
	if u.RawQuery != "" {
		query = "?" + u.RawQuery
	}
	u.Path, u.RawPath, u.RawQuery, u.Fragment = t.basePath(urlPath(u)), "", "", ""
	return u.String(), query, nil
}

// URL is the provider's endpoint at path ("/chat/completions", "/v1/messages").
func (c *Client) URL(path string) string { return c.base + path + c.query }

// ChatURL is the provider's chat endpoint.
func (c *Client) ChatURL() string { return c.URL(c.Type.ChatPath) }

// ModelsURL is the provider's model list.
func (c *Client) ModelsURL() string { return c.URL(c.Type.ModelsPath) }

// Authorize puts the provider's key, and the headers its type requires,
// into h: into that header and nowhere else, never a log line or an error.
func (c *Client) Authorize(h http.Header) { c.auth.Authorize(h) }

// RoundTrip sends req through the provider's transport. A round trip, not a
// Client: no redirect is followed with the key (x-api-key, unlike
// Authorization, would cross hosts), no cookies are kept.
func (c *Client) RoundTrip(req *http.Request) (*http.Response, error) {
	return c.transport.RoundTrip(req)
}

// Transport is the client's pooled transport.
func (c *Client) Transport() *http.Transport { return c.transport }

// Mask hides in s the provider's key, whatever it looks like, and anything
// else key-like (MaskSecrets): for upstream text that is shown or stored.
func (c *Client) Mask(s string) string { return maskKey(s, c.auth.Secret()) }

// NewTransport is the one transport of a provider. Timeouts cover dialing
// and TLS; how long to wait for an answer depends on the request and the
// member, so that is each request's context's job.
func NewTransport() *http.Transport {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true, // a custom dialer would otherwise turn HTTP/2 off
		MaxIdleConnsPerHost:   256,  // the default of 2 would reconnect under any load
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}
