package translate

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"

	"gateway/proxy/upstreamerr"
)

// ChatToResponsesStream converts an OpenAI chat completion stream into
// Responses API events for a Responses caller (Codex, say), one upstream
// chunk at a time. Use one per stream, from one goroutine.
//
// The first chunk gives response.created and response.in_progress (the id
// is the upstream's with chatcmpl- replaced by resp_). Text becomes a message
// item's output_text deltas, a refusal its refusal part; reasoning that
// compatible servers send (reasoning_content, or reasoning) becomes a
// reasoning item's summary deltas; each tool call becomes a function_call
// item (its id kept as call_id) whose arguments follow as
// function_call_arguments deltas. A message or reasoning item is done when
// output of another kind begins; function calls, whose argument fragments
// may interleave, are done at finish_reason. data: [DONE] ends the stream
// (see Finish) with response.completed, or response.incomplete for
// finish_reason length or content_filter, carrying the whole response and
// the usage. Only choice 0 is read.
type ChatToResponsesStream struct {
	out             responsesStream
	ended           bool // the end went out: Finish, Error, or an upstream error
	done            bool // the upstream's [DONE] arrived
	message         *streamItem
	reasoning       *streamItem
	calls           map[int]*chatCall // by OpenAI tool_calls index
	finish          string
	usage           Usage
	finalUsage      bool // the usage chunk arrived
	reasoningTokens int64
	reader          jsonReader // the fast path's, kept for its buffer
	chunk           fastChunk  // the fast path's chunk, kept so that it need not be allocated
}

// chatCall is the function_call item of an OpenAI tool call.
type chatCall struct {
	item *streamItem
	id   string // the call's id as the upstream sent it
}

// NewChatToResponsesStream starts a converter. Ask the upstream for
// stream_options.include_usage (ResponsesToChat does), or the usage stays
// zero.
func NewChatToResponsesStream() *ChatToResponsesStream {
	return &ChatToResponsesStream{out: newResponsesStream(), calls: map[int]*chatCall{}}
}

// Event converts one upstream event, given by its SSE event name (OpenAI
// sends none; events with a name other than "message" or "error" are
// skipped) and its data, into zero or more complete Responses SSE events to
// write to the caller. Write what it returns even when err is not nil: err
// reports a chunk that could not be converted, in part or whole (usually the
// end of the gateway's patience: call Error), or, as a *StreamError, an
// upstream error, for which response.failed is already in the bytes and the
// stream has ended. After the end, Event returns nothing.
func (s *ChatToResponsesStream) Event(name string, data []byte) ([]byte, error) {
	if s.ended || (name != "" && name != "message" && name != "error") {
		return nil, nil
	}
	data = bytes.TrimSpace(data)
	if string(data) == "[DONE]" {
		s.done = true
		return s.Finish(), nil
	}
	// Most of a stream is chunks of one delta: they are read by hand (see
	// fastevents_in.go).
	if !s.out.general {
		if c := &s.chunk; s.reader.readChunk(data, !s.out.started, c) {
			out := s.out.start(nil, c.id, c.model)
			var err error
			if c.hasChoice {
				out, err = s.choice(out, &c.choice)
			}
			if c.hasUsage {
				s.usage, s.reasoningTokens, s.finalUsage = c.usage.usage(), c.usage.reasoning, true
			}
			return out, err
		}
	}
	var c chatStreamChunk
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("translate: openai chunk: %w", err)
	}
	if !isNull(c.Error) {
		return s.upstreamError(c.Error)
	}
	out := s.out.start(nil, c.ID, c.Model)
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
	if c.Usage != nil {
		s.usage, s.reasoningTokens, s.finalUsage = c.Usage.usage(), c.Usage.reasoningTokens(), true
	}
	return out, err
}

// Done reports whether the upstream's data: [DONE] arrived. A stream whose
// upstream ended without it was cut: end it with Error, not Finish.
func (s *ChatToResponsesStream) Done() bool { return s.done }

// Usage is the usage seen so far (see Usage for its meaning).
func (s *ChatToResponsesStream) Usage() Usage { return s.usage }

// FinalUsage reports whether the upstream's usage chunk arrived: without
// it, Usage is zero.
func (s *ChatToResponsesStream) FinalUsage() bool { return s.finalUsage }

// OutputBytes is how many bytes of text, reasoning and function-call
// arguments were written for the caller so far.
func (s *ChatToResponsesStream) OutputBytes() int64 { return s.out.outBytes }

