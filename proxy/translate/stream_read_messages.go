package translate

import (
	"cmp"
	"encoding/json"
	"fmt"

	"gateway/proxy/upstreamerr"
)

// messagesReader reads an Anthropic Messages event stream into neutral
// events.
//
// message_start gives the start (id, model) and the input usage; a text
// block gives text, a thinking block a reasoning part, a tool_use block a
// tool call whose input_json_delta fragments follow as its arguments (its
// input when given whole). message_delta gives the stop reason and the
// output usage, whose counts are cumulative; message_stop ends the stream.
// ping and unknown events are skipped, as are server-tool blocks.
//
// signed is for a writer that carries Anthropic's signed thinking on (the
// Responses API's encrypted_content): it keeps signatures and makes
// redacted_thinking a reasoning part; a delta without its block's start is
// taken only as text (a thinking part must start with its signature), and
// the deltas of a skipped block are skipped. Without it, signatures and
// redacted thinking are dropped, a text or thinking delta without its
// start says enough, and a delta for a skipped block is an error.
type messagesReader struct {
	signed  bool
	blocks  map[int]blockKind // the content blocks started, by index
	usage   anthropicUsage
	reader  jsonReader     // the fast path's, kept for its buffer
	delta   anthropicDelta // the fast path's event, kept so that it need not be allocated
	general bool           // tests set it: encoding/json for every event, to compare the fast paths with
}

type blockKind uint8

const (
	blockNone blockKind = iota // no block, or one that is dropped
	blockText
	blockThinking
	blockTool
)

func newMessagesReader(signed bool) *messagesReader {
	return &messagesReader{signed: signed, blocks: map[int]blockKind{}}
}

func (r *messagesReader) read(name string, data []byte, st *streamState, evs []event) ([]event, error) {
	switch name {
	case "", "message_start", "content_block_start", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop", "error":
	default:
		return evs, nil // ping, and event types Anthropic may add
	}
	// Most of a stream is deltas, and its other events are few and small:
	// they are read by hand (see stream_read_messages_fast.go).
	if !r.general {
		if index, ok := r.reader.readBlockDelta(name, data, &r.delta); ok {
			return r.blockDelta(evs, index, &r.delta)
		}
		var ev anthropicEvent
		if r.reader.readEvent(data, &ev) {
			return r.event(evs, cmp.Or(name, ev.Type), &ev, st)
		}
	}
	var ev anthropicEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return evs, fmt.Errorf("translate: anthropic %s event: %w", cmp.Or(name, "unnamed"), err)
	}
	return r.event(evs, cmp.Or(name, ev.Type), &ev, st)
}

func (r *messagesReader) event(evs []event, name string, ev *anthropicEvent, st *streamState) ([]event, error) {
	switch name {
	case "message_start":
		return r.messageStart(evs, ev.Message, st), nil
	case "content_block_start":
		return r.blockStart(evs, ev.Index, ev.ContentBlock)
	case "content_block_delta":
		return r.blockDelta(evs, ev.Index, ev.Delta)
	case "content_block_stop":
		return r.blockStop(evs, ev.Index), nil
	case "message_delta":
		r.messageDelta(ev, ev.Delta, st)
		return evs, nil
	case "message_stop":
		return append(evs, event{kind: evDone}), nil
	case "error":
		return append(evs, r.upstreamError(ev.Error)), nil
	}
	return evs, nil
}

// messageStart starts the answer; a late one (after other events started
// it) still brings the usage.
func (r *messagesReader) messageStart(evs []event, m *messagesResponse, st *streamState) []event {
	if m == nil {
		return append(evs, event{kind: evStart})
	}
	r.usage = m.Usage
	st.usage = r.usage.usage()
	return append(evs, event{kind: evStart, id: m.ID, name: m.Model})
}

func (r *messagesReader) blockStart(evs []event, index int, cb *anthropicBlock) ([]event, error) {
	evs = append(evs, event{kind: evStart})
	if cb == nil {
		return evs, fmt.Errorf("translate: anthropic content_block_start %d has no content_block", index)
	}
	kind := blockNone
	switch {
	case cb.Type == "text":
		kind = blockText
		if cb.Text != "" {
			evs = append(evs, event{kind: evText, key: index, text: cb.Text})
		}
	case cb.Type == "thinking" || cb.Type == "redacted_thinking" && r.signed:
		kind = blockThinking
		ev := event{kind: evThinkingStart, key: index, text: cb.Thinking}
		if r.signed {
			ev.signature, ev.redacted = cb.Signature, cb.Data
		}
		evs = append(evs, ev)
	case cb.Type == "tool_use":
		kind = blockTool
		ev := event{kind: evToolStart, key: index, id: cb.ID, name: cb.Name}
		if args := toolArguments(cb.Input); args != "{}" { // input given whole, not streamed
			ev.text = args
		}
		evs = append(evs, ev)
	}
	r.blocks[index] = kind
	return evs, nil
}

