package translate

import (
	"slices"
	"strconv"
)

// Hand writing of the events that make up the body of a stream: a chunk
// with a text, reasoning or arguments delta, an Anthropic
// content_block_delta, and the Responses delta events. Each writes
// byte for byte what appendChatEvent, appendMessagesEvent or
// appendResponsesEvent would (json.Marshal, so with HTML escaped): see
// TestFastEventWriters and FuzzFastEventWriters. Without them a delta
// spends most of its time in encoding/json's reflection.

// grow makes room in dst for an event carrying text, so that writing it
// allocates once.
func grow(dst []byte, fixed int, text string) []byte {
	return slices.Grow(dst, fixed+len(text)+len(text)/8)
}

// appendDeltaJSON writes a chunk's delta if it is one of the common ones:
// content alone, reasoning_content alone, or one tool call's arguments
// alone. It reports false, having written nothing, for any other.
func appendDeltaJSON(dst []byte, d *chatDelta) ([]byte, bool) {
	if d.Role != "" {
		return dst, false
	}
	switch {
	case d.Content != nil && d.ReasoningContent == "" && d.ToolCalls == nil:
		dst = append(dst, `{"content":`...)
		dst = appendJSONString(dst, *d.Content, true)
	case d.Content == nil && d.ReasoningContent != "" && d.ToolCalls == nil:
		dst = append(dst, `{"reasoning_content":`...)
		dst = appendJSONString(dst, d.ReasoningContent, true)
	case d.Content == nil && d.ReasoningContent == "" && len(d.ToolCalls) == 1:
		tc := &d.ToolCalls[0]
		if tc.ID != "" || tc.Type != "" || tc.Function.Name != "" {
			return dst, false
		}
		dst = append(dst, `{"tool_calls":[{"index":`...)
		dst = strconv.AppendInt(dst, int64(tc.Index), 10)
		dst = append(dst, `,"function":{"arguments":`...)
		dst = appendJSONString(dst, tc.Function.Arguments, true)
		dst = append(dst, "}}]"...)
	default:
		return dst, false
	}
	return append(dst, '}'), true
}

// chunkHead is what every chunk of a stream starts with, up to its delta:
// "data: " and the chunk's members before choices[0].delta.
func chunkHead(id string, created int64, model string) []byte {
	b := append([]byte(nil), `data: {"id":`...)
	b = appendJSONString(b, id, true)
	b = append(b, `,"object":"chat.completion.chunk","created":`...)
	b = strconv.AppendInt(b, created, 10)
	b = append(b, `,"model":`...)
	b = appendJSONString(b, model, true)
	return append(b, `,"choices":[{"index":0,"delta":`...)
}

// chunkTail ends a chunk without finish_reason.
const chunkTail = `,"logprobs":null,"finish_reason":null}]}` + "\n\n"

// appendBlockDelta writes an Anthropic content_block_delta event whose
// delta is of type typ: an input_json_delta with text as its partial_json,
// or another (text_delta) with text as its text, left out if "" (see
// textDelta).
func appendBlockDelta(dst []byte, index int, typ, text string) []byte {
	dst = grow(dst, 112+len(typ), text)
	dst = append(dst, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":"...)
	dst = strconv.AppendInt(dst, int64(index), 10)
	dst = append(dst, `,"delta":{"type":`...)
	dst = appendJSONString(dst, typ, true)
	switch {
	case typ == "input_json_delta":
		dst = append(dst, `,"partial_json":`...)
		dst = appendJSONString(dst, text, true)
	case text != "":
		dst = append(dst, `,"text":`...)
		dst = appendJSONString(dst, text, true)
	}
	return append(dst, "}}\n\n"...)
}

// The Responses delta events, written by hand; their logprobs, where they
// have them, are always the empty list.

func (ev textDeltaEvent) append(dst []byte) []byte {
	if ev.Logprobs == nil || len(ev.Logprobs) > 0 {
		return appendResponsesEvent(dst, ev)
	}
	return appendResponsesDelta(dst, ev.eventHeader, ev.ItemID, ev.OutputIndex, `,"content_index":`, ev.ContentIndex, ev.Delta, true)
}

func (ev refusalDeltaEvent) append(dst []byte) []byte {
	return appendResponsesDelta(dst, ev.eventHeader, ev.ItemID, ev.OutputIndex, `,"content_index":`, ev.ContentIndex, ev.Delta, false)
}

func (ev summaryDeltaEvent) append(dst []byte) []byte {
	return appendResponsesDelta(dst, ev.eventHeader, ev.ItemID, ev.OutputIndex, `,"summary_index":`, ev.SummaryIndex, ev.Delta, false)
}

func (ev argumentsDeltaEvent) append(dst []byte) []byte {
	return appendResponsesDelta(dst, ev.eventHeader, ev.ItemID, ev.OutputIndex, "", 0, ev.Delta, false)
}

// appendResponsesDelta writes a Responses delta event: its header, the
// item's id and output_index, the member index (its key given whole, as
// `,"content_index":`, or none if ""), the delta, and with logprobs an
// empty logprobs.
func appendResponsesDelta(dst []byte, h eventHeader, itemID string, outputIndex int, indexKey string, index int, delta string, logprobs bool) []byte {
	dst = grow(dst, 2*len(h.Type)+len(itemID)+128, delta)
	dst = append(dst, "event: "...)
	dst = append(dst, h.Type...)
	dst = append(dst, "\ndata: {\"type\":"...)
	dst = appendJSONString(dst, h.Type, true)
	dst = append(dst, `,"sequence_number":`...)
	dst = strconv.AppendInt(dst, h.SequenceNumber, 10)
	dst = append(dst, `,"item_id":`...)
	dst = appendJSONString(dst, itemID, true)
	dst = append(dst, `,"output_index":`...)
	dst = strconv.AppendInt(dst, int64(outputIndex), 10)
	if indexKey != "" {
		dst = append(dst, indexKey...)
		dst = strconv.AppendInt(dst, int64(index), 10)
	}
	dst = append(dst, `,"delta":`...)
	dst = appendJSONString(dst, delta, true)
	if logprobs {
		dst = append(dst, `,"logprobs":[]`...)
	}
	return append(dst, "}\n\n"...)
}

// appendFastChunk writes a chunk whose delta is a common one (see
// appendDeltaJSON) and that has no finish_reason; head is chunkHead's.
func appendFastChunk(dst, head []byte, d *chatDelta) ([]byte, bool) {
	text := d.ReasoningContent
	if d.Content != nil {
		text = *d.Content
	} else if len(d.ToolCalls) > 0 {
		text = d.ToolCalls[0].Function.Arguments
	}
	dst = grow(dst, len(head)+len(chunkTail)+64, text)
	start := len(dst)
	dst = append(dst, head...)
	dst, ok := appendDeltaJSON(dst, d)
	if !ok {
		return dst[:start], false
	}
	return append(dst, chunkTail...), true
}
