package proxy

import (
	"net/http"

	"gateway/models"
)

// protocol is a wire protocol: what a caller speaks, or an upstream.
type protocol int

const (
	protoOpenAI    protocol = iota // OpenAI Chat Completions
	protoAnthropic                 // Anthropic Messages
	protoResponses                 // OpenAI Responses (Codex); a member speaks it when its provider says so
)

func protocolOf(apiType string) protocol {
	if apiType == models.APITypeAnthropic {
		return protoAnthropic
	}
	return protoOpenAI
}

// setUpstreamHeaders sets what every call to p carries: the provider's key in
// its type's header, never the caller's, and for Anthropic the API version
// (the type's default) and betas, taken from an Anthropic caller.
func setUpstreamHeaders(h http.Header, p *provider, caller protocol, in http.Header) {
	h["Content-Type"] = valueJSON
	p.client.Authorize(h)
	if p.protocol != protoAnthropic || caller != protoAnthropic {
		return
	}
	if v := in.Get("Anthropic-Version"); v != "" {
		h.Set("Anthropic-Version", v)
	}
	if v := in.Values("Anthropic-Beta"); len(v) > 0 {
		h["Anthropic-Beta"] = append([]string(nil), v...)
	}
}
