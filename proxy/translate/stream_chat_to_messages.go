package translate

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"gateway/proxy/upstreamerr"
)

// ChatToMessagesStream converts an OpenAI chat completion stream into
// Anthropic Messages events for an Anthropic caller, one upstream chunk at a
// time; nothing is buffered beyond the chunk at hand. Use one per stream,
// from one goroutine.
//
// The first chunk gives message_start. OpenAI reports usage only at the
// end, yet clients such as LangChain's ChatAnthropic read the input count
// from message_start alone, as Anthropic fills it: so its input_tokens is
// the gateway's estimate of the prompt, or the upstream's own count when
// the first chunk carries one (servers that count every chunk). Text and
// each tool call become content blocks, numbered in order: a block is
// stopped when output of another kind, or another tool call, begins, and
// every tool call's first delta starts a tool_use block whose arguments
// follow as input_json_delta. Reasoning that compatible servers send
// (reasoning_content) is dropped: as a thinking block it would carry no
// Anthropic signature, and Anthropic refuses the next request of a
// conversation holding one ("Invalid signature in thinking block"), which
// happens as soon as a fallback or a mixed pool sends it to a Claude model.
// finish_reason closes the open block; the usage chunk and data: [DONE]
// give message_delta (stop reason, the upstream's usage) and message_stop.
// An upstream that sent no usage leaves the estimate in message_delta too:
// Anthropic's SDKs take its input_tokens over message_start's, and a zero
// there would undo it. Only choice 0 is read (requests with n > 1 are
// refused).
type ChatToMessagesStream struct {
	id, model   string
	estimate    int64 // the caller's prompt in tokens as the gateway estimated it
	started     bool  // message_start went out
	ended       bool  // the end went out: Finish, Error, or an upstream error
	done        bool  // the upstream's [DONE] arrived
	open        blockKind
	openIndex   int               // the Anthropic index of the open block
	next        int               // the Anthropic index of the next block
	tools       map[int]toolBlock // by OpenAI tool_calls index
	finish      string
	calledTools bool
	refused     bool
	usage       Usage
	finalUsage  bool  // a usage chunk arrived
	outBytes    int64 // text and tool arguments written to the caller

	reader  jsonReader // the fast path's, kept for its buffer
	chunk   fastChunk  // the fast path's chunk, kept so that it need not be allocated
	general bool       // tests set it: encoding/json for every event, to compare the fast paths with
}

// NewChatToMessagesStream starts a converter. inputEstimate is the
// request's prompt in tokens as the gateway estimated it, written as the
// input count until the upstream says (see ChatToMessagesStream). Ask the
// upstream for stream_options.include_usage (MessagesToChat does), or its
// usage never comes.
func NewChatToMessagesStream(inputEstimate int64) *ChatToMessagesStream {
	return &ChatToMessagesStream{tools: map[int]toolBlock{}, estimate: inputEstimate}
}

// Event converts one upstream event, given by its SSE event name (OpenAI
// sends none; events with a name other than "message" or "error" are
// skipped) and its data, into zero or more complete Anthropic SSE events to
// write to the caller. Write what it returns even when err is not nil: err
// reports a chunk that could not be converted, in part or whole (usually the
// end of the gateway's patience: call Error), or, as a *StreamError, an
// upstream error, for which the caller's error event is already in the bytes
// and the stream has ended. After the end, Event returns nothing.
func (s *ChatToMessagesStream) Event(name string, data []byte) ([]byte, error) {
	if s.ended || (name != "" && name != "message" && name != "error") {
		return nil, nil
	}
	data = bytes.TrimSpace(data)
	if string(data) == "[DONE]" {
		s.done = true
		return s.Finish(), nil
	}
	// Most of a stream is chunks of one delta, and its end a chunk with the
	// usage: they are read by hand (see fastevents_in.go).
	if !s.general {
		if c := &s.chunk; s.reader.readChunk(data, !s.started, c) {
			if c.hasUsage { // before message_start, which may carry it
				s.usage, s.finalUsage = c.usage.usage(), true
			}
			out := s.start(c.id, c.model)
			var err error
			if c.hasChoice {
				choice := c.chatChoice()
				out, err = s.choice(out, &choice)
			}
			return out, err
		}
	}
	var c chatChunkIn
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("translate: openai chunk: %w", err)
	}
	if !isNull(c.Error) {
		return s.upstreamError(c.Error)
	}
	if c.Usage != nil {
		s.usage, s.finalUsage = c.Usage.usage(), true
	}
	out := s.start(c.ID, c.Model)
	var err error
	for i := range c.Choices {
		if c.Choices[i].Index != 0 {
			continue
		}
		var e error
		if out, e = s.choice(out, &c.Choices[i]); err == nil {
			err = e
		}
	}
	return out, err
}

// Done reports whether the upstream's data: [DONE] arrived. A stream whose
// upstream ended without it was cut: end it with Error, not Finish.
func (s *ChatToMessagesStream) Done() bool { return s.done }

