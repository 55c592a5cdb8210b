package translate

import (
	"cmp"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ChatResponseToResponses translates an OpenAI chat completion into a
// Responses "response" object, and returns its usage. Only the first choice
// is read.
//
// Reasoning that compatible servers send (reasoning_content, or reasoning)
// becomes a reasoning item whose summary holds it; content and refusal
// become a message item (output_text and refusal parts); tool_calls become
// function_call items, the tool call id kept as call_id. finish_reason
// length gives status incomplete with incomplete_details.reason
// max_output_tokens, content_filter incomplete with reason content_filter,
// anything else completed. The id is the upstream's with chatcmpl- replaced
// by resp_; created_at is the upstream's created.
func ChatResponseToResponses(body []byte) ([]byte, Usage, error) {
	return chatResponseToResponses(body, time.Now().Unix())
}

func chatResponseToResponses(body []byte, now int64) ([]byte, Usage, error) {
	var resp chatAnswer
	if err := decode(body, &resp); err != nil {
		return nil, Usage{}, fmt.Errorf("translate: openai answer: %w", err)
	}
	if len(resp.Choices) == 0 {
		return nil, Usage{}, fmt.Errorf("translate: openai answer has no choices")
	}
	m := &resp.Choices[0].Message
	out := outputBuilder{respID: responseID(resp.ID)}
	if r := reasoningText(m.ReasoningContent, m.Reasoning); r != "" {
		out.reasoning(r, "")
	}
	out.message(responseText(m.Content), m.Refusal)
	for _, tc := range m.ToolCalls {
		out.call(callID(tc.ID), tc.Function.Name, firstNonEmpty(tc.Function.Arguments, "{}"))
	}
	var usage Usage
	if resp.Usage != nil {
		usage = resp.Usage.usage()
	}
	status, incomplete := chatStatus(resp.Choices[0].FinishReason)
	return out.write(cmp.Or(resp.Created, now), resp.Model, status, incomplete, usage.responses(resp.Usage.reasoningTokens()))
}

// MessagesResponseToResponses translates an Anthropic non-streaming answer
// into a Responses "response" object, and returns its usage.
//
// Consecutive text blocks become one message item; thinking and
// redacted_thinking blocks reasoning items, the thinking as the summary and
// the signed block in encrypted_content (see encodeThinking), so that a
// caller that sends reasoning items back keeps Anthropic's tool-use turns
// whole; tool_use blocks function_call items (tool_use id → call_id, input
// object → arguments string); server-tool blocks are dropped. stop_reason
// max_tokens and model_context_window_exceeded give status incomplete with
// incomplete_details.reason max_output_tokens, refusal incomplete with
// reason content_filter, anything else completed. The id is the upstream's
// with msg_ replaced by resp_.
func MessagesResponseToResponses(body []byte) ([]byte, Usage, error) {
	return messagesResponseToResponses(body, time.Now().Unix())
}

func messagesResponseToResponses(body []byte, created int64) ([]byte, Usage, error) {
	var resp messagesAnswer
	if err := decode(body, &resp); err != nil {
		return nil, Usage{}, fmt.Errorf("translate: anthropic answer: %w", err)
	}
	if resp.Type == "error" {
		return nil, Usage{}, fmt.Errorf("translate: anthropic answer is an error, not a message")
	}
	out := outputBuilder{respID: responseID(resp.ID)}
	var text strings.Builder // of the text blocks since the last other block
	for i := range resp.Content {
		b := &resp.Content[i]
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "thinking", "redacted_thinking":
			out.flushText(&text)
			out.reasoning(b.Thinking, encodeThinking(b))
		case "tool_use":
			out.flushText(&text)
			out.call(b.ID, b.Name, toolArguments(b.Input))
		}
	}
	out.flushText(&text)
	usage := resp.Usage.usage()
	status, incomplete := messagesStatus(resp.StopReason)
	return out.write(created, resp.Model, status, incomplete, usage.responses(0))
}

// outputBuilder gathers a response's output items.
type outputBuilder struct {
	respID string
	items  []any
}

func (o *outputBuilder) message(text, refusal string) {
	if text == "" && refusal == "" {
		return
	}
	m := messageItem{Type: "message", ID: itemID("msg", o.respID, len(o.items)), Status: "completed", Role: "assistant", Content: []any{}}
	if text != "" {
		m.Content = append(m.Content, newOutputText(text))
	}
	if refusal != "" {
		m.Content = append(m.Content, refusalPart{Type: "refusal", Refusal: refusal})
	}
	o.items = append(o.items, m)
}

