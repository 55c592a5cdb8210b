package translate

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// MessagesResponseToChat translates an Anthropic non-streaming answer into
// an OpenAI chat completion, and returns its usage.
//
// Text blocks are joined into content; tool_use blocks become tool_calls
// (input object → arguments string); thinking becomes reasoning_content, the
// field OpenAI-compatible clients read reasoning from (OpenAI's SDKs ignore
// it); redacted thinking and server-tool blocks are dropped. The id is the
// upstream's with msg_ replaced by chatcmpl-, the model the upstream's. Stop
// reasons: end_turn, stop_sequence and pause_turn → stop; max_tokens and
// model_context_window_exceeded → length; tool_use → tool_calls; refusal →
// content_filter.
func MessagesResponseToChat(body []byte) ([]byte, Usage, error) {
	return messagesResponseToChat(body, time.Now().Unix())
}

func messagesResponseToChat(body []byte, created int64) ([]byte, Usage, error) {
	var resp messagesResponse
	if err := decodeMessagesResponse(body, &resp); err != nil {
		return nil, Usage{}, fmt.Errorf("translate: anthropic answer: %w", err)
	}
	out, usage, err := chatCompletionAnswer(&resp, created)
	if err != nil {
		return nil, Usage{}, err
	}
	b, err := marshalChatResponse(&out)
	return b, usage, err
}

// chatCompletionAnswer builds the chat completion answering resp (see
// MessagesResponseToChat).
func chatCompletionAnswer(resp *messagesResponse, created int64) (chatResponseOut, Usage, error) {
	if resp.Type == "error" { // lenient otherwise: compatible servers may leave type out
		return chatResponseOut{}, Usage{}, fmt.Errorf("translate: anthropic answer is an error, not a message")
	}
	var text, reasoning strings.Builder
	var calls []chatToolCall
	for _, b := range resp.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "thinking":
			reasoning.WriteString(b.Thinking)
		case "tool_use":
			calls = append(calls, chatToolCall{ID: b.ID, Type: "function",
				Function: chatFunctionCall{Name: b.Name, Arguments: toolArguments(b.Input)}})
		}
	}
	msg := chatResponseMessage{Role: "assistant", ReasoningContent: reasoning.String(), ToolCalls: calls}
	if text.Len() > 0 || len(calls) == 0 {
		s := text.String() // null only beside tool calls: clients call string methods on it
		msg.Content = &s
	}
	usage := resp.Usage.usage()
	out := chatResponseOut{
		ID: chatID(resp.ID), Object: "chat.completion", Created: created, Model: resp.Model,
		Choices: []chatChoiceOut{{Message: msg, FinishReason: finishReason(resp.StopReason)}},
		Usage:   usage.chat(),
	}
	return out, usage, nil
}

// ChatResponseToMessages translates an OpenAI chat completion into an
// Anthropic answer, and returns its usage. Only the first choice is read
// (requests with n > 1 are refused).
//
// content becomes a text block, a refusal a text block with stop_reason
// refusal, tool_calls tool_use blocks (arguments string → input
// object; arguments that are not a JSON object become {}, see toolInput).
// Stop reasons: stop → end_turn (OpenAI does not say whether a stop
// sequence fired, so stop_sequence is never produced), length → max_tokens,
// tool_calls and function_call → tool_use, content_filter → refusal; a stop
// with tool calls (some compatible servers) → tool_use. The id is the
// upstream's with chatcmpl- replaced by msg_. reasoning_content, which
// compatible servers send, is dropped, as in messagesWriter: an
// unsigned thinking block would get the conversation's next request to a
// Claude model refused.
func ChatResponseToMessages(body []byte) ([]byte, Usage, error) {
	var resp chatResponse
	if err := decodeChatResponse(body, &resp); err != nil {
		return nil, Usage{}, fmt.Errorf("translate: openai answer: %w", err)
	}
	out, usage, err := anthropicAnswer(&resp)
	if err != nil {
		return nil, Usage{}, err
	}
	b, err := marshalMessagesResponse(&out)
	return b, usage, err
}

// anthropicAnswer builds the Anthropic answer to resp (see
// ChatResponseToMessages).
func anthropicAnswer(resp *chatResponse) (messagesResponseOut, Usage, error) {
	if len(resp.Choices) == 0 {
		return messagesResponseOut{}, Usage{}, fmt.Errorf("translate: openai answer has no choices")
	}
	choice := &resp.Choices[0]
	m := &choice.Message
	content := make([]any, 0, 2+len(m.ToolCalls))
	if text := responseText(m.Content); text != "" {
		content = append(content, textBlock{Type: "text", Text: text})
	}
	if m.Refusal != "" {
		content = append(content, textBlock{Type: "text", Text: m.Refusal})
	}
	for _, tc := range m.ToolCalls {
		content = append(content, toolUseBlock{Type: "tool_use", ID: toolUseID(tc.ID),
			Name: tc.Function.Name, Input: toolInput(tc.Function.Arguments)})
	}
	stop := stopReason(choice.FinishReason, len(m.ToolCalls) > 0, m.Refusal != "")
	var usage Usage
	if resp.Usage != nil {
		usage = resp.Usage.usage()
	}
	return messagesResponseOut{
		ID: messageID(resp.ID), Type: "message", Role: "assistant", Model: resp.Model,
		Content: content, StopReason: &stop, Usage: usage.anthropic(),
	}, usage, nil
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

// finishReason maps Anthropic's stop_reason to OpenAI's finish_reason.
func finishReason(stop string) string {
	switch stop {
	case "max_tokens", "model_context_window_exceeded":
		return "length"
	case "tool_use":
		return "tool_calls"
	case "refusal":
		return "content_filter"
	}
	return "stop" // end_turn, stop_sequence, pause_turn, and none at all
}

// stopReason maps OpenAI's finish_reason to Anthropic's stop_reason.
func stopReason(finish string, calledTools, refused bool) string {
	switch finish {
	case "length":
		return "max_tokens"
	case "tool_calls", "function_call":
		return "tool_use"
	case "content_filter":
		return "refusal"
	}
	switch {
	case calledTools:
		return "tool_use"
	case refused:
		return "refusal"
	}
	return "end_turn"
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
