package proxy

import (
	"net/http"

	"gateway/models"
	"gateway/proxy/providers"
	"gateway/proxy/translate"
)

// protocol is a wire protocol: what a caller speaks, or an upstream; the
// proxy's names for translate's.
type protocol = translate.Protocol

const (
	protoOpenAI    = translate.Chat      // OpenAI Chat Completions
	protoAnthropic = translate.Messages  // Anthropic Messages
	protoResponses = translate.Responses // OpenAI Responses (Codex); a member speaks it when its provider says so
	protoGemini    = translate.Gemini    // Google's generateContent (gemini, and vertex's Gemini models)
	protoConverse  = translate.Converse  // AWS Bedrock's Converse
)

// protocolOf is the proxy's name of a provider type's wire protocol.
func protocolOf(p providers.Protocol) protocol {
	switch p {
	case providers.ProtocolAnthropic:
		return protoAnthropic
	case providers.ProtocolGemini:
		return protoGemini
	case providers.ProtocolConverse:
		return protoConverse
	}
	return protoOpenAI
}

// setUpstreamHeaders sets what every call to p carries: the provider's key in
// its type's header, never the caller's, and for Anthropic the API version
// (the type's default) and betas, taken from an Anthropic caller.
// The credentials go last: a signature covers the headers set before it.
func setUpstreamHeaders(req *http.Request, body []byte, p *provider, caller protocol, in http.Header) error {
	h := req.Header
	h["Content-Type"] = valueJSON
	// Anthropic's headers go to Anthropic itself only: Claude on Vertex
	// takes its version in the body.
	passHeaders := p.apiType == models.APITypeAnthropic && caller == protoAnthropic
	if passHeaders {
		if v := in.Values("Anthropic-Beta"); len(v) > 0 {
			h["Anthropic-Beta"] = append([]string(nil), v...)
		}
	}
	if err := p.client.Authorize(req, body); err != nil {
		return err
	}
	if passHeaders {
		if v := in.Get("Anthropic-Version"); v != "" {
			h.Set("Anthropic-Version", v)
		}
	}
	return nil
}
