package translate

import (
	"cmp"
	"encoding/json"
	"fmt"

	"gateway/proxy/upstreamerr"
)

// MessagesToResponsesStream converts an Anthropic Messages event stream
// into Responses API events for a Responses caller (Codex, say), one
// upstream event at a time. Use one per stream, from one goroutine.
//
// message_start gives response.created and response.in_progress (the id is
// the upstream's with msg_ replaced by resp_) and the input usage. Text
// blocks become a message item's output_text deltas (consecutive text blocks
// one message); a thinking block becomes a reasoning item whose summary
// deltas carry the thinking, and whose encrypted_content, when the block
// stops, carries the signed block (see encodeThinking) so that a caller who
// sends reasoning items back keeps Anthropic's tool-use turns whole; a
// redacted_thinking block becomes a reasoning item with only
// encrypted_content; a tool_use block becomes a function_call item (its id
// as call_id) whose input_json_delta fragments follow as
// function_call_arguments deltas, "{}" for a call without arguments.
// Server-tool blocks are dropped. message_delta gives the stop reason and
// the output usage; message_stop ends the stream (see Finish) with
// response.completed, or response.incomplete for max_tokens or refusal.
// ping and unknown events are skipped.
type MessagesToResponsesStream struct {
	out        responsesStream
	ended      bool // the end went out: Finish, Error, or an upstream error event
	done       bool // the upstream's message_stop arrived
	blocks     map[int]*responsesBlock
	message    *streamItem // the open message item text blocks add to
	stopReason string
	usage      anthropicUsage
	finalUsage bool        // message_delta brought the output usage
	reader     jsonReader  // the fast path's, kept for its buffer
	delta      signedDelta // the fast path's event, kept so that it need not be allocated
}

// responsesBlock is an Anthropic content block being converted.
type responsesBlock struct {
	kind      blockKind
	item      *streamItem // nil for a text block: text goes to the open message
	redacted  string      // a redacted_thinking block's data
	signature string
}

// NewMessagesToResponsesStream starts a converter.
func NewMessagesToResponsesStream() *MessagesToResponsesStream {
	return &MessagesToResponsesStream{out: newResponsesStream(), blocks: map[int]*responsesBlock{}}
}

// Event converts one upstream event, given by its SSE event name (may be
// empty: the data's type then names it) and its data, into zero or more
// complete Responses SSE events to write to the caller. Write what it
// returns even when err is not nil: err reports an event that could not be
// converted (usually the end of the gateway's patience: call Error), or, as
// a *StreamError, an upstream error event, for which response.failed is
// already in the bytes and the stream has ended. After the end, Event
// returns nothing.
func (s *MessagesToResponsesStream) Event(name string, data []byte) ([]byte, error) {
	if s.ended {
		return nil, nil
	}
	switch name {
	case "", "message_start", "content_block_start", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop", "error":
	default:
		return nil, nil // ping, and event types Anthropic may add
	}
	// Most of a stream is deltas: they are read by hand (see fastevents_in.go).
	if !s.out.general {
		if index, ok := s.reader.readBlockDelta(name, data, &s.delta); ok {
			return s.blockDelta(index, &s.delta)
		}
	}
	var ev messagesStreamEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return nil, fmt.Errorf("translate: anthropic %s event: %w", cmp.Or(name, "unnamed"), err)
	}
	return s.event(cmp.Or(name, ev.Type), &ev)
}

func (s *MessagesToResponsesStream) event(name string, ev *messagesStreamEvent) ([]byte, error) {
	switch name {
	case "message_start":
		return s.messageStart(ev.Message), nil
	case "content_block_start":
		return s.blockStart(ev.Index, ev.ContentBlock)
	case "content_block_delta":
		return s.blockDelta(ev.Index, ev.Delta)
	case "content_block_stop":
		return s.blockStop(ev.Index), nil
	case "message_delta":
		s.messageDelta(&ev.anthropicEvent, ev.Delta)
		return nil, nil
	case "message_stop":
		s.done = true
		return s.Finish(), nil
	case "error":
		return s.upstreamError(ev.Error)
	}
	return nil, nil
}

// Done reports whether the upstream's message_stop arrived. A stream whose
// upstream ended without it was cut: end it with Error, not Finish.
func (s *MessagesToResponsesStream) Done() bool { return s.done }

// Usage is the usage seen so far (see Usage for its meaning).
func (s *MessagesToResponsesStream) Usage() Usage { return s.usage.usage() }

// FinalUsage reports whether message_delta brought the output usage:
// without it, Usage has only message_start's input counts (and its
// placeholder output count).
func (s *MessagesToResponsesStream) FinalUsage() bool { return s.finalUsage }

// OutputBytes is how many bytes of text, thinking and function-call
// arguments were written for the caller so far.
func (s *MessagesToResponsesStream) OutputBytes() int64 { return s.out.outBytes }

// Finish ends the stream as a well-formed Responses stream: the open items
// done, then response.completed (or response.incomplete) with the whole
// response and the usage. message_stop calls it; call it yourself only for
// an upstream that ended without one and may be trusted (Done tells). It
// returns nothing once the stream has ended.
func (s *MessagesToResponsesStream) Finish() []byte {
	if s.ended {
		return nil
	}
	s.ended = true
	out := s.out.start(nil, "", "")
	status, incomplete := messagesStatus(s.stopReason)
	return s.out.complete(out, status, incomplete, s.Usage().responses(0))
}

