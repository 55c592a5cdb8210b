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

// defaultAnthropicVersion is asked of Anthropic-type upstreams when the
// caller named none (an OpenAI caller never does).
const defaultAnthropicVersion = "2023-06-01"

// setUpstreamHeaders sets what every call to p carries: the provider's key in
// its protocol's header, never the caller's, and for Anthropic the API
// version and betas, taken from an Anthropic caller.
func setUpstreamHeaders(h http.Header, p *provider, caller protocol, in http.Header) {
	h["Content-Type"] = valueJSON
	h[p.keyHeader] = p.keyValues
	if p.protocol != protoAnthropic {
		return
	}
	version := defaultAnthropicVersion
	if caller == protoAnthropic {
		if v := in.Get("Anthropic-Version"); v != "" {
			version = v
		}
		if v := in.Values("Anthropic-Beta"); len(v) > 0 {
			h["Anthropic-Beta"] = append([]string(nil), v...)
		}
	}
	h.Set("Anthropic-Version", version)
}
