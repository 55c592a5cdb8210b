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
// The credentials go last: a signature covers the headers set before it.
func setUpstreamHeaders(req *http.Request, body []byte, p *provider, caller protocol, in http.Header) error {
	h := req.Header
	h["Content-Type"] = valueJSON
	if p.protocol == protoAnthropic && caller == protoAnthropic {
		if v := in.Values("Anthropic-Beta"); len(v) > 0 {
			h["Anthropic-Beta"] = append([]string(nil), v...)
		}
	}
	if err := p.client.Authorize(req, body); err != nil {
		return err
	}
	if p.protocol == protoAnthropic && caller == protoAnthropic {
		if v := in.Get("Anthropic-Version"); v != "" {
			h.Set("Anthropic-Version", v)
		}
	}
	return nil
}