// Error ends the stream with response.failed, its error
// {"code":"server_error","message"}: Codex retries such a response, and
// OpenAI's SDKs hand it over as the stream's last event. Open items are
// left unfinished (see responsesStream.fail). err's text is what the
// caller reads: pass one fit to be shown. It returns nothing once the stream
// has ended.
func (s *MessagesToResponsesStream) Error(err error) []byte {
	if s.ended {
		return nil
	}
	s.ended = true
	out := s.out.start(nil, "", "")
	return s.out.fail(out, "server_error", streamErrorMessage(err), s.Usage().responses(0))
}

// messageStart starts the response; events before it start one too, so
// that the caller's stream is well-formed whatever the order. A late
// message_start's usage still counts.
func (s *MessagesToResponsesStream) messageStart(m *messagesResponse) []byte {
	if m == nil {
		return s.out.start(nil, "", "")
	}
	s.usage = m.Usage
	return s.out.start(nil, m.ID, m.Model)
}

func (s *MessagesToResponsesStream) blockStart(index int, cb *signedBlock) ([]byte, error) {
	out := s.out.start(nil, "", "")
	if cb == nil {
		return out, fmt.Errorf("translate: anthropic content_block_start %d has no content_block", index)
	}
	b := &responsesBlock{}
	s.blocks[index] = b
	switch cb.Type {
	case "text":
		b.kind = blockText
		if cb.Text != "" {
			out = s.write(out, cb.Text)
		}
	case "thinking", "redacted_thinking":
		b.kind, b.signature, b.redacted = blockThinking, cb.Signature, cb.Data
		out, b.item = s.add(out, &streamItem{kind: itemReasoning})
		if cb.Thinking != "" {
			out = s.out.think(out, b.item, cb.Thinking)
		}
	case "tool_use":
		b.kind = blockTool
		out, b.item = s.add(out, &streamItem{kind: itemCall, callID: callID(cb.ID), name: cb.Name})
		if args := toolArguments(cb.Input); args != "{}" { // input given whole, not streamed
			out = s.out.argue(out, b.item, args)
		}
	}
	return out, nil
}

// add starts an item of another kind than text: the open message is done.
func (s *MessagesToResponsesStream) add(out []byte, it *streamItem) ([]byte, *streamItem) {
	out = s.out.close(out, s.message)
	s.message = nil
	return s.out.add(out, it)
}

func (s *MessagesToResponsesStream) write(out []byte, text string) []byte {
	if s.message == nil {
		out, s.message = s.out.add(out, &streamItem{kind: itemMessage})
	}
	return s.out.write(out, s.message, false, text)
}

func (s *MessagesToResponsesStream) blockDelta(index int, d *signedDelta) ([]byte, error) {
	out := s.out.start(nil, "", "")
	if d == nil {
		return out, fmt.Errorf("translate: anthropic content_block_delta %d has no delta", index)
	}
	b := s.blocks[index]
	want := deltaKind(d.Type)
	if d.Type == "signature_delta" {
		want = blockThinking
	}
	switch {
	case want == blockNone || b != nil && b.kind == blockNone:
		return out, nil // citations_delta, deltas Anthropic may add, and those of dropped blocks (server_tool_use)
	case b == nil && want == blockText:
		b = &responsesBlock{kind: blockText} // a delta without its start: its type says enough
		s.blocks[index] = b
	case b == nil || b.kind != want:
		return out, fmt.Errorf("translate: anthropic %s for content block %d, which is not of that kind", d.Type, index)
	}
	switch {
	case d.Type == "signature_delta":
		b.signature += d.Signature
	case want == blockText && d.Text != "":
		out = s.write(out, d.Text)
	case want == blockThinking && d.Thinking != "":
		out = s.out.think(out, b.item, d.Thinking)
	case want == blockTool && d.PartialJSON != "":
		out = s.out.argue(out, b.item, d.PartialJSON)
	}
	return out, nil
}

// blockStop finishes a thinking or tool_use block's item; a text block's
// message stays open for the text blocks that may follow.
func (s *MessagesToResponsesStream) blockStop(index int) []byte {
	b := s.blocks[index]
	delete(s.blocks, index)
	out := s.out.start(nil, "", "")
	if b == nil || b.item == nil {
		return out
	}
	if b.kind == blockThinking {
		typ := "thinking"
		if b.redacted != "" {
			typ = "redacted_thinking"
		}
		b.item.encrypted = encodeThinking(&signedBlock{anthropicBlock: anthropicBlock{Type: typ, Thinking: b.item.summary.String()},
			Signature: b.signature, Data: b.redacted})
	}
	return s.out.close(out, b.item)
}

// messageDelta keeps the stop reason and the usage, whose counts are
// cumulative; a count left out keeps its earlier value.
func (s *MessagesToResponsesStream) messageDelta(ev *anthropicEvent, d *signedDelta) {
	if d != nil && d.StopReason != "" {
		s.stopReason = d.StopReason
	}
	if u := ev.Usage; u != nil {
		s.finalUsage = true
		setIf(&s.usage.InputTokens, u.InputTokens)
		setIf(&s.usage.CacheCreationInputTokens, u.CacheCreationInputTokens)
		setIf(&s.usage.CacheReadInputTokens, u.CacheReadInputTokens)
		setIf(&s.usage.OutputTokens, u.OutputTokens)
	}
}

// upstreamError ends the stream with the upstream's error as response.failed.
func (s *MessagesToResponsesStream) upstreamError(e *anthropicErrorDetail) ([]byte, error) {
	s.ended = true
	se := &StreamError{Type: "api_error", Message: "the upstream reported an error"}
	if e != nil {
		se.Type, se.Message = cmp.Or(e.Type, se.Type), cmp.Or(e.Message, se.Message)
	}
	out := s.out.start(nil, "", "")
	return s.out.fail(out, responsesErrorCode(upstreamerr.Event(se.Type, "", se.Message)), se.Message, s.Usage().responses(0)), se
}
