package translate

import (
	"crypto/rand"
	"strings"
)

// writeMessagesAnswer writes a as an Anthropic answer: texts and refusals
// as text blocks, calls as tool_use blocks (arguments text → input object;
// arguments that are not a JSON object become {}, see toolInput). Thinking
// is dropped, as messagesWriter drops it: an unsigned thinking block would
// get the conversation's next request to a Claude model refused. The stop
// reason is anthropicStopReason's (OpenAI does not say whether a stop
// sequence fired, so stop_sequence is never given); the id is the
// upstream's with chatcmpl- replaced by msg_ (see messageID).
func writeMessagesAnswer(a *answer, parts []part) messagesResponseOut {
	content := make([]any, 0, len(parts))
	var calledTools, refused bool
	for i := range parts {
		p := &parts[i]
		switch p.kind {
		case partText, partRefusal:
			if p.text != "" {
				content = append(content, textBlock{Type: "text", Text: p.text})
				refused = refused || p.kind == partRefusal
			}
		case partCall:
			content = append(content, toolUseBlock{Type: "tool_use", ID: toolUseID(p.id),
				Name: p.name, Input: toolInput(p.text)})
			calledTools = true
		}
	}
	stop := anthropicStopReason(a.stop, calledTools, refused)
	return messagesResponseOut{
		ID: messageID(a.id), Type: "message", Role: "assistant", Model: a.model,
		Content: content, StopReason: &stop, Usage: a.usage.anthropic(),
	}
}

// anthropicStopReason gives Anthropic's stop_reason: a turn that ended
// otherwise ended for the tools it called, or the refusal it gave (some
// compatible servers say stop beside tool calls).
func anthropicStopReason(stop stopKind, calledTools, refused bool) string {
	switch {
	case stop == stopLength:
		return "max_tokens"
	case stop == stopTool || calledTools && stop == stopEnd:
		return "tool_use"
	case stop == stopRefusal || refused:
		return "refusal"
	}
	return "end_turn"
}

// messageID derives an Anthropic message id from an OpenAI completion id.
func messageID(upstream string) string {
	if rest, ok := strings.CutPrefix(upstream, "chatcmpl-"); ok && rest != "" {
		return "msg_" + rest
	}
	if upstream == "" {
		return "msg_" + rand.Text()
	}
	return "msg_" + upstream
}

// toolUseID keeps a tool call's id exactly; only a missing one (some
// compatible servers send none) is made up, since Anthropic needs one to
// match the tool result to.
func toolUseID(id string) string {
	if id == "" {
		return "toolu_" + rand.Text()
	}
	return id
}