// Finish ends the stream as a well-formed Responses stream: the open items
// done, then response.completed (or response.incomplete) with the whole
// response and the usage. data: [DONE] calls it; call it yourself only for
// an upstream that ended without one and may be trusted (Done tells). It
// returns nothing once the stream has ended.
func (s *ChatToResponsesStream) Finish() []byte {
	if s.ended {
		return nil
	}
	s.ended = true
	out := s.out.start(nil, "", "")
	status, incomplete := chatStatus(s.finish)
	return s.out.complete(out, status, incomplete, s.usage.responses(s.reasoningTokens))
}

// Error ends the stream with response.failed, its error
// {"code":"server_error","message"}: Codex retries such a response, and
// OpenAI's SDKs hand it over as the stream's last event. Open items are
// left unfinished (see responsesStream.fail). err's text is what the
// caller reads: pass one fit to be shown. It returns nothing once the stream
// has ended.
func (s *ChatToResponsesStream) Error(err error) []byte {
	if s.ended {
		return nil
	}
	s.ended = true
	out := s.out.start(nil, "", "")
	return s.out.fail(out, "server_error", streamErrorMessage(err), s.usage.responses(s.reasoningTokens))
}

func (s *ChatToResponsesStream) choice(out []byte, c *chatStreamChoice) ([]byte, error) {
	d := &c.Delta
	if r := reasoningText(d.ReasoningContent, d.Reasoning); r != "" {
		out = s.out.close(out, s.message)
		s.message = nil
		if s.reasoning == nil {
			out, s.reasoning = s.out.add(out, &streamItem{kind: itemReasoning})
		}
		out = s.out.think(out, s.reasoning, r)
	}
	if d.Content != "" {
		out = s.write(out, false, d.Content)
	}
	if d.Refusal != "" {
		out = s.write(out, true, d.Refusal)
	}
	var first error
	for _, tc := range d.ToolCalls {
		var err error
		if out, err = s.toolCall(out, tc); first == nil {
			first = err
		}
	}
	if c.FinishReason != "" {
		s.finish = c.FinishReason
		out = s.closeAll(out)
	}
	return out, first
}

// write adds text or a refusal to the open message item, starting one if
// needed; reasoning that was open is done.
func (s *ChatToResponsesStream) write(out []byte, refusal bool, text string) []byte {
	out = s.out.close(out, s.reasoning)
	s.reasoning = nil
	if s.message == nil {
		out, s.message = s.out.add(out, &streamItem{kind: itemMessage})
	}
	return s.out.write(out, s.message, refusal, text)
}

// toolCall starts a function_call item on a call's first delta and streams
// its arguments. A delta with a new id at a known index is a new call: some
// compatible servers leave index out, so that every call reads as index 0.
// Fragments of a call whose item is done (after finish_reason) are
// reported, not written.
func (s *ChatToResponsesStream) toolCall(out []byte, tc chatToolDelta) ([]byte, error) {
	call, seen := s.calls[tc.Index]
	if !seen || tc.ID != "" && tc.ID != call.id {
		out = s.out.close(out, s.message)
		out = s.out.close(out, s.reasoning)
		s.message, s.reasoning = nil, nil
		call = &chatCall{id: tc.ID}
		out, call.item = s.out.add(out, &streamItem{kind: itemCall, callID: callID(tc.ID), name: tc.Function.Name})
		s.calls[tc.Index] = call
	}
	if call.item.name == "" { // a server that names the call after its first delta
		call.item.name = tc.Function.Name
	}
	switch {
	case tc.Function.Arguments == "":
		return out, nil
	case !call.item.open:
		return out, fmt.Errorf("translate: openai tool call %d sent arguments after its item was done", tc.Index)
	}
	return s.out.argue(out, call.item, tc.Function.Arguments), nil
}

func (s *ChatToResponsesStream) closeAll(out []byte) []byte {
	for _, it := range s.out.items {
		out = s.out.close(out, it)
	}
	s.message, s.reasoning = nil, nil
	return out
}

// upstreamError ends the stream with the upstream's error as response.failed.
func (s *ChatToResponsesStream) upstreamError(raw json.RawMessage) ([]byte, error) {
	s.ended = true
	e := upstreamerr.ReadObject(raw)
	se := &StreamError{Type: cmp.Or(e.Type, e.Code, "api_error"), Message: cmp.Or(e.Message, "the upstream reported an error")}
	out := s.out.start(nil, "", "")
	return s.out.fail(out, responsesErrorCode(e), se.Message, s.usage.responses(s.reasoningTokens)), se
}
