package translate

import "fmt"

// readMessagesAnswer reads an Anthropic answer, its parts appended to
// parts: text blocks as text parts,
// thinking blocks as thinking parts, redacted thinking as redacted parts,
// tool_use blocks as call parts (input object → arguments text, see
// toolArguments); server-tool blocks are dropped. Its stop reason is read
// as messagesStop reads it. resp has the shape the hand reader takes
// (fastanswer.go), without signatures (see readSignedMessagesAnswer).
func readMessagesAnswer(resp *messagesResponse, parts []part) (answer, []part, error) {
	if resp.Type == "error" { // lenient otherwise: compatible servers may leave type out
		return answer{}, nil, fmt.Errorf("translate: anthropic answer is an error, not a message")
	}
	for i := range resp.Content {
		parts = appendBlockPart(parts, &resp.Content[i], "", "")
	}
	return answer{id: resp.ID, model: resp.Model, stop: messagesStop(resp.StopReason), usage: resp.Usage.usage()}, parts, nil
}

// readSignedMessagesAnswer is readMessagesAnswer of the wider shape: its
// thinking parts keep their signatures, its redacted parts their data.
func readSignedMessagesAnswer(resp *messagesAnswer, parts []part) (answer, []part, error) {
	if resp.Type == "error" {
		return answer{}, nil, fmt.Errorf("translate: anthropic answer is an error, not a message")
	}
	for i := range resp.Content {
		b := &resp.Content[i]
		parts = appendBlockPart(parts, &b.anthropicBlock, b.Signature, b.Data)
	}
	return answer{id: resp.ID, model: resp.Model, stop: messagesStop(resp.StopReason), usage: resp.Usage.usage()}, parts, nil
}

// appendBlockPart appends the part an answer's block gives, if any.
func appendBlockPart(parts []part, b *anthropicBlock, signature, data string) []part {
	switch b.Type {
	case "text":
		return append(parts, part{kind: partText, text: b.Text})
	case "thinking":
		return append(parts, part{kind: partThinking, text: b.Thinking, signature: signature})
	case "redacted_thinking":
		return append(parts, part{kind: partRedacted, text: b.Thinking, signature: data})
	case "tool_use":
		return append(parts, part{kind: partCall, id: b.ID, name: b.Name, text: toolArguments(b.Input)})
	}
	return parts
}