// Usage is the usage seen so far (see Usage for its meaning).
func (s *ChatToMessagesStream) Usage() Usage { return s.usage }

// FinalUsage reports whether the upstream's usage chunk arrived: without
// it, Usage is zero (the estimate the caller was told is not counted).
func (s *ChatToMessagesStream) FinalUsage() bool { return s.finalUsage }

// OutputBytes is how many bytes of text and tool-call arguments were
// written for the caller so far (reasoning is dropped, not written).
func (s *ChatToMessagesStream) OutputBytes() int64 { return s.outBytes }

// Finish ends the stream as a well-formed Anthropic stream: content_block_stop
// for an open block, message_delta with the stop reason and the usage, and
// message_stop. data: [DONE] calls it; call it yourself only for an upstream
// that ended without one and may be trusted (Done tells). It returns nothing
// once the stream has ended.
func (s *ChatToMessagesStream) Finish() []byte {
	if s.ended {
		return nil
	}
	s.ended = true
	out := s.start("", "")
	out = s.closeBlock(out)
	stop := stopReason(s.finish, s.calledTools, s.refused)
	if !s.general {
		return appendMessageEnd(out, stop, s.callerUsage())
	}
	var delta struct {
		Type  string `json:"type"`
		Delta struct {
			StopReason   string  `json:"stop_reason"`
			StopSequence *string `json:"stop_sequence"`
		} `json:"delta"`
		Usage anthropicUsage `json:"usage"`
	}
	delta.Type = "message_delta"
	delta.Delta.StopReason = stop
	delta.Usage = s.callerUsage()
	out = appendMessagesEvent(out, "message_delta", delta)
	return appendMessagesEvent(out, "message_stop", struct {
		Type string `json:"type"`
	}{"message_stop"})
}

// Error ends the stream with an Anthropic error event
// (event: error, data: {"type":"error","error":{"type":"api_error","message"}}),
// which Anthropic's SDKs raise as the stream's failure. err's text is what
// the caller reads: pass one fit to be shown. It returns nothing once the
// stream has ended.
func (s *ChatToMessagesStream) Error(err error) []byte {
	if s.ended {
		return nil
	}
	s.ended = true
	return appendMessagesEvent(nil, "error", anthropicErrorEvent{Type: "error",
		Error: anthropicErrorDetail{Type: "api_error", Message: streamErrorMessage(err)}})
}

func (s *ChatToMessagesStream) start(id, model string) []byte {
	if s.started {
		return nil
	}
	s.started = true
	s.id, s.model = messageID(id), model
	if !s.general {
		return appendMessageStart(nil, s.id, model, s.callerUsage())
	}
	var ev struct {
		Type    string              `json:"type"`
		Message messagesResponseOut `json:"message"`
	}
	ev.Type = "message_start"
	ev.Message = messagesResponseOut{ID: s.id, Type: "message", Role: "assistant", Model: model, Content: []any{},
		Usage: s.callerUsage()}
	return appendMessagesEvent(nil, "message_start", ev)
}

// callerUsage is the usage the caller is told: the upstream's, or before it
// said anything the estimate as the input count.
func (s *ChatToMessagesStream) callerUsage() anthropicUsage {
	if s.finalUsage {
		return s.usage.anthropic()
	}
	return anthropicUsage{InputTokens: s.estimate}
}

func (s *ChatToMessagesStream) choice(out []byte, c *chatChunkChoiceIn) ([]byte, error) {
	d := &c.Delta
	if d.Content != "" {
		out = s.write(out, d.Content)
	}
	if d.Refusal != "" {
		s.refused = true
		out = s.write(out, d.Refusal)
	}
	var errs []error
	for _, tc := range d.ToolCalls {
		var err error
		if out, err = s.toolCall(out, tc); err != nil {
			errs = append(errs, err)
		}
	}
	if c.FinishReason != "" {
		s.finish = c.FinishReason
		out = s.closeBlock(out)
	}
	if len(errs) > 0 {
		return out, errs[0]
	}
	return out, nil
}

// write adds text to the open text block, starting one if needed.
func (s *ChatToMessagesStream) write(out []byte, text string) []byte {
	if s.open != blockText {
		out = s.closeBlock(out)
		out = s.openBlock(out, blockText, "", "")
	}
	return s.appendDelta(out, "text_delta", text)
}

// appendDelta writes a content_block_delta of the open block: a
// text_delta, or an input_json_delta whose text is its partial_json. It is
// written by hand (see fastevents_out.go); the event is built as a value
// only on the general path, where it escapes to encoding/json.
func (s *ChatToMessagesStream) appendDelta(out []byte, typ, text string) []byte {
	s.outBytes += int64(len(text))
	if !s.general {
		return appendBlockDelta(out, s.openIndex, typ, text)
	}
	ev := blockDeltaEvent{Type: "content_block_delta", Index: s.openIndex, Delta: textDelta{Type: typ, Text: text}}
	if typ == "input_json_delta" {
		partial := text
		ev.Delta.Text, ev.Delta.PartialJSON = "", &partial
	}
	return appendMessagesEvent(out, "content_block_delta", ev)
}

