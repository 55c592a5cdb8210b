package proxy

import (
	"fmt"
	"net/http"

	"gateway/models"
	"gateway/proxy/providers"
)

// provider is an upstream account as the proxy calls it: the one client of
// its type (base URL rule, key, transport) and what routing needs beside.
type provider struct {
	id      int64
	name    string
	apiType string
	// protocol is the type's wire protocol; a call's may differ by its
	// model (protocolFor).
	protocol protocol
	// vertex: Claude's calls go in Vertex's form (see vertexAnthropicBody).
	vertex bool
	// responses: an openai-type provider that serves the Responses API
	// itself, so Responses callers pass through.
	responses bool
	// client calls the provider; nil when err says why it cannot.
	client *providers.Client
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

// protocolFor is the wire protocol of a call to upstreamModel: the type's,
// but Anthropic's for a Claude model on Vertex.
func (p *provider) protocolFor(upstreamModel string) protocol {
	if p.vertex {
		return protocolOf(p.client.Protocol(upstreamModel))
	}
	return p.protocol
}

// newProvider prepares a provider for requests, recording rather than
// returning a configuration problem.
func newProvider(p *models.Provider, secrets models.ProviderSecrets, keyErr error, t *http.Transport) *provider {
	pr := &provider{id: p.ID, name: p.Name, apiType: p.APIType, vertex: p.APIType == models.APITypeVertex,
		responses: p.SupportsResponses && p.APIType == models.APITypeOpenAI}
	if t, ok := providers.Lookup(p.APIType); ok {
		pr.protocol = protocolOf(t.Protocol)
	}
	if keyErr != nil {
		pr.err = fmt.Errorf("secrets: %w", keyErr)
		return pr
	}
	pr.client, pr.err = providers.New(p, secrets, t)
	return pr
}
