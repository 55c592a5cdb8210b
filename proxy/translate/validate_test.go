package translate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"gateway/proxy/upstreamerr"
)

// Validators of what the converters write, used by the stream tests and the
// fuzz targets. Each parses an output stream, checks that it is made of
// complete events holding valid JSON in the protocol's order, and gathers
// what a client would assemble from it.

// chatResult is what an OpenAI client assembles from a stream.
type chatResult struct {
	Content, Reasoning string
	ToolCalls          []chatToolCall
	FinishReason       string
	Usage              *chatUsage
	Error              string
	Done               bool
}

// readChatStream checks an OpenAI stream: complete "data: …\n\n" events,
// each JSON or [DONE]; nothing after [DONE] or an error; tool call deltas
// that start with id and name at the next index.
func readChatStream(out []byte) (chatResult, error) {
	var r chatResult
	if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n\n")) {
		return r, fmt.Errorf("stream does not end with a complete event: %q", tail(out))
	}
	for _, ev := range parseSSE(out) {
		if r.Done || r.Error != "" {
			return r, fmt.Errorf("event after the end: %q", ev.data)
		}
		if ev.name != "" {
			return r, fmt.Errorf("OpenAI events have no name, got %q", ev.name)
		}
		if string(ev.data) == "[DONE]" {
			r.Done = true
			continue
		}
		if err := r.add(ev.data); err != nil {
			return r, err
		}
	}
	return r, nil
}

