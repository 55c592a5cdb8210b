package translate

import (
	"slices"
	"strconv"
)

// Hand writing of Anthropic events: content_block_delta, and the events
// that start and end a stream (message_start, content_block_start and
// _stop, message_delta and message_stop), which are only a few in a stream
// but through encoding/json cost as much as all its deltas. Each writes
// byte for byte what appendMessagesEvent would (json.Marshal, so with HTML
// escaped): see TestFastEventWriters and FuzzFastEventWriters, and
// BenchmarkHandStreams for the figures.

// appendMessageStart writes the message_start of messagesWriter: no
// content, no stop reason, and usage u (see messagesWriter.callerUsage).
// It makes room for the events that follow it in the first chunk's output.
func appendMessageStart(dst []byte, id, model string, u anthropicUsage) []byte {
	dst = slices.Grow(dst, 512+len(id)+len(model))
	dst = append(dst, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":"...)
	dst = appendJSONString(dst, id, true)
	dst = append(dst, `,"type":"message","role":"assistant","model":`...)
	dst = appendJSONString(dst, model, true)
	dst = append(dst, `,"content":[],"stop_reason":null,"stop_sequence":null,"usage":`...)
	dst = appendAnthropicUsage(dst, u)
	return append(dst, "}}\n\n"...)
}

// appendBlockStart writes a content_block_start: of a tool_use block with
// id and name and the empty input, or of an empty text block.
func appendBlockStart(dst []byte, index int, tool bool, id, name string) []byte {
	dst = slices.Grow(dst, 160+len(id)+len(name))
	dst = append(dst, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":"...)
	dst = strconv.AppendInt(dst, int64(index), 10)
	if !tool {
		return append(dst, `,"content_block":{"type":"text","text":""}}`+"\n\n"...)
	}
	dst = append(dst, `,"content_block":{"type":"tool_use","id":`...)
	dst = appendJSONString(dst, id, true)
	dst = append(dst, `,"name":`...)
	dst = appendJSONString(dst, name, true)
	return append(dst, `,"input":{}}}`+"\n\n"...)
}

func appendBlockStop(dst []byte, index int) []byte {
	dst = append(dst, "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":"...)
	dst = strconv.AppendInt(dst, int64(index), 10)
	return append(dst, "}\n\n"...)
}

// appendMessageEnd writes message_delta, with the stop reason and the
// usage and no stop sequence, and message_stop.
func appendMessageEnd(dst []byte, stop string, u anthropicUsage) []byte {
	dst = slices.Grow(dst, 320+len(stop))
	dst = append(dst, "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"...)
	dst = appendJSONString(dst, stop, true)
	dst = append(dst, `,"stop_sequence":null},"usage":`...)
	dst = appendAnthropicUsage(dst, u)
	return append(dst, "}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"...)
}

// appendAnthropicUsage writes u as an Anthropic usage object.
func appendAnthropicUsage(dst []byte, u anthropicUsage) []byte {
	dst = append(dst, `{"input_tokens":`...)
	dst = strconv.AppendInt(dst, u.InputTokens, 10)
	dst = append(dst, `,"cache_creation_input_tokens":`...)
	dst = strconv.AppendInt(dst, u.CacheCreationInputTokens, 10)
	dst = append(dst, `,"cache_read_input_tokens":`...)
	dst = strconv.AppendInt(dst, u.CacheReadInputTokens, 10)
	dst = append(dst, `,"output_tokens":`...)
	dst = strconv.AppendInt(dst, u.OutputTokens, 10)
	if c := u.CacheCreation; c != (anthropicCacheCreation{}) {
		dst = append(dst, `,"cache_creation":{"ephemeral_5m_input_tokens":`...)
		dst = strconv.AppendInt(dst, c.Ephemeral5m, 10)
		dst = append(dst, `,"ephemeral_1h_input_tokens":`...)
		dst = strconv.AppendInt(dst, c.Ephemeral1h, 10)
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

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