// toolBlock is the Anthropic block of an OpenAI tool call.
type toolBlock struct {
	index int    // the block's Anthropic index
	id    string // the call's id as the upstream sent it
}

// toolCall starts a tool_use block on a call's first delta and streams its
// arguments. A delta with a new id at a known index is a new call: some
// compatible servers leave index out, so that every call reads as index 0.
// Fragments of a call whose block was closed (another call or text began)
// cannot be placed in Anthropic's block order: they are reported, not
// written.
func (s *ChatToMessagesStream) toolCall(out []byte, tc chatToolDelta) ([]byte, error) {
	known, seen := s.tools[tc.Index]
	switch {
	case !seen || tc.ID != "" && tc.ID != known.id:
		s.calledTools = true
		out = s.closeBlock(out)
		s.tools[tc.Index] = toolBlock{index: s.next, id: tc.ID}
		out = s.openBlock(out, blockTool, toolUseID(tc.ID), tc.Function.Name)
	case s.open != blockTool || s.openIndex != known.index:
		if tc.Function.Arguments == "" {
			return out, nil
		}
		return out, fmt.Errorf("translate: openai tool call %d sent arguments after its block was closed", tc.Index)
	}
	if tc.Function.Arguments == "" {
		return out, nil
	}
	return s.appendDelta(out, "input_json_delta", tc.Function.Arguments), nil
}

// openBlock starts a block: a text block, or a tool_use block with id and
// name. Its start is written by hand (see fastevents_ends.go), as are the
// other events that start and end the stream.
func (s *ChatToMessagesStream) openBlock(out []byte, kind blockKind, id, name string) []byte {
	s.open, s.openIndex = kind, s.next
	s.next++
	if !s.general {
		return appendBlockStart(out, s.openIndex, kind == blockTool, id, name)
	}
	var block any = textBlock{Type: "text"}
	if kind == blockTool {
		block = toolUseBlock{Type: "tool_use", ID: id, Name: name, Input: json.RawMessage("{}")}
	}
	return appendMessagesEvent(out, "content_block_start", struct {
		Type         string `json:"type"`
		Index        int    `json:"index"`
		ContentBlock any    `json:"content_block"`
	}{"content_block_start", s.openIndex, block})
}

func (s *ChatToMessagesStream) closeBlock(out []byte) []byte {
	if s.open == blockNone {
		return out
	}
	s.open = blockNone
	if !s.general {
		return appendBlockStop(out, s.openIndex)
	}
	return appendMessagesEvent(out, "content_block_stop", struct {
		Type  string `json:"type"`
		Index int    `json:"index"`
	}{"content_block_stop", s.openIndex})
}

type blockDeltaEvent struct {
	Type  string    `json:"type"`
	Index int       `json:"index"`
	Delta textDelta `json:"delta"`
}

// textDelta is a text_delta or an input_json_delta; only the field of its
// type is written.
type textDelta struct {
	Type        string  `json:"type"`
	Text        string  `json:"text,omitempty"`
	PartialJSON *string `json:"partial_json,omitempty"`
}

// upstreamError ends the stream with the upstream's error in Anthropic's
// shape, typed from OpenAI's type and code.
func (s *ChatToMessagesStream) upstreamError(raw json.RawMessage) ([]byte, error) {
	s.ended = true
	e := upstreamerr.ReadObject(raw)
	se := &StreamError{Type: cmp.Or(e.Type, e.Code, "api_error"), Message: cmp.Or(e.Message, "the upstream reported an error")}
	typ, message := anthropicTypeFromChat(e.Type, e.Code), se.Message
	if e.Kind == upstreamerr.ContextWindow && !strings.Contains(strings.ToLower(message), "prompt is too long") {
		typ, message = "invalid_request_error", "prompt is too long: "+message
	}
	return appendMessagesEvent(nil, "error", anthropicErrorEvent{Type: "error",
		Error: anthropicErrorDetail{Type: typ, Message: message}}), se
}

// anthropicTypeFromChat maps an OpenAI error type or code, as sent inside a
// stream where no status is left to go by, to Anthropic's type.
func anthropicTypeFromChat(typ, code string) string {
	both := strings.ToLower(typ + " " + code)
	switch {
	case strings.Contains(both, "rate_limit"):
		return "rate_limit_error"
	case strings.Contains(both, "insufficient_quota"):
		return "billing_error"
	case strings.Contains(both, "authentication") || strings.Contains(both, "invalid_api_key"):
		return "authentication_error"
	case strings.Contains(both, "permission"):
		return "permission_error"
	case strings.Contains(both, "overloaded"):
		return "overloaded_error"
	case strings.Contains(both, "invalid_request"):
		return "invalid_request_error"
	}
	return "api_error"
}