func (r *chatResult) add(data []byte) error {
	var c struct {
		chatChunk
		Object string          `json:"object"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return fmt.Errorf("chunk is not JSON of the right shape: %v: %s", err, data)
	}
	if c.Error != nil {
		r.Error = upstreamerr.ReadObject(c.Error).Message
		return nil
	}
	if c.Object != "chat.completion.chunk" || c.ID == "" || c.Choices == nil {
		return fmt.Errorf("chunk lacks object, id or choices: %s", data)
	}
	if c.Usage != nil {
		if len(c.Choices) != 0 {
			return fmt.Errorf("usage chunk with choices: %s", data)
		}
		r.Usage = c.Usage
	}
	for _, ch := range c.Choices {
		if err := r.addChoice(ch); err != nil {
			return fmt.Errorf("%v: %s", err, data)
		}
	}
	return nil
}

func (r *chatResult) addChoice(ch chatChunkChoice) error {
	if r.FinishReason != "" {
		return fmt.Errorf("choice after finish_reason")
	}
	if ch.Delta.Content != nil {
		r.Content += *ch.Delta.Content
	}
	r.Reasoning += ch.Delta.ReasoningContent
	for _, tc := range ch.Delta.ToolCalls {
		switch {
		case tc.Index == len(r.ToolCalls) && tc.ID != "":
			r.ToolCalls = append(r.ToolCalls, chatToolCall{ID: tc.ID, Type: tc.Type, Function: chatFunctionCall{Name: tc.Function.Name}})
		case tc.Index < 0 || tc.Index >= len(r.ToolCalls) || tc.ID != "":
			return fmt.Errorf("tool call delta %d out of order, or its first without an id", tc.Index)
		}
		r.ToolCalls[tc.Index].Function.Arguments += tc.Function.Arguments
	}
	if ch.FinishReason != nil {
		r.FinishReason = *ch.FinishReason
	}
	return nil
}

// messagesResult is what an Anthropic client assembles from a stream.
type messagesResult struct {
	ID, Model  string
	Blocks     []anthropicBlock // tool input gathered in Input as text
	StopReason string
	Usage      anthropicUsage
	Error      string
	Stopped    bool
}

// readMessagesStream checks an Anthropic stream: complete "event: X\ndata:
// …\n\n" events whose data is JSON with type X; message_start first; blocks
// started at the next index, their deltas of their own kind, stopped before
// the next starts; message_delta then message_stop last; or an error event
// as the very last.
func readMessagesStream(out []byte) (messagesResult, error) {
	var r messagesResult
	if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n\n")) {
		return r, fmt.Errorf("stream does not end with a complete event: %q", tail(out))
	}
	st := messagesState{open: -1}
	for _, ev := range parseSSE(out) {
		if r.Stopped || r.Error != "" {
			return r, fmt.Errorf("event after the end: %s %q", ev.name, ev.data)
		}
		var e anthropicEvent
		if err := json.Unmarshal(ev.data, &e); err != nil {
			return r, fmt.Errorf("%s event is not JSON of the right shape: %v: %s", ev.name, err, ev.data)
		}
		if e.Type != ev.name {
			return r, fmt.Errorf("event %q holds type %q", ev.name, e.Type)
		}
		if err := st.add(&r, &e); err != nil {
			return r, fmt.Errorf("%s: %v: %s", ev.name, err, ev.data)
		}
	}
	return r, nil
}

type messagesState struct {
	started, delta bool
	open           int // index of the open block, -1 for none
}

func (st *messagesState) add(r *messagesResult, e *anthropicEvent) error {
	if e.Type == "error" {
		if e.Error == nil || e.Error.Type == "" {
			return fmt.Errorf("error event without type")
		}
		r.Error = e.Error.Message
		return nil
	}
	if !st.started && e.Type != "message_start" {
		return fmt.Errorf("before message_start")
	}
	switch e.Type {
	case "message_start":
		if st.started || e.Message == nil || e.Message.ID == "" {
			return fmt.Errorf("second message_start, or one without message id")
		}
		st.started, r.ID, r.Model, r.Usage = true, e.Message.ID, e.Message.Model, e.Message.Usage
	case "content_block_start":
		if st.open != -1 || st.delta || e.Index != len(r.Blocks) || e.ContentBlock == nil {
			return fmt.Errorf("block %d started out of order", e.Index)
		}
		st.open = e.Index
		r.Blocks = append(r.Blocks, anthropicBlock{Type: e.ContentBlock.Type, ID: e.ContentBlock.ID, Name: e.ContentBlock.Name})
	case "content_block_delta":
		if st.open != e.Index || e.Delta == nil {
			return fmt.Errorf("delta for block %d, which is not open", e.Index)
		}
		return addBlockDelta(&r.Blocks[e.Index], e.Delta)
	case "content_block_stop":
		if st.open != e.Index {
			return fmt.Errorf("stop for block %d, which is not open", e.Index)
		}
		st.open = -1
	case "message_delta":
		if st.open != -1 || e.Delta == nil || e.Delta.StopReason == "" || e.Usage == nil {
			return fmt.Errorf("message_delta with a block open, or without stop reason or usage")
		}
		st.delta, r.StopReason = true, e.Delta.StopReason
		setIf(&r.Usage.InputTokens, e.Usage.InputTokens) // cumulative; absent counts stand
		setIf(&r.Usage.OutputTokens, e.Usage.OutputTokens)
		setIf(&r.Usage.CacheReadInputTokens, e.Usage.CacheReadInputTokens)
		setIf(&r.Usage.CacheCreationInputTokens, e.Usage.CacheCreationInputTokens)
	case "ping":
	case "message_stop":
		if !st.delta {
			return fmt.Errorf("message_stop without message_delta")
		}
		r.Stopped = true
	default:
		return fmt.Errorf("unknown event")
	}
	return nil
}

func addBlockDelta(b *anthropicBlock, d *anthropicDelta) error {
	want := map[string]string{"text": "text_delta", "thinking": "thinking_delta", "tool_use": "input_json_delta"}[b.Type]
	if d.Type == "signature_delta" && b.Type == "thinking" || d.Type == "citations_delta" && b.Type == "text" {
		return nil // Anthropic's own; the converters never write them
	}
	if d.Type != want {
		return fmt.Errorf("%s in a %s block", d.Type, b.Type)
	}
	b.Text += d.Text
	b.Thinking += d.Thinking
	b.Input = append(b.Input, d.PartialJSON...)
	return nil
}

func tail(b []byte) []byte {
	return b[max(len(b)-80, 0):]
}

// splitEvents cuts the converter's output of one call into its events and
// checks each is complete on its own.
func splitEvents(out []byte) ([]string, error) {
	if len(out) == 0 {
		return nil, nil
	}
	if !bytes.HasSuffix(out, []byte("\n\n")) {
		return nil, fmt.Errorf("output does not end with a complete event: %q", tail(out))
	}
	return strings.SplitAfter(strings.TrimSuffix(string(out), "\n\n"), "\n\n"), nil
}
