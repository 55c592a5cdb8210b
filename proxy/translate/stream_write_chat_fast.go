package translate

import (
	"slices"
	"strconv"
)

// Hand writing of OpenAI chunks (every one chatWriter writes), byte for
// byte what appendChatEvent would (json.Marshal, so with HTML escaped): see
// TestFastEventWriters and FuzzFastEventWriters. Without them a delta
// spends most of its time in encoding/json's reflection (see
// BenchmarkHandStreams for the figures, with the readers).

// appendDeltaJSON writes a chunk's delta, its members omitted when empty
// as encoding/json omits them.
func appendDeltaJSON(dst []byte, d *chatDelta) []byte {
	open := len(dst)
	dst = append(dst, '{')
	if d.Role != "" {
		dst = appendJSONString(appendKey(dst, open, `"role":`), d.Role, true)
	}
	if d.Content != nil {
		dst = appendJSONString(appendKey(dst, open, `"content":`), *d.Content, true)
	}
	if d.ReasoningContent != "" {
		dst = appendJSONString(appendKey(dst, open, `"reasoning_content":`), d.ReasoningContent, true)
	}
	if len(d.ToolCalls) > 0 {
		dst = appendToolDeltas(appendKey(dst, open, `"tool_calls":`), d.ToolCalls)
	}
	return append(dst, '}')
}

func appendToolDeltas(dst []byte, calls []chatToolDelta) []byte {
	return appendEach(dst, calls, appendToolDelta)
}

func appendToolDelta(dst []byte, tc *chatToolDelta) []byte {
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
	return append(dst, "}}"...)
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
