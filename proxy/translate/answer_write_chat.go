package translate

import (
	"cmp"
	"crypto/rand"
	"strings"
)

// writeChatAnswer writes a as an OpenAI chat completion created at created
// (or when the upstream says it was). Texts are joined into content,
// thinking into reasoning_content (the field OpenAI-compatible clients read
// reasoning from; OpenAI's SDKs ignore it), refusals into refusal; calls
// become tool_calls with their ids as read; redacted thinking is dropped.
// content is null only beside tool calls: clients call string methods on
// it. The id is the upstream's with msg_ replaced by chatcmpl- (see
// chatID); finish_reason is finishReasonOf's.
func writeChatAnswer(a *answer, parts []part, created int64) chatResponseOut {
	var calls []chatToolCall
	for i := range parts {
		if p := &parts[i]; p.kind == partCall {
			calls = append(calls, chatToolCall{ID: p.id, Type: "function",
				Function: chatFunctionCall{Name: p.name, Arguments: p.text}})
		}
	}
	msg := chatResponseMessage{Role: "assistant", ReasoningContent: joinText(parts, partThinking), ToolCalls: calls}
	if text := joinText(parts, partText); text != "" || len(calls) == 0 {
		msg.Content = &text
	}
	if refusal := joinText(parts, partRefusal); refusal != "" {
		msg.Refusal = &refusal
	}
	return chatResponseOut{
		ID: chatID(a.id), Object: "chat.completion", Created: cmp.Or(a.created, created), Model: a.model,
		Choices: []chatChoiceOut{{Message: msg, FinishReason: finishReasonOf(a.stop)}},
		Usage:   a.usage.chat(),
	}
}

// joinText joins the texts of the parts of kind k; one text is given as it
// is, not copied.
func joinText(parts []part, k partKind) string {
	var one string
	n, size := 0, 0
	for i := range parts {
		if p := &parts[i]; p.kind == k && p.text != "" {
			one, n, size = p.text, n+1, size+len(p.text)
		}
	}
	if n < 2 {
		return one
	}
	var b strings.Builder
	b.Grow(size)
	for i := range parts {
		if parts[i].kind == k {
			b.WriteString(parts[i].text)
		}
	}
	return b.String()
}

// chatID derives an OpenAI completion id from an Anthropic message id.
func chatID(upstream string) string {
	if rest, ok := strings.CutPrefix(upstream, "msg_"); ok && rest != "" {
		return "chatcmpl-" + rest
	}
	if upstream == "" {
		return "chatcmpl-" + rand.Text()
	}
	return "chatcmpl-" + upstream
}
