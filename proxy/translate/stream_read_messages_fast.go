package translate

import "cmp"

// Hand decoding of Anthropic events: content_block_delta, the commonest,
// and message_start, message_delta and the like, as stream_read_chat_fast.go
// decodes chunks. With the hand writers, an Anthropic stream converts 4.6×
// faster to chat chunks and 3.5× faster to Responses events than with
// encoding/json alone (BenchmarkHandStreams). message_start's message has
// an answer's shape: readMessage reads a whole answer too
// (decodeMessagesResponse), 2.5× faster than decode
// (BenchmarkHandJSON/answer_read_messages). What a reader refuses,
// encoding/json reads (FuzzFastEventReaders, FuzzMessagesResponseReader).

// readBlockDelta reads a content_block_delta: cmp.Or(name, its type) must
// say so, and its delta be an object of string members.
func (r *jsonReader) readBlockDelta(name string, data []byte, d *anthropicDelta) (index int, ok bool) {
	r.reset(data)
	*d = anthropicDelta{}
	var typ string
	hasDelta := false
	ok = r.object(func(key []byte) bool {
		var ok bool
		switch string(key) {
		case "type":
			typ, ok = r.string()
		case "index":
			index, ok = r.int()
		case "delta":
			ok, hasDelta = !hasDelta && r.readDelta(d), true
		case "message", "content_block", "usage", "error": // other events' members
			return false
		default:
			return r.skip()
		}
		return ok
	})
	ok = ok && hasDelta && r.end() && cmp.Or(name, typ) == "content_block_delta"
	return index, ok
}

func (r *jsonReader) readDelta(d *anthropicDelta) bool {
	return r.object(func(key []byte) bool {
		switch string(key) {
		case "type":
			return r.optString(&d.Type)
		case "text":
			return r.optString(&d.Text)
		case "partial_json":
			return r.optString(&d.PartialJSON)
		case "thinking":
			return r.optString(&d.Thinking)
		case "signature":
			return r.optString(&d.Signature)
		case "stop_reason":
			return r.optString(&d.StopReason)
		}
		return r.skip()
	})
}

// readEvent reads any other Anthropic event (message_start,
// content_block_start and _stop, message_delta, message_stop) into ev.
// An error event is left to encoding/json: it comes once, if ever.
func (r *jsonReader) readEvent(data []byte, ev *anthropicEvent) bool {
	r.reset(data)
	var seen fieldSet
	ok := r.object(func(key []byte) bool {
		var ok bool
		switch string(key) {
		case "type":
			return seen.first(0) && r.optString(&ev.Type)
		case "index":
			ev.Index, ok = r.int()
			return seen.first(1) && ok
		case "message":
			return seen.first(2) && (r.null() || r.readMessage(alloc(&ev.Message)))
		case "content_block":
			return seen.first(3) && (r.null() || r.readBlock(alloc(&ev.ContentBlock)))
		case "delta":
			return seen.first(4) && (r.null() || r.readMessageDelta(alloc(&ev.Delta)))
		case "usage":
			return seen.first(5) && (r.null() || r.readDeltaUsage(alloc(&ev.Usage)))
		case "error":
			return false
		}
		return r.value(0)
	})
	return ok && r.end()
}

// readMessage reads message_start's message.
func (r *jsonReader) readMessage(m *messagesResponse) bool {
	var seen fieldSet
	return r.object(func(key []byte) bool {
		switch string(key) {
		case "id":
			return seen.first(0) && r.optString(&m.ID)
		case "type":
			return seen.first(1) && r.optString(&m.Type)
		case "model":
			return seen.first(2) && r.optString(&m.Model)
		case "content":
			return seen.first(3) && r.readBlocks(&m.Content)
		case "stop_reason":
			return seen.first(4) && r.optString(&m.StopReason)
		case "usage":
			return seen.first(5) && (r.null() || r.readMessageUsage(&m.Usage))
		}
		return r.value(0)
	})
}

// readBlocks reads null, or an array of blocks; [] gives an empty slice,
// as encoding/json gives it. Room for four is made at the first block: an
// answer has a few, and growing from one costs an allocation each.
func (r *jsonReader) readBlocks(dst *[]anthropicBlock) bool {
	var list []anthropicBlock
	null, ok := r.array(func() bool {
		if list == nil {
			list = make([]anthropicBlock, 0, 4)
		}
		list = append(list, anthropicBlock{})
		return r.readBlock(&list[len(list)-1])
	})
	if list == nil {
		list = []anthropicBlock{}
	}
	if !null {
		*dst = list
	}
	return ok
}

func (r *jsonReader) readMessageUsage(u *anthropicUsage) bool {
	var seen fieldSet
	return r.object(func(key []byte) bool {
		switch string(key) {
		case "input_tokens":
			return seen.first(0) && r.intInto(&u.InputTokens)
		case "cache_creation_input_tokens":
			return seen.first(1) && r.intInto(&u.CacheCreationInputTokens)
		case "cache_read_input_tokens":
			return seen.first(2) && r.intInto(&u.CacheReadInputTokens)
		case "output_tokens":
			return seen.first(3) && r.intInto(&u.OutputTokens)
		case "cache_creation":
			c := &u.CacheCreation
			return seen.first(4) && (r.null() ||
				r.readCounts("ephemeral_5m_input_tokens", &c.Ephemeral5m, "ephemeral_1h_input_tokens", &c.Ephemeral1h))
		}
		return r.value(0)
	})
}

// readMessageDelta reads message_delta's delta (or a block delta that
// readBlockDelta left).
func (r *jsonReader) readMessageDelta(d *anthropicDelta) bool {
	var seen fieldSet
	return r.object(func(key []byte) bool {
		switch string(key) {
		case "type":
			return seen.first(0) && r.optString(&d.Type)
		case "text":
			return seen.first(1) && r.optString(&d.Text)
		case "partial_json":
			return seen.first(2) && r.optString(&d.PartialJSON)
		case "thinking":
			return seen.first(3) && r.optString(&d.Thinking)
		case "stop_reason":
			return seen.first(4) && r.optString(&d.StopReason)
		case "signature":
			return seen.first(5) && r.optString(&d.Signature)
		}
		return r.value(0)
	})
}

// readDeltaUsage reads message_delta's usage, whose counts may be absent
// or null.
func (r *jsonReader) readDeltaUsage(u *anthropicDeltaUsage) bool {
	var seen fieldSet
	return r.object(func(key []byte) bool {
		switch string(key) {
		case "input_tokens":
			return seen.first(0) && r.optInt64(&u.InputTokens)
		case "cache_creation_input_tokens":
			return seen.first(1) && r.optInt64(&u.CacheCreationInputTokens)
		case "cache_read_input_tokens":
			return seen.first(2) && r.optInt64(&u.CacheReadInputTokens)
		case "output_tokens":
			return seen.first(3) && r.optInt64(&u.OutputTokens)
		}
		return r.value(0)
	})
}
