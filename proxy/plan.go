package proxy

import (
	"errors"

	"gateway/proxy/translate"
)

// callPlan is one call to one member: where it goes, what it sends, and how
// the answer reaches the caller. When the caller and the member speak the
// same protocol the bytes pass through untouched (but for the model);
// otherwise they are translated both ways.
type callPlan struct {
	path     string // the provider's endpoint
	body     []byte
	caller   protocol
	upstream protocol
	// wantsUsage: an OpenAI caller asked for the usage chunk itself.
	wantsUsage bool
}

func (c *callPlan) translated() bool { return c.caller != c.upstream }

// planGenerate plans a chat completion, a message or a response for member m.
func planGenerate(req *chatRequest, caller protocol, p *provider, upstreamModel string) (*callPlan, error) {
	c := &callPlan{caller: caller, upstream: p.protocol, wantsUsage: req.wantsUsage}
	var err error
	switch {
	case caller == protoResponses && p.responses:
		c.upstream, c.path, c.body = protoResponses, "/responses", req.rewrite(upstreamModel, false)
	case caller == protoResponses && p.protocol == protoAnthropic:
		c.path = "/v1/messages"
		c.body, err = translate.ResponsesToMessages(req.body, upstreamModel)
	case caller == protoResponses:
		c.path = "/chat/completions"
		c.body, err = translate.ResponsesToChat(req.body, upstreamModel, true)
	case caller == protoOpenAI && p.protocol == protoOpenAI:
		c.path, c.body = "/chat/completions", req.rewrite(upstreamModel, req.stream)
	case caller == protoAnthropic && p.protocol == protoAnthropic:
		c.path, c.body = "/v1/messages", req.rewrite(upstreamModel, false)
	case caller == protoOpenAI:
		c.path = "/v1/messages"
		c.body, err = translate.ChatToMessages(req.body, upstreamModel)
	default:
		c.path = "/chat/completions"
		c.body, err = translate.MessagesToChat(req.body, upstreamModel, true)
	}
	return c, err
}

// answer turns a whole successful answer into the caller's protocol and
// reads its usage.
func (c *callPlan) answer(body []byte) ([]byte, usage, error) {
	switch {
	case !c.translated():
		u, _ := usageFromBody(body, c.upstream)
		return body, u, nil
	case c.caller == protoResponses && c.upstream == protoAnthropic:
		return translate.MessagesResponseToResponses(body)
	case c.caller == protoResponses:
		return translate.ChatResponseToResponses(body)
	case c.caller == protoOpenAI:
		return translate.MessagesResponseToChat(body)
	default:
		return translate.ChatResponseToMessages(body)
	}
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
// before an OpenAI upstream reports its count at the end.
func (c *callPlan) stream(promptTokens int) streamAdapter {
	switch {
	case c.caller == protoResponses && c.upstream == protoResponses:
		return &responsesPassthrough{}
	case c.caller == protoResponses && c.upstream == protoAnthropic:
		return &translatingStream{conv: translate.NewMessagesToResponsesStream()}
	case c.caller == protoResponses:
		return &translatingStream{conv: translate.NewChatToResponsesStream()}
	case c.caller == protoOpenAI && c.upstream == protoOpenAI:
		return &openAIPassthrough{wantsUsage: c.wantsUsage}
	case c.caller == protoAnthropic && c.upstream == protoAnthropic:
		return &anthropicPassthrough{}
	case c.caller == protoOpenAI:
		return &translatingStream{conv: translate.NewMessagesToChatStream(c.wantsUsage)}
	default:
		return &translatingStream{conv: translate.NewChatToMessagesStream(int64(promptTokens))}
	}
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

// takesAsIs reports whether p serves the caller's protocol itself, so that
// its requests pass through untranslated (see planGenerate).
func (p *provider) takesAsIs(caller protocol) bool {
	if caller == protoResponses {
		return p.responses
	}
	return p.protocol == caller
}
