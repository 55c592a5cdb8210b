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
	id      int64
	name    string
	apiType string
	chatURL string // openai type: base URL + /chat/completions
	// authorization is "Bearer <api key>": it goes into one header and nowhere
	// else, never into a log line or an error.
	authorization string
	transport     *http.Transport
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

// chatCompletionsURL appends the endpoint to an openai-type base URL, which
// carries the version ("https://api.openai.com/v1"); a base without any path
// gets "/v1", and a trailing slash is tolerated.
func chatCompletionsURL(base string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil {
		return "", fmt.Errorf("base URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("base URL %q: want http(s)://host[/path]", base)
	}
	path := strings.TrimRight(u.Path, "/")
	if path == "" {
		path = "/v1"
	}
	u.Path, u.RawPath = path+"/chat/completions", ""
	return u.String(), nil
}

// newProvider prepares a provider for requests, recording rather than
// returning a configuration problem.
func newProvider(p *models.Provider, apiKey string, keyErr error, t *http.Transport) *provider {
	pr := &provider{id: p.ID, name: p.Name, apiType: p.APIType, authorization: "Bearer " + apiKey, transport: t}
	switch p.APIType {
	case models.APITypeOpenAI:
		pr.chatURL, pr.err = chatCompletionsURL(p.BaseURL)
	case models.APITypeAnthropic:
		// Served once translation exists; chat requests get a clear 501 until then.
	default:
		pr.err = fmt.Errorf("unknown api_type %q", p.APIType)
	}
	if keyErr != nil {
		pr.err = errors.Join(pr.err, fmt.Errorf("api key: %w", keyErr))
	}
	return pr
}
