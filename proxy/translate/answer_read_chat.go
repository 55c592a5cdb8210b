package translate

import (
	"encoding/json"
	"fmt"
)

// readChatAnswer reads an OpenAI chat completion's first choice, its parts
// appended to parts: the reasoning compatible servers send
// (reasoning_content or reasoning) as a thinking part ahead of the others,
// its content (a string, or text parts from some compatible servers) as a
// text part, a refusal as a refusal part, tool calls as call parts with
// their ids as sent (writers make up missing ones); finish_reason as
// chatStop reads it; the creation time and the reasoning tokens.
func readChatAnswer(resp *chatResponse, parts []part) (answer, []part, error) {
	if len(resp.Choices) == 0 {
		return answer{}, nil, fmt.Errorf("translate: openai answer has no choices")
	}
	c := &resp.Choices[0]
	a := answer{id: resp.ID, model: resp.Model, created: resp.Created, stop: chatStop(c.FinishReason)}
	if resp.Usage != nil {
		a.usage = resp.Usage.usage()
	}
	m := &c.Message
	return a, appendAnswerParts(parts, reasoningText(m.ReasoningContent, m.Reasoning), m.Content, m.Refusal, m.ToolCalls), nil
}

// appendAnswerParts appends the parts of an answer's message.
func appendAnswerParts(parts []part, reasoning string, content json.RawMessage, refusal string, calls []chatToolCall) []part {
	if reasoning != "" {
		parts = append(parts, part{kind: partThinking, text: reasoning})
	}
	if text := responseText(content); text != "" {
		parts = append(parts, part{kind: partText, text: text})
	}
	if refusal != "" {
		parts = append(parts, part{kind: partRefusal, text: refusal})
	}
	for i := range calls {
		f := &calls[i].Function
		parts = append(parts, part{kind: partCall, id: calls[i].ID, name: f.Name, text: f.Arguments})
	}
	return parts
}

// responseText reads an answer's content: a string, null, or (some
// compatible servers) an array of text parts. A string, the common case,
// is read by hand (jsonReader decodes strings as encoding/json does).
func responseText(raw json.RawMessage) string {
	var r jsonReader
	r.reset(raw)
	if text, ok := r.stringOrNull(); ok && r.end() {
		return text
	}
	text, parts, _, _ := decodeContent[chatPart](raw)
	for _, p := range parts {
		text += p.Text
	}
	return text
}
