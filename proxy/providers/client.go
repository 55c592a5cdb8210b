package providers

import (
	"cmp"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"gateway/models"
)

// DefaultAzureAPIVersion is the api-version asked of Azure when the
// provider names none.
const DefaultAzureAPIVersion = "2024-10-21"

// Client is one provider as every caller of it sees it: its normalised base
// URL, its credentials and its transport. It is immutable (but for a
// vertex provider's cached token); the proxy builds a new one at each
// reload and keeps the transport while the base URL stays the same.
type Client struct {
	Type *Type
	// base is the URL endpoints are appended to; query is the base URL's own
	// query ("?api-version=…"), kept after the endpoint's path.
	base, query string
	apiVersion  string // azure
	// vertexPrefix is "/v1/projects/P/locations/L/publishers/".
	vertexPrefix string
	auth         Authorizer
	transport    *http.Transport
	secrets      []string // what Mask hides, the longest first
}

// New prepares a client of provider p, whose secrets in clear are s. t is
// the pooled transport to call through (NewTransport when the caller keeps
// none). The error names a configuration problem: an unknown type, a base
// URL that is not http(s), a required field left empty, credentials that
// cannot be read. It never quotes a secret.
func New(p *models.Provider, s models.ProviderSecrets, t *http.Transport) (*Client, error) {
	typ, ok := Lookup(p.APIType)
	if !ok {
		return nil, fmt.Errorf("unknown api_type %q", p.APIType)
	}
	if t == nil {
		t = NewTransport()
	}
	if err := typ.checkFields(p, s); err != nil {
		return nil, err
	}
	c := &Client{Type: typ, transport: t, secrets: secretsOf(s),
		apiVersion: url.QueryEscape(cmp.Or(p.APIVersion, DefaultAzureAPIVersion)),
		vertexPrefix: "/v1/projects/" + url.PathEscape(p.Project) + "/locations/" +
			url.PathEscape(cmp.Or(p.Location, fieldLocation.Default)) + "/publishers/"}
	base := p.BaseURL
	if strings.TrimSpace(base) == "" && typ.DefaultBase != nil {
		base = typ.DefaultBase(p)
	}
	var err error
	if c.base, c.query, err = typ.normaliseBase(base); err != nil {
		return nil, err
	}
	if c.auth, err = typ.auth(p, s, t); err != nil {
		return nil, err
	}
	return c, nil
}

// checkFields refuses a provider without a field its type requires.
func (t *Type) checkFields(p *models.Provider, s models.ProviderSecrets) error {
	values := map[string]string{
		"api_key": s.APIKey, "region": p.Region, "aws_access_key_id": p.AWSAccessKeyID,
		"aws_secret_access_key": s.AWSSecretAccessKey, "project": p.Project, "credentials_json": s.CredentialsJSON,
	}
	for _, f := range t.Fields {
		if v, known := values[f.Name]; known && f.Required && strings.TrimSpace(v) == "" {
			return fmt.Errorf("%s provider: %s is required", t.Name, f.Name)
		}
	}
	if t.DefaultBase == nil && strings.TrimSpace(p.BaseURL) == "" {
		return fmt.Errorf("%s provider: base_url is required", t.Name)
	}
	return nil
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

// URL is the provider's endpoint at path ("/responses", "/embeddings",
// "/v1/messages/count_tokens"): for the endpoints of the openai and
// anthropic types that do not name a model in their path.
func (c *Client) URL(path string) string { return c.joinQuery(c.base + path) }

// CallURL is the endpoint of a generation by upstream model, streaming or
// not: /chat/completions, /v1/messages, Azure's deployment, Gemini's
// generateContent, Vertex's publisher models, Bedrock's converse.
func (c *Client) CallURL(model string, stream bool) string {
	return c.joinQuery(c.base + c.Type.call(c, model, stream))
}

// ModelsURL is the provider's model list; "" when its type has none on
// the host it calls (bedrock's is another service's, vertex's is not the
// project's).
func (c *Client) ModelsURL() string {
	path := c.Type.models(c)
	if path == "" {
		return ""
	}
	return c.joinQuery(c.base + path)
}

// joinQuery appends the base URL's own query to u, after u's own.
func (c *Client) joinQuery(u string) string {
	switch {
	case c.query == "":
		return u
	case strings.Contains(u, "?"):
		return u + "&" + c.query[1:]
	}
	return u + c.query
}

// Protocol is the wire protocol of a call to upstream model.
func (c *Client) Protocol(model string) Protocol { return c.Type.ProtocolOf(model) }

// Authorize puts the provider's credentials on req, whose body is body:
// a key in its type's header, a SigV4 signature of the request, or an
// OAuth token (fetched with req's context when the cached one is about to
// expire). Credentials go into headers and nowhere else, never a log line
// or an error.
func (c *Client) Authorize(req *http.Request, body []byte) error { return c.auth.Authorize(req, body) }

// RoundTrip sends req through the provider's transport. A round trip, not a
// Client: no redirect is followed with the key (x-api-key, unlike
// Authorization, would cross hosts), no cookies are kept.
func (c *Client) RoundTrip(req *http.Request) (*http.Response, error) {
	return c.transport.RoundTrip(req)
}

// Transport is the client's pooled transport.
func (c *Client) Transport() *http.Transport { return c.transport }

// Mask hides in s every secret of the provider, whatever it looks like, and
// anything else key-like (MaskSecrets): for upstream text that is shown or
// stored.
func (c *Client) Mask(s string) string {
	for _, secret := range c.secrets {
		s = maskSecret(s, secret)
	}
	return MaskSecrets(s)
}

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
