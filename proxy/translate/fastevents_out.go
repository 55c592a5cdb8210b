package translate

import (
	"slices"
	"strconv"
)

// Hand writing of the events that make up the body of a stream: an OpenAI
// chunk (every one chatWriter writes), an Anthropic
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

// appendDeltaJSON writes a chunk's delta, its members omitted when empty
// as encoding/json omits them.
func appendDeltaJSON(dst []byte, d *chatDelta) []byte {
	sep := byte('{')
	if d.Role != "" {
		dst = append(dst, sep)
		dst = append(dst, `"role":`...)
		dst = appendJSONString(dst, d.Role, true)
		sep = ','
	}
	if d.Content != nil {
		dst = append(dst, sep)
		dst = append(dst, `"content":`...)
		dst = appendJSONString(dst, *d.Content, true)
		sep = ','
	}
	if d.ReasoningContent != "" {
		dst = append(dst, sep)
		dst = append(dst, `"reasoning_content":`...)
		dst = appendJSONString(dst, d.ReasoningContent, true)
		sep = ','
	}
	if len(d.ToolCalls) > 0 {
		dst = append(dst, sep)
		dst = append(dst, `"tool_calls":`...)
		dst = appendToolDeltas(dst, d.ToolCalls)
		sep = ','
	}
	if sep == '{' {
		dst = append(dst, '{')
	}
	return append(dst, '}')
}

func appendToolDeltas(dst []byte, calls []chatToolDelta) []byte {
	dst = append(dst, '[')
	for i := range calls {
		if i > 0 {
			dst = append(dst, ',')
		}
		tc := &calls[i]
		dst = append(dst, `{"index":`...)
		dst = strconv.AppendInt(dst, int64(tc.Index), 10)
		if tc.ID != "" {
			dst = append(dst, `,"id":`...)
			dst = appendJSONString(dst, tc.ID, true)
		}
		if tc.Type != "" {
			dst = append(dst, `,"type":`...)
			dst = appendJSONString(dst, tc.Type, true)
		}
		dst = append(dst, `,"function":{`...)
		if tc.Function.Name != "" {
			dst = append(dst, `"name":`...)
			dst = appendJSONString(dst, tc.Function.Name, true)
			dst = append(dst, ',')
		}
		dst = append(dst, `"arguments":`...)
		dst = appendJSONString(dst, tc.Function.Arguments, true)
		dst = append(dst, "}}"...)
	}
	return append(dst, ']')
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
	return append(b, choicesHead...)
}

// choicesHead ends chunkHead.
const choicesHead = `,"choices":[{"index":0,"delta":`

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

// appendFastChunk writes a chunk with delta d and finish_reason finish
// (none if ""); head is chunkHead's.
func appendFastChunk(dst, head []byte, d *chatDelta, finish string) []byte {
	n := len(d.Role) + len(d.ReasoningContent)
	if d.Content != nil {
		n += len(*d.Content)
	}
	for i := range d.ToolCalls {
		f := &d.ToolCalls[i].Function
		n += 64 + len(d.ToolCalls[i].ID) + len(f.Name) + len(f.Arguments)
	}
	dst = slices.Grow(dst, len(head)+len(chunkTail)+64+len(finish)+n+n/8)
	dst = append(dst, head...)
	dst = appendDeltaJSON(dst, d)
	if finish == "" {
		return append(dst, chunkTail...)
	}
	dst = append(dst, `,"logprobs":null,"finish_reason":`...)
	dst = appendJSONString(dst, finish, true)
	return append(dst, "}]}\n\n"...)
}

// appendUsageChunk writes the usage chunk, with no choices; head is
// chunkHead's.
func appendUsageChunk(dst, head []byte, u *chatUsage) []byte {
	dst = slices.Grow(dst, len(head)+192)
	dst = append(dst, head[:len(head)-len(choicesHead)]...)
	dst = append(dst, `,"choices":[],"usage":`...)
	dst = appendChatUsage(dst, u)
	return append(dst, "}\n\n"...)
}
