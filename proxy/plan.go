package proxy

import (
	"bytes"
	"errors"

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

// upstreamProtocol is how each caller's requests reach an upstream
// protocol and how its answers come back, indexed by the caller's
// protocol (protoOpenAI, protoAnthropic, protoResponses). A nil request
// writer is the caller's own protocol: the bytes pass through.
type upstreamProtocol struct {
	request [3]func(body []byte, upstreamModel string) ([]byte, error)
	answer  [3]func(body []byte) ([]byte, usage, error)
	stream  [3]func(c *callPlan, promptTokens int) streamAdapter
}

// upstreams is the table of upstream protocols, by protocol.
var upstreams = [...]*upstreamProtocol{
	protoOpenAI: {
		request: [3]func([]byte, string) ([]byte, error){
			protoAnthropic: func(b []byte, m string) ([]byte, error) { return translate.MessagesToChat(b, m, true) },
			protoResponses: func(b []byte, m string) ([]byte, error) { return translate.ResponsesToChat(b, m, true) },
		},
		answer: [3]func([]byte) ([]byte, usage, error){
			protoAnthropic: translate.ChatResponseToMessages, protoResponses: translate.ChatResponseToResponses,
		},
		stream: [3]func(*callPlan, int) streamAdapter{
			protoOpenAI: func(c *callPlan, _ int) streamAdapter { return &openAIPassthrough{wantsUsage: c.wantsUsage} },
			protoAnthropic: func(_ *callPlan, n int) streamAdapter {
				return &translatingStream{conv: translate.NewChatToMessagesStream(int64(n))}
			},
			protoResponses: func(*callPlan, int) streamAdapter {
				return &translatingStream{conv: translate.NewChatToResponsesStream()}
			},
		},
	},
	protoAnthropic: {
		request: [3]func([]byte, string) ([]byte, error){
			protoOpenAI: translate.ChatToMessages, protoResponses: translate.ResponsesToMessages,
		},
		answer: [3]func([]byte) ([]byte, usage, error){
			protoOpenAI: translate.MessagesResponseToChat, protoResponses: translate.MessagesResponseToResponses,
		},
		stream: [3]func(*callPlan, int) streamAdapter{
			protoOpenAI: func(c *callPlan, _ int) streamAdapter {
				return &translatingStream{conv: translate.NewMessagesToChatStream(c.wantsUsage)}
			},
			protoAnthropic: func(*callPlan, int) streamAdapter { return &anthropicPassthrough{} },
			protoResponses: func(*callPlan, int) streamAdapter {
				return &translatingStream{conv: translate.NewMessagesToResponsesStream()}
			},
		},
	},
	protoResponses: {
		stream: [3]func(*callPlan, int) streamAdapter{
			protoResponses: func(*callPlan, int) streamAdapter { return &responsesPassthrough{} },
		},
	},
	protoGemini: {
		request: [3]func([]byte, string) ([]byte, error){
			protoOpenAI:    modelInURL(translate.ChatToGemini),
			protoAnthropic: modelInURL(translate.MessagesToGemini),
			protoResponses: modelInURL(translate.ResponsesToGemini),
		},
		answer: [3]func([]byte) ([]byte, usage, error){
			protoOpenAI: translate.GeminiResponseToChat, protoAnthropic: translate.GeminiResponseToMessages,
			protoResponses: translate.GeminiResponseToResponses,
		},
		stream: [3]func(*callPlan, int) streamAdapter{
			protoOpenAI: func(c *callPlan, _ int) streamAdapter {
				return &translatingStream{conv: translate.NewGeminiToChatStream(c.wantsUsage)}
			},
			protoAnthropic: func(_ *callPlan, n int) streamAdapter {
				return &translatingStream{conv: translate.NewGeminiToMessagesStream(int64(n))}
			},
			protoResponses: func(*callPlan, int) streamAdapter {
				return &translatingStream{conv: translate.NewGeminiToResponsesStream()}
			},
		},
	},
	protoConverse: {
		request: [3]func([]byte, string) ([]byte, error){
			protoOpenAI:    modelInURL(translate.ChatToConverse),
			protoAnthropic: modelInURL(translate.MessagesToConverse),
			protoResponses: modelInURL(translate.ResponsesToConverse),
		},
		answer: [3]func([]byte) ([]byte, usage, error){
			protoOpenAI: translate.ConverseResponseToChat, protoAnthropic: translate.ConverseResponseToMessages,
			protoResponses: translate.ConverseResponseToResponses,
		},
		stream: [3]func(*callPlan, int) streamAdapter{
			protoOpenAI: func(c *callPlan, _ int) streamAdapter {
				return &translatingStream{conv: translate.NewConverseToChatStream(c.wantsUsage)}
			},
			protoAnthropic: func(_ *callPlan, n int) streamAdapter {
				return &translatingStream{conv: translate.NewConverseToMessagesStream(int64(n))}
			},
			protoResponses: func(*callPlan, int) streamAdapter {
				return &translatingStream{conv: translate.NewConverseToResponsesStream()}
			},
		},
	},
}

// modelInURL: Gemini and Converse name the model in the URL, not the body.
func modelInURL(write func([]byte) ([]byte, error)) func([]byte, string) ([]byte, error) {
	return func(body []byte, _ string) ([]byte, error) { return write(body) }
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
	if write := upstreams[up].request[caller]; write != nil {
		c.body, err = write(req.body, upstreamModel)
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
	return upstreams[c.upstream].answer[c.caller](body)
}

// errorBody reshapes an upstream's error answer for the caller.
func (c *callPlan) errorBody(status int, body []byte) []byte {
	switch {
	case !c.translated():
		return body
	case c.caller == protoResponses:
		return translate.ErrorToResponses(status, body)
	case c.caller == protoOpenAI:
		return translate.ErrorToChat(status, body)
	default:
		return translate.ErrorToMessages(status, body)
	}
}

// stream returns the adapter that relays this call's events. promptTokens
// is the request's estimate, for an Anthropic caller's message_start
// before an upstream that reports its count at the end.
func (c *callPlan) stream(promptTokens int) streamAdapter {
	return upstreams[c.upstream].stream[c.caller](c, promptTokens)
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
