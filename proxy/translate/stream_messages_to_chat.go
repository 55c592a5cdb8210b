package translate

import (
	"cmp"
	"encoding/json"
	"fmt"
	"time"

	"gateway/proxy/upstreamerr"
)

// MessagesToChatStream converts an Anthropic Messages event stream into
// OpenAI chat.completion.chunk events for an OpenAI caller, one upstream
// event at a time; nothing is buffered beyond the event at hand. Use one per
// stream, from one goroutine.
//
// message_start gives the first chunk (role assistant, empty content) and
// the input usage; text_delta becomes delta.content; a tool_use block becomes
// a tool call whose first delta carries index, id, type and function name,
// and whose input_json_delta fragments follow as function.arguments (a call
// without arguments gets "{}"); parallel tool calls are numbered 0, 1, … in
// the order their blocks start. thinking_delta becomes
// delta.reasoning_content, which OpenAI-compatible clients read and OpenAI's
// SDKs ignore; signatures, redacted thinking and server-tool blocks are
// dropped. message_delta gives the stop reason and the output usage;
// message_stop ends the stream (see Finish). ping and unknown events are
// skipped.
type MessagesToChatStream struct {
	includeUsage bool
	created      int64
	id, model    string
	started      bool // the first chunk went out
	ended        bool // the end went out: Finish, Error, or an upstream error event
	done         bool // the upstream's message_stop arrived
	blocks       map[int]*chatBlock
	toolCalls    int // tool calls started so far: the OpenAI index of the next
	stopReason   string
	usage        anthropicUsage
	finalUsage   bool  // message_delta brought the output usage
	outBytes     int64 // text, reasoning and tool arguments written to the caller

	reader  jsonReader  // the fast path's, kept for its buffer
	delta   signedDelta // the fast path's event, kept so that it need not be allocated
	head    []byte      // every chunk's start (see chunkHead), once started
	general bool        // tests set it: encoding/json for every event, to compare the fast paths with
}

type blockKind uint8

const (
	blockNone blockKind = iota // no block, or one that is dropped
	blockText
	blockThinking
	blockTool
)

// chatBlock is an Anthropic content block being converted.
type chatBlock struct {
	kind blockKind
	tool int  // a tool_use block's OpenAI tool_calls index
	args bool // some of a tool call's arguments went out
}

// NewMessagesToChatStream starts a converter. includeUsage is the caller's
// stream_options.include_usage: whether the stream ends with a usage chunk.
// Usage is counted either way.
func NewMessagesToChatStream(includeUsage bool) *MessagesToChatStream {
	return &MessagesToChatStream{includeUsage: includeUsage, created: time.Now().Unix(), blocks: map[int]*chatBlock{}}
}

// Event converts one upstream event, given by its SSE event name (may be
// empty: the data's type then names it) and its data, into zero or more
// complete OpenAI SSE events to write to the caller. Write what it returns
// even when err is not nil: err reports an event that could not be
// converted (usually the end of the gateway's patience: call Error), or,
// as a *StreamError, an upstream error event, for which the caller's error
// event is already in the bytes and the stream has ended. After the end,
// Event returns nothing.
func (s *MessagesToChatStream) Event(name string, data []byte) ([]byte, error) {
	if s.ended {
		return nil, nil
	}
	switch name {
	case "", "message_start", "content_block_start", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop", "error":
	default:
		return nil, nil // ping, and event types Anthropic may add
	}
	// Most of a stream is deltas, and its other events are few and small:
	// they are read by hand (see fastevents_in.go).
	if !s.general {
		if index, ok := s.reader.readBlockDelta(name, data, &s.delta); ok {
			return s.blockDelta(index, &s.delta.anthropicDelta)
		}
		var ev anthropicEvent
		if s.reader.readEvent(data, &ev) {
			return s.event(cmp.Or(name, ev.Type), &ev)
		}
	}
	var ev anthropicEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return nil, fmt.Errorf("translate: anthropic %s event: %w", cmp.Or(name, "unnamed"), err)
	}
	return s.event(cmp.Or(name, ev.Type), &ev)
}

