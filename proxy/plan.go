package proxy

import (
	"bytes"
	"errors"
	"fmt"

	"gateway/proxy/jsonscan"
	"gateway/proxy/translate"
)

// callPlan is one call to one member: where it goes, what it sends, and how
// the answer reaches the caller. When the caller and the member speak the
// same protocol the bytes pass through untouched (but for the model);
// otherwise they are translated both ways.
type callPlan struct {
	url      string // the provider's endpoint for this model
	body     []byte
	caller   protocol
	upstream protocol
	// wantsUsage: an OpenAI caller asked for the usage chunk itself.
	wantsUsage bool
}

func (c *callPlan) translated() bool { return c.caller != c.upstream }

// passthroughs is how each upstream protocol's stream reaches a caller of
// the same protocol: its events relayed as they come, read only for what
// the gateway needs. Between two protocols package translate reads and
// writes requests, answers, errors and streams (see translate.Request).
var passthroughs = [...]func(c *callPlan) streamAdapter{
	protoOpenAI:    func(c *callPlan) streamAdapter { return &openAIPassthrough{wantsUsage: c.wantsUsage} },
	protoAnthropic: func(*callPlan) streamAdapter { return &anthropicPassthrough{} },
	protoResponses: func(*callPlan) streamAdapter { return &responsesPassthrough{} },
	protoGemini:    nil, // no caller speaks it
	protoConverse:  nil, // no caller speaks it
}

// planGenerate plans a chat completion, a message or a response for member m.
func planGenerate(req *chatRequest, caller protocol, p *provider, upstreamModel string) (*callPlan, error) {
	if caller == protoResponses && p.responses {
		return &callPlan{caller: caller, upstream: protoResponses, url: p.client.URL("/responses"),
			body: req.rewrite(upstreamModel, false)}, nil
	}
	up := p.protocolFor(upstreamModel)
	c := &callPlan{caller: caller, upstream: up, wantsUsage: req.wantsUsage, url: p.client.CallURL(upstreamModel, req.stream)}
	var err error
	if c.translated() {
		// The gateway always wants an OpenAI stream's usage.
		c.body, err = translate.Request(caller, up, req.body, upstreamModel, translate.Options{IncludeUsage: true})
	} else {
		c.body = req.rewrite(upstreamModel, up == protoOpenAI && req.stream)
	}
	if err == nil && up == protoAnthropic && p.vertex {
		c.body = vertexAnthropicBody(c.body)
	}
	return c, err
}

// vertexAnthropicVersion is what Claude on Vertex takes in the body, in
// place of the model (which its URL names) and of the header.
const vertexAnthropicVersion = `"anthropic_version":"vertex-2023-10-16"`

// vertexAnthropicBody puts a Messages body into Vertex's form: its model
// field becomes the anthropic_version; everything else is kept byte for
// byte.
func vertexAnthropicBody(body []byte) []byte {
	open := jsonscan.SkipSpace(body, 0)
	if open >= len(body) || body[open] != '{' {
		return body
	}
	sc := jsonscan.NewObject(body, open)
	for key, val, ok := sc.Next(); ok; key, val, ok = sc.Next() {
		if jsonscan.KeyIs(key, "model") {
			start := bytes.LastIndex(body[:val.Start], []byte(`"model"`))
			return applyEdits(body, []edit{{jsonscan.Span{Start: start, End: val.End}, vertexAnthropicVersion}})
		}
	}
	return applyEdits(body, []edit{{jsonscan.Span{Start: open + 1, End: open + 1}, vertexAnthropicVersion + ","}})
}

// answer turns a whole successful answer into the caller's protocol and
// reads its usage.
func (c *callPlan) answer(body []byte) ([]byte, usage, error) {
	if !c.translated() {
		u, _ := usageFromBody(body, c.upstream)
		return body, u, nil
	}
	return translate.Answer(c.upstream, c.caller, body)
}

// errorBody reshapes an upstream's error answer for the caller.
func (c *callPlan) errorBody(status int, body []byte) []byte {
	if !c.translated() {
		return body
	}
	return translate.Error(c.caller, status, body)
}

// stream returns the adapter that relays this call's events. promptTokens
// is the request's estimate, for an Anthropic caller's message_start
// before an upstream that reports its count at the end.
func (c *callPlan) stream(promptTokens int) (streamAdapter, error) {
	if !c.translated() {
		if pass := passthroughs[c.upstream]; pass != nil {
			return pass(c), nil
		}
		return nil, fmt.Errorf("proxy: no passthrough for %v streams", c.upstream)
	}
	conv, err := translate.NewStream(c.upstream, c.caller,
		translate.Options{IncludeUsage: c.wantsUsage, InputEstimate: int64(promptTokens)})
	if err != nil {
		return nil, err
	}
	return &translatingStream{conv: conv}, nil
}

// translationFailure is a request that cannot be put into the member's
// protocol: the caller's to fix, so nothing is retried, nothing counts
// against the member and there are no fallbacks; but a member taking the
// caller's protocol as is may still serve it.
func translationFailure(err error) *failure {
	var re *translate.RequestError
	msg := err.Error()
	if errors.As(err, &re) {
		msg = re.Message
		if re.Param != "" {
			msg = re.Param + ": " + msg
		}
	}
	return &failure{untranslatable: true, err: errBadRequest("untranslatable_request", msg)}
}

// takesAsIs reports whether p serves the caller's protocol itself for
// upstreamModel, so that its requests pass through untranslated (see
// planGenerate).
func (p *provider) takesAsIs(caller protocol, upstreamModel string) bool {
	if caller == protoResponses {
		return p.responses
	}
	return p.protocolFor(upstreamModel) == caller
}
