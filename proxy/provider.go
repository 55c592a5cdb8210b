package proxy

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"gateway/models"
)

// provider is an upstream account as the proxy calls it.
type provider struct {
	id       int64
	name     string
	apiType  string
	protocol protocol
	// responses: an openai-type provider that serves the Responses API
	// itself, so Responses callers pass through.
	responses bool
	// base is the URL endpoints are appended to: an openai-type base keeps
	// its version ("…/v1" + "/chat/completions"), an anthropic-type one is
	// the root ("…" + "/v1/messages").
	base string
	// query is the base URL's own query ("?api-version=…"), kept after the
	// endpoint's path.
	query string
	// keyHeader and keyValue carry the provider's key ("Authorization:
	// Bearer …" or "X-Api-Key: …"): into that one header and nowhere else,
	// never into a log line or an error.
	keyHeader, keyValue string
	keyValues           []string // keyValue, built once for the header
	transport           *http.Transport
	// err is a configuration problem found at reload (bad base URL, a key that
	// does not decrypt): the provider's members answer 502 naming it, and the
	// rest of the table still loads.
	err error
}

// cachedTransport is the pooled transport of one provider, kept across
// reloads while its base URL stays the same so that warm connections survive
// an admin's unrelated edit.
type cachedTransport struct {
	baseURL   string
	transport *http.Transport
}

// newTransport is the one transport of a provider. Timeouts cover dialing and
// TLS; how long to wait for an answer depends on the request and the member,
// so that is each request's context's job.
func newTransport() *http.Transport {
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

// baseURL normalises a provider's base URL by the SDK conventions of its
// protocol: an openai-type base carries the version ("https://api.openai.com/v1";
// one without any path gets "/v1"), an anthropic-type base does not
// ("https://api.anthropic.com"; a redundant "/v1" is dropped). A trailing
// slash is tolerated either way.
func baseURL(base string, p protocol) (root, query string, err error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil {
		return "", "", fmt.Errorf("base URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", fmt.Errorf("base URL %q: want http(s)://host[/path]", base)
	}
	path := strings.TrimRight(u.Path, "/")
	switch {
	case p == protoOpenAI && path == "":
		path = "/v1"
	case p == protoAnthropic:
		path = strings.TrimSuffix(path, "/v1")
	}
	if u.RawQuery != "" {
		query = "?" + u.RawQuery
	}
	u.Path, u.RawPath, u.RawQuery, u.Fragment = path, "", "", ""
	return u.String(), query, nil
}

// url is the provider's endpoint at path ("/chat/completions", "/v1/messages").
func (p *provider) url(path string) string { return p.base + path + p.query }

// newProvider prepares a provider for requests, recording rather than
// returning a configuration problem.
func newProvider(p *models.Provider, apiKey string, keyErr error, t *http.Transport) *provider {
	pr := &provider{id: p.ID, name: p.Name, apiType: p.APIType, protocol: protocolOf(p.APIType), transport: t,
		responses: p.SupportsResponses && p.APIType == models.APITypeOpenAI}
	switch p.APIType {
	case models.APITypeOpenAI:
		pr.keyHeader, pr.keyValue = "Authorization", "Bearer "+apiKey
	case models.APITypeAnthropic:
		pr.keyHeader, pr.keyValue = "X-Api-Key", apiKey
	default:
		pr.err = fmt.Errorf("unknown api_type %q", p.APIType)
	}
	pr.keyValues = headerValue(pr.keyValue)
	if pr.err == nil {
		pr.base, pr.query, pr.err = baseURL(p.BaseURL, pr.protocol)
	}
	if keyErr != nil {
		pr.err = errors.Join(pr.err, fmt.Errorf("api key: %w", keyErr))
	}
	return pr
}
