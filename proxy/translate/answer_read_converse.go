package translate

import "fmt"

// readConverseBody reads a Bedrock Converse answer (see
// readConverseAnswer). Converse names no model and gives no id: the model
// is left empty for the gateway, which knows it, to fill; the id is made
// up.
func readConverseBody(body []byte, parts []part) (answer, []part, error) {
	var resp converseAnswer
	if err := decode(body, &resp); err != nil {
		return answer{}, nil, fmt.Errorf("translate: converse answer: %w", err)
	}
	return readConverseAnswer(&resp, parts)
}

// readConverseAnswer reads a Converse answer, its parts appended to parts:
// text blocks as text parts, reasoningContent as thinking parts (text and
// signature) or redacted parts (the redacted content, as the base64 it
// comes in), toolUse blocks as call parts (input object → arguments text,
// see toolArguments); other blocks (citations, images) are dropped. The
// stop reason is read as converseStop reads it, the usage in the gateway's
// meaning (see converseUsage). It has no id and no model: the writers make
// up ids, and the model is left to the gateway.
func readConverseAnswer(resp *converseAnswer, parts []part) (answer, []part, error) {
	m := resp.Output.Message
	if m == nil {
		return answer{}, nil, fmt.Errorf("translate: converse answer has no output message")
	}
	for i := range m.Content {
		parts = appendConversePart(parts, &m.Content[i])
	}
	return answer{stop: converseStop(resp.StopReason), usage: resp.Usage.usage()}, parts, nil
}

// appendConversePart appends the part an answer's block gives, if any.
func appendConversePart(parts []part, b *converseBlock) []part {
	switch {
	case b.Text != "":
		return append(parts, part{kind: partText, text: b.Text})
	case b.ToolUse != nil:
		return append(parts, part{kind: partCall, id: b.ToolUse.ToolUseID, name: b.ToolUse.Name, text: toolArguments(b.ToolUse.Input)})
	case b.ReasoningContent != nil && b.ReasoningContent.ReasoningText != nil:
		r := b.ReasoningContent.ReasoningText
		return append(parts, part{kind: partThinking, text: r.Text, signature: r.Signature})
	case b.ReasoningContent != nil && b.ReasoningContent.RedactedContent != "":
		return append(parts, part{kind: partRedacted, signature: b.ReasoningContent.RedactedContent})
	}
	return parts
}

// converseStop reads Converse's stopReason: a guardrail or a content
// filter that stopped the answer is a refusal, the context window filled a
// stop for length.
func converseStop(reason string) stopKind {
	switch reason {
	case "max_tokens", "model_context_window_exceeded":
		return stopLength
	case "tool_use":
		return stopTool
	case "guardrail_intervened", "content_filtered":
		return stopRefusal
	}
	return stopEnd // end_turn, stop_sequence, and reasons Bedrock may add
}
