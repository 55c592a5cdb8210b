package translate

import (
	"fmt"
	"time"
)

// ConverseResponseToChat translates a Bedrock Converse answer into an
// OpenAI chat completion, and returns its usage (see readConverseAnswer and
// writeChatAnswer). Converse names no model and gives no id: the model is
// left empty for the gateway, which knows it, to fill; the id is made up.
func ConverseResponseToChat(body []byte) ([]byte, Usage, error) {
	return converseResponseToChat(body, time.Now().Unix())
}

func converseResponseToChat(body []byte, created int64) ([]byte, Usage, error) {
	var room answerParts
	a, parts, err := readConverseBody(body, room[:0])
	if err != nil {
		return nil, Usage{}, err
	}
	out := writeChatAnswer(&a, parts, created)
	b, err := marshalChatResponse(&out)
	return b, a.usage, err
}

// ConverseResponseToMessages translates a Bedrock Converse answer into an
// Anthropic answer, and returns its usage (see readConverseAnswer and
// writeMessagesAnswer; model and id as for ConverseResponseToChat).
func ConverseResponseToMessages(body []byte) ([]byte, Usage, error) {
	var room answerParts
	a, parts, err := readConverseBody(body, room[:0])
	if err != nil {
		return nil, Usage{}, err
	}
	out := writeMessagesAnswer(&a, parts)
	b, err := marshal(out)
	return b, a.usage, err
}

// ConverseResponseToResponses translates a Bedrock Converse answer into a
// Responses "response" object, and returns its usage (see
// readConverseAnswer and writeResponsesAnswer; model and id as for
// ConverseResponseToChat). Signed reasoning goes out as reasoning items,
// so that a caller sending them back keeps Claude's tool-use turns whole.
func ConverseResponseToResponses(body []byte) ([]byte, Usage, error) {
	return converseResponseToResponses(body, time.Now().Unix())
}

func converseResponseToResponses(body []byte, created int64) ([]byte, Usage, error) {
	var room answerParts
	a, parts, err := readConverseBody(body, room[:0])
	if err != nil {
		return nil, Usage{}, err
	}
	return writeResponsesAnswer(&a, parts, created)
}

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