func (o *outputBuilder) flushText(text *strings.Builder) {
	o.message(text.String(), "")
	text.Reset()
}

func (o *outputBuilder) reasoning(summary, encrypted string) {
	if summary == "" && encrypted == "" {
		return
	}
	r := reasoningItem{Type: "reasoning", ID: itemID("rs", o.respID, len(o.items)), Summary: []summaryPart{}, EncryptedContent: encrypted}
	if summary != "" {
		r.Summary = append(r.Summary, summaryPart{Type: "summary_text", Text: summary})
	}
	o.items = append(o.items, r)
}

func (o *outputBuilder) call(callID, name, arguments string) {
	o.items = append(o.items, functionCallItem{Type: "function_call", ID: itemID("fc", o.respID, len(o.items)),
		CallID: callID, Name: name, Arguments: arguments, Status: "completed"})
}

func (o *outputBuilder) write(created int64, model, status string, incomplete *responsesIncomplete, u responsesUsage) ([]byte, Usage, error) {
	obj := responsesObject{ID: o.respID, Object: "response", CreatedAt: created, Status: status,
		IncompleteDetails: incomplete, Model: model, Output: o.items, Usage: &u}
	if obj.Output == nil {
		obj.Output = []any{}
	}
	b, err := marshal(obj)
	return b, u.usage(), err
}

func newOutputText(text string) outputTextPart {
	return outputTextPart{Type: "output_text", Text: text, Annotations: []struct{}{}, Logprobs: []struct{}{}}
}

// chatStatus maps OpenAI's finish_reason to a response's status.
func chatStatus(finish string) (string, *responsesIncomplete) {
	switch finish {
	case "length":
		return "incomplete", &responsesIncomplete{Reason: "max_output_tokens"}
	case "content_filter":
		return "incomplete", &responsesIncomplete{Reason: "content_filter"}
	}
	return "completed", nil
}

// messagesStatus maps Anthropic's stop_reason to a response's status.
func messagesStatus(stop string) (string, *responsesIncomplete) {
	return chatStatus(finishReason(stop))
}

// responseID derives a response id from an upstream's chatcmpl- or msg_ id.
func responseID(upstream string) string {
	for _, prefix := range [...]string{"chatcmpl-", "msg_"} {
		if rest, ok := strings.CutPrefix(upstream, prefix); ok && rest != "" {
			return "resp_" + rest
		}
	}
	if upstream == "" {
		return "resp_" + rand.Text()
	}
	return "resp_" + upstream
}

// itemID names an output item by the response and its place in the output:
// msg_, fc_ or rs_, the response id's own part, and the output index.
func itemID(prefix, respID string, index int) string {
	return prefix + "_" + strings.TrimPrefix(respID, "resp_") + "_" + strconv.Itoa(index)
}

// callID keeps a tool call's id exactly; only a missing one is made up,
// since the caller needs one to send the output back with.
func callID(id string) string {
	if id == "" {
		return "call_" + rand.Text()
	}
	return id
}

// responses gives u as a Responses usage object, with the reasoning tokens
// the upstream counted (OpenAI-compatible servers may; Anthropic does not).
func (u Usage) responses(reasoningTokens int64) responsesUsage {
	return responsesUsage{
		InputTokens:         u.InputTokens,
		InputTokensDetails:  responsesInputDetails{CachedTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens},
		OutputTokens:        u.OutputTokens,
		OutputTokensDetails: responsesOutputDetails{ReasoningTokens: reasoningTokens},
		TotalTokens:         u.InputTokens + u.OutputTokens,
	}
}

func (u responsesUsage) usage() Usage {
	return Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheReadTokens: u.InputTokensDetails.CachedTokens, CacheWriteTokens: u.InputTokensDetails.CacheWriteTokens}
}

// ResponsesUsage reads a Responses usage object ({"input_tokens",…}), as
// found in a response and in a response.completed event's response: for
// requests passed through to an upstream that speaks the Responses API.
// Its meaning is already OpenAI's (see Usage).
func ResponsesUsage(raw []byte) (Usage, bool) {
	var u responsesUsage
	if len(raw) == 0 || json.Unmarshal(raw, &u) != nil {
		return Usage{}, false
	}
	return u.usage(), true
}

// ErrorToResponses turns an upstream error body of either protocol into the
// Responses API's error shape, which is OpenAI's
// {"error":{"message","type","param","code"}}: see ErrorToChat, whose
// mapping it is (Codex, like OpenAI's SDKs, reads the status and code:
// context_length_exceeded, insufficient_quota, rate_limit_exceeded).
func ErrorToResponses(status int, body []byte) []byte {
	return ErrorToChat(status, body)
}