func (s *MessagesToChatStream) event(name string, ev *anthropicEvent) ([]byte, error) {
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
		s.messageDelta(ev)
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
func (s *MessagesToChatStream) Done() bool { return s.done }

// Usage is the usage seen so far (see Usage for its meaning).
func (s *MessagesToChatStream) Usage() Usage { return s.usage.usage() }

// FinalUsage reports whether message_delta brought the output usage:
// without it, Usage has only message_start's input counts (and its
// placeholder output count).
func (s *MessagesToChatStream) FinalUsage() bool { return s.finalUsage }

// OutputBytes is how many bytes of text, reasoning and tool-call arguments
// were written for the caller so far.
func (s *MessagesToChatStream) OutputBytes() int64 { return s.outBytes }

// Finish ends the stream as a well-formed OpenAI stream: a last chunk with
// the finish_reason, the usage chunk (empty choices) when the caller asked
// for it, and data: [DONE]. message_stop calls it; call it yourself only for
// an upstream that ended without one and may be trusted (Done tells). It
// returns nothing once the stream has ended.
func (s *MessagesToChatStream) Finish() []byte {
	if s.ended {
		return nil
	}
	s.ended = true
	out := s.start()
	out = s.chunk(out, chatDelta{}, finishReason(s.stopReason))
	if s.includeUsage {
		u := s.usage.usage().chat()
		if !s.general {
			return append(appendUsageChunk(out, s.chunkHead(), &u), chatDone...)
		}
		out = appendChatEvent(out, chatChunk{ID: s.id, Object: "chat.completion.chunk", Created: s.created,
			Model: s.model, Choices: []chatChunkChoice{}, Usage: &u})
	}
	return append(out, chatDone...)
}

// Error ends the stream with an OpenAI error event
// (data: {"error":{"message","type":"server_error","param":null,"code":"upstream_stream_error"}}),
// which OpenAI's SDKs raise as the stream's failure; no [DONE] follows.
// err's text is what the caller reads: pass one fit to be shown. It returns
// nothing once the stream has ended.
func (s *MessagesToChatStream) Error(err error) []byte {
	if s.ended {
		return nil
	}
	s.ended = true
	return chatErrorEvent(streamErrorMessage(err), "server_error", "upstream_stream_error")
}

func streamErrorMessage(err error) string {
	if err == nil {
		return "the upstream stream failed"
	}
	return err.Error()
}

func chatErrorEvent(message, typ, code string) []byte {
	body := chatErrorBody(message, typ, code, "")
	out := make([]byte, 0, len(body)+8)
	out = append(out, "data: "...)
	out = append(out, body...)
	return append(out, "\n\n"...)
}

// start gives the first chunk, once; events that come before message_start
// get it too, so that the caller's stream is well-formed whatever the order.
func (s *MessagesToChatStream) start() []byte {
	if s.started {
		return nil
	}
	s.started = true
	if s.id == "" {
		s.id = chatID("")
	}
	empty := ""
	return s.chunk(nil, chatDelta{Role: "assistant", Content: &empty}, "")
}

// chunk writes a chunk with choice 0's delta and finish_reason. It is
// written by hand (see fastevents_out.go), as the usage chunk is.
func (s *MessagesToChatStream) chunk(dst []byte, delta chatDelta, finish string) []byte {
	s.outBytes += delta.outputBytes()
	if !s.general {
		return appendFastChunk(dst, s.chunkHead(), &delta, finish)
	}
	c := chatChunk{ID: s.id, Object: "chat.completion.chunk", Created: s.created, Model: s.model,
		Choices: []chatChunkChoice{{Delta: delta}}}
	if finish != "" {
		f := finish // not &finish: the fast path would allocate it too
		c.Choices[0].FinishReason = &f
	}
	return appendChatEvent(dst, c)
}

// chunkHead gives what every chunk starts with (see chunkHead), made once
// the stream's id and model are known.
func (s *MessagesToChatStream) chunkHead() []byte {
	if s.head == nil {
		s.head = chunkHead(s.id, s.created, s.model)
	}
	return s.head
}

func (s *MessagesToChatStream) messageStart(m *messagesResponse) []byte {
	switch {
	case m == nil:
	case !s.started:
		s.id, s.model, s.usage = chatID(m.ID), m.Model, m.Usage
	default: // late: the chunks already out keep their id, but the usage counts
		s.usage = m.Usage
	}
	return s.start()
}

func (s *MessagesToChatStream) blockStart(index int, cb *anthropicBlock) ([]byte, error) {
	out := s.start()
	if cb == nil {
		return out, fmt.Errorf("translate: anthropic content_block_start %d has no content_block", index)
	}
	b := &chatBlock{}
	s.blocks[index] = b
	switch cb.Type {
	case "text":
		b.kind = blockText
		if cb.Text != "" {
			out = s.chunk(out, chatDelta{Content: &cb.Text}, "")
		}
	case "thinking":
		b.kind = blockThinking
		if cb.Thinking != "" {
			out = s.chunk(out, chatDelta{ReasoningContent: cb.Thinking}, "")
		}
	case "tool_use":
		b.kind, b.tool = blockTool, s.toolCalls
		s.toolCalls++
		call := chatToolDelta{Index: b.tool, ID: toolUseID(cb.ID), Type: "function",
			Function: chatFunctionDelta{Name: cb.Name}}
		if args := toolArguments(cb.Input); args != "{}" { // input given whole, not streamed
			call.Function.Arguments, b.args = args, true
		}
		out = s.chunk(out, chatDelta{ToolCalls: []chatToolDelta{call}}, "")
	}
	return out, nil
}

func (s *MessagesToChatStream) blockDelta(index int, d *anthropicDelta) ([]byte, error) {
	out := s.start()
	if d == nil {
		return out, fmt.Errorf("translate: anthropic content_block_delta %d has no delta", index)
	}
	b := s.blocks[index]
	want := deltaKind(d.Type)
	switch {
	case want == blockNone:
		return out, nil // signature_delta, citations_delta, and deltas Anthropic may add
	case b == nil && want != blockTool:
		b = &chatBlock{kind: want} // a delta without its start: its type says enough
		s.blocks[index] = b
	case b == nil || b.kind != want:
		return out, fmt.Errorf("translate: anthropic %s for content block %d, which is not of that kind", d.Type, index)
	}
	switch {
	case want == blockText && d.Text != "":
		out = s.chunk(out, chatDelta{Content: &d.Text}, "")
	case want == blockThinking && d.Thinking != "":
		out = s.chunk(out, chatDelta{ReasoningContent: d.Thinking}, "")
	case want == blockTool && d.PartialJSON != "":
		b.args = true
		out = s.chunk(out, chatDelta{ToolCalls: []chatToolDelta{{Index: b.tool,
			Function: chatFunctionDelta{Arguments: d.PartialJSON}}}}, "")
	}
	return out, nil
}

// deltaKind tells which kind of block a delta type belongs to.
func deltaKind(typ string) blockKind {
	switch typ {
	case "text_delta":
		return blockText
	case "thinking_delta":
		return blockThinking
	case "input_json_delta":
		return blockTool
	}
	return blockNone
}

// blockStop gives a tool call that had no arguments "{}", as OpenAI does.
func (s *MessagesToChatStream) blockStop(index int) []byte {
	b := s.blocks[index]
	delete(s.blocks, index)
	out := s.start()
	if b != nil && b.kind == blockTool && !b.args {
		out = s.chunk(out, chatDelta{ToolCalls: []chatToolDelta{{Index: b.tool,
			Function: chatFunctionDelta{Arguments: "{}"}}}}, "")
	}
	return out
}

// messageDelta keeps the stop reason and the usage, whose counts are
// cumulative; a count left out keeps its earlier value.
func (s *MessagesToChatStream) messageDelta(ev *anthropicEvent) {
	if ev.Delta != nil && ev.Delta.StopReason != "" {
		s.stopReason = ev.Delta.StopReason
	}
	if u := ev.Usage; u != nil {
		s.finalUsage = true
		setIf(&s.usage.InputTokens, u.InputTokens)
		setIf(&s.usage.CacheCreationInputTokens, u.CacheCreationInputTokens)
		setIf(&s.usage.CacheReadInputTokens, u.CacheReadInputTokens)
		setIf(&s.usage.OutputTokens, u.OutputTokens)
	}
}

func setIf(dst *int64, v *int64) {
	if v != nil {
		*dst = *v
	}
}

// upstreamError ends the stream with the upstream's error in OpenAI's shape.
func (s *MessagesToChatStream) upstreamError(e *anthropicErrorDetail) ([]byte, error) {
	s.ended = true
	se := &StreamError{Type: "api_error", Message: "the upstream reported an error"}
	if e != nil {
		se.Type, se.Message = cmp.Or(e.Type, se.Type), cmp.Or(e.Message, se.Message)
	}
	typ, code := chatErrorType(se.Type, 0)
	if upstreamerr.Event(se.Type, "", se.Message).Kind == upstreamerr.ContextWindow {
		typ, code = "invalid_request_error", "context_length_exceeded"
	}
	return chatErrorEvent(se.Message, typ, code), se
}