func (r *messagesReader) blockDelta(evs []event, index int, d *anthropicDelta) ([]event, error) {
	evs = append(evs, event{kind: evStart})
	if d == nil {
		return evs, fmt.Errorf("translate: anthropic content_block_delta %d has no delta", index)
	}
	kind, seen := r.blocks[index]
	want := deltaKind(d.Type)
	if r.signed && d.Type == "signature_delta" {
		want = blockThinking
	}
	switch {
	case want == blockNone || r.signed && seen && kind == blockNone:
		return evs, nil // signature_delta, citations_delta, deltas Anthropic may add, and those of skipped blocks
	case !seen && (want == blockText || want == blockThinking && !r.signed):
		kind = want // a delta without its start: its type says enough
		r.blocks[index] = kind
		if kind == blockThinking {
			evs = append(evs, event{kind: evThinkingStart, key: index})
		}
	case !seen || kind != want:
		return evs, fmt.Errorf("translate: anthropic %s for content block %d, which is not of that kind", d.Type, index)
	}
	switch {
	case d.Type == "signature_delta":
		evs = append(evs, event{kind: evSignature, key: index, text: d.Signature})
	case want == blockText && d.Text != "":
		evs = append(evs, event{kind: evText, key: index, text: d.Text})
	case want == blockThinking && d.Thinking != "":
		evs = append(evs, event{kind: evThinking, key: index, text: d.Thinking})
	case want == blockTool && d.PartialJSON != "":
		evs = append(evs, event{kind: evToolArguments, key: index, text: d.PartialJSON})
	}
	return evs, nil
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

// blockStop ends a thinking or tool_use block's part; text has no parts to
// end (a writer groups consecutive text as it needs).
func (r *messagesReader) blockStop(evs []event, index int) []event {
	return stopBlock(r.blocks, evs, index)
}

// stopBlock forgets block index of blocks and ends its part: a thinking
// part or a tool call (text has none).
func stopBlock(blocks map[int]blockKind, evs []event, index int) []event {
	kind := blocks[index]
	delete(blocks, index)
	evs = append(evs, event{kind: evStart})
	switch kind {
	case blockThinking:
		evs = append(evs, event{kind: evThinkingEnd, key: index})
	case blockTool:
		evs = append(evs, event{kind: evToolEnd, key: index})
	}
	return evs
}

// messageDelta keeps the stop reason and the usage, whose counts are
// cumulative; a count left out keeps its earlier value.
func (r *messagesReader) messageDelta(ev *anthropicEvent, d *anthropicDelta, st *streamState) {
	if d != nil && d.StopReason != "" {
		st.stop = messagesStop(d.StopReason)
	}
	if u := ev.Usage; u != nil {
		st.finalUsage = true
		setIf(&r.usage.InputTokens, u.InputTokens)
		setIf(&r.usage.CacheCreationInputTokens, u.CacheCreationInputTokens)
		setIf(&r.usage.CacheReadInputTokens, u.CacheReadInputTokens)
		setIf(&r.usage.OutputTokens, u.OutputTokens)
		st.usage = r.usage.usage()
	}
}

func setIf(dst *int64, v *int64) {
	if v != nil {
		*dst = *v
	}
}

// messagesStop reads Anthropic's stop_reason.
func messagesStop(reason string) stopKind {
	switch reason {
	case "max_tokens", "model_context_window_exceeded":
		return stopLength
	case "tool_use":
		return stopTool
	case "refusal":
		return stopRefusal
	}
	return stopEnd // end_turn, stop_sequence, pause_turn, and reasons Anthropic may add
}

// upstreamError reads an error event.
func (r *messagesReader) upstreamError(e *anthropicErrorDetail) event {
	se := &StreamError{Type: "api_error", Message: "the upstream reported an error"}
	if e != nil {
		se.Type, se.Message = cmp.Or(e.Type, se.Type), cmp.Or(e.Message, se.Message)
	}
	return event{kind: evError, failure: &streamFailure{detail: upstreamerr.Event(se.Type, "", se.Message), err: se}}
}
