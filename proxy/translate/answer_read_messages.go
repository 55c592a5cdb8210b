package translate

import "fmt"

// readMessagesAnswer reads an Anthropic answer, its parts appended to
// parts: text blocks as text parts, thinking blocks as thinking parts with
// their signatures, redacted thinking as redacted parts with their data,
// tool_use blocks as call parts (input object → arguments text, see
// toolArguments); server-tool blocks are dropped. Its stop reason is read
// as messagesStop reads it.
func readMessagesAnswer(resp *messagesResponse, parts []part) (answer, []part, error) {
	if resp.Type == "error" { // lenient otherwise: compatible servers may leave type out
		return answer{}, nil, fmt.Errorf("translate: anthropic answer is an error, not a message")
	}
	for i := range resp.Content {
		parts = appendBlockPart(parts, &resp.Content[i])
	}
	return answer{id: resp.ID, model: resp.Model, stop: messagesStop(resp.StopReason), usage: resp.Usage.usage()}, parts, nil
}

// appendBlockPart appends the part an answer's block gives, if any.
func appendBlockPart(parts []part, b *anthropicBlock) []part {
	switch b.Type {
	case "text":
		return append(parts, part{kind: partText, text: b.Text})
	case "thinking":
		return append(parts, part{kind: partThinking, text: b.Thinking, signature: b.Signature})
	case "redacted_thinking":
		return append(parts, part{kind: partRedacted, text: b.Thinking, signature: b.Data})
	case "tool_use":
		return append(parts, part{kind: partCall, id: b.ID, name: b.Name, text: toolArguments(b.Input)})
	}
	return parts
}

// decodeMessagesResponse decodes body into resp as decode does. decode
// gets a value of its own, so that resp can stay on the caller's stack.
func decodeMessagesResponse(body []byte, resp *messagesResponse) error {
	var r jsonReader
	r.reset(body)
	if r.readMessage(resp) && r.end() {
		return nil
	}
	v := new(messagesResponse)
	err := decode(body, v)
	*resp = *v
	return err
}
