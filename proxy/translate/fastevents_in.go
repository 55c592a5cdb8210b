package translate

import "cmp"

// Hand decoding of the events that make up the body of a stream: an
// Anthropic content_block_delta and an OpenAI chunk with one choice or
// none, and the usage or none. A streamed answer has hundreds of them, and
// encoding/json's reflection costs several times the rest of their
// conversion. Each reader takes only
// the common shape and reports !ok for anything else, which the stream's
// reader then decodes with encoding/json; when it takes an event, it decodes it
// to what encoding/json would (FuzzFastEventReaders holds it to that).

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

// optString reads a string into dst, or null, which leaves dst as it was
// (as encoding/json does).
func (r *jsonReader) optString(dst *string) bool {
	r.skipSpace()
	if r.pos < len(r.data) && r.data[r.pos] == 'n' {
		return r.null()
	}
	s, ok := r.string()
	if ok {
		*dst = s
	}
	return ok
}

// skipString reads a string or null it does not keep.
func (r *jsonReader) skipString() bool {
	r.skipSpace()
	if r.pos < len(r.data) && r.data[r.pos] == 'n' {
		return r.null()
	}
	_, ok := r.bytes()
	return ok
}

// fastChunk is an OpenAI chunk as readChunk takes it: no choice or one,
// with index 0, at most one tool call, and no error; its usage, if any,
// of the common members. Its tool call is held in calls, and its usage in
// usage, so that reading one allocates nothing.
type fastChunk struct {
	id, model string
	hasChoice bool
	choice    chatStreamChoice
	calls     [1]chatToolDelta
	hasUsage  bool
	usage     fastUsage
}

// fastUsage is a usage as readUsage reads it: chatUsage, whose
// PromptTokensDetails and CompletionTokensDetails, if any, point to details
// and completion.
type fastUsage struct {
	chatUsage
	details    chatPromptDetails
	completion chatCompletionDetails
}

// readChunk reads a chunk into c. id and model are read only with
// wantIDs: after the first chunk nobody needs them. The end of a stream,
// a chunk with finish_reason and one with the usage (often with no
// choice), is read here too.
func (r *jsonReader) readChunk(data []byte, wantIDs bool, c *fastChunk) bool {
	r.reset(data)
	*c = fastChunk{}
	var seen fieldSet
	ok := r.object(func(key []byte) bool {
		switch string(key) {
		case "id":
			return r.idString(wantIDs, &c.id)
		case "model":
			return r.idString(wantIDs, &c.model)
		case "choices":
			return seen.first(0) && r.readChoices(c)
		case "usage":
			c.hasUsage = !r.null()
			return seen.first(1) && (!c.hasUsage || r.readUsage(&c.usage))
		case "error":
			return r.null()
		}
		return r.skip()
	})
	return ok && r.end() && c.choice.Index == 0
}

// readChoices reads null, [] or an array of one choice.
func (r *jsonReader) readChoices(c *fastChunk) bool {
	switch {
	case r.null():
		return true
	case !r.consume('['):
		return false
	case r.consume(']'):
		return true
	}
	c.hasChoice = true
	return r.readChoice(c) && r.consume(']')
}

// readUsage reads a usage object whose details, if any, are objects of
// numbers; repeated members (which encoding/json merges) are left to it.
func (r *jsonReader) readUsage(u *fastUsage) bool {
	var seen fieldSet
	return r.object(func(key []byte) bool {
		switch string(key) {
		case "prompt_tokens":
			return seen.first(0) && r.intInto(&u.PromptTokens)
		case "completion_tokens":
			return seen.first(1) && r.intInto(&u.CompletionTokens)
		case "total_tokens":
			return seen.first(2) && r.intInto(&u.TotalTokens)
		case "prompt_tokens_details":
			if !seen.first(3) {
				return false
			}
			if r.null() {
				return true
			}
			u.PromptTokensDetails = &u.details
			return r.readCounts("cached_tokens", &u.details.CachedTokens, "cache_write_tokens", &u.details.CacheWriteTokens)
		case "completion_tokens_details":
			if !seen.first(4) {
				return false
			}
			if r.null() {
				return true
			}
			u.CompletionTokensDetails = &u.completion
			return r.readCounts("reasoning_tokens", &u.completion.ReasoningTokens, "", nil)
		case "prompt_cache_hit_tokens":
			return seen.first(5) && r.intInto(&u.PromptCacheHitTokens)
		}
		return r.value(0)
	})
}

// readCounts reads an object of token counts, keeping those under keyA
// and keyB (if b is not nil) and stepping over the rest.
func (r *jsonReader) readCounts(keyA string, a *int64, keyB string, b *int64) bool {
	var seen fieldSet
	return r.object(func(key []byte) bool {
		switch {
		case string(key) == keyA:
			return seen.first(0) && r.intInto(a)
		case b != nil && string(key) == keyB:
			return seen.first(1) && r.intInto(b)
		}
		return r.value(0)
	})
}

func (r *jsonReader) idString(want bool, dst *string) bool {
	if want {
		return r.optString(dst)
	}
	return r.skipString()
}

func (r *jsonReader) readChoice(c *fastChunk) bool {
	ch := &c.choice
	hasDelta := false
	return r.object(func(key []byte) bool {
		var ok bool
		switch string(key) {
		case "index":
			ch.Index, ok = r.int()
		case "finish_reason":
			ok = r.optString(&ch.FinishReason)
		case "delta":
			ok, hasDelta = !hasDelta && r.readChunkDelta(c), true
		default:
			ok = r.skip()
		}
		return ok
	})
}

func (r *jsonReader) readChunkDelta(c *fastChunk) bool {
	d := &c.choice.Delta
	hasCalls := false
	return r.object(func(key []byte) bool {
		switch string(key) {
		case "content":
			return r.optString(&d.Content)
		case "refusal":
			return r.optString(&d.Refusal)
		case "reasoning_content":
			return r.optString(&d.ReasoningContent)
		case "reasoning": // kept raw, as chatStreamChoice has it
			r.skipSpace()
			start := r.pos
			ok := r.skip()
			d.Reasoning = r.data[start:r.pos]
			return ok
		case "tool_calls":
			ok := !hasCalls && r.readToolCalls(c)
			hasCalls = true
			return ok
		}
		return r.skip()
	})
}

// readToolCalls reads null, or an array of one tool call.
func (r *jsonReader) readToolCalls(c *fastChunk) bool {
	if r.null() {
		c.choice.Delta.ToolCalls = nil
		return true
	}
	tc := &c.calls[0]
	hasFunction := false
	ok := r.consume('[') && r.object(func(key []byte) bool {
		var ok bool
		switch string(key) {
		case "index":
			tc.Index, ok = r.int()
		case "id":
			ok = r.optString(&tc.ID)
		case "type":
			ok = r.optString(&tc.Type)
		case "function":
			ok, hasFunction = !hasFunction && r.readFunction(&tc.Function), true
		default:
			ok = r.skip()
		}
		return ok
	}) && r.consume(']')
	c.choice.Delta.ToolCalls = c.calls[:]
	return ok
}

func (r *jsonReader) readFunction(f *chatFunctionDelta) bool {
	return r.object(func(key []byte) bool {
		switch string(key) {
		case "name":
			return r.optString(&f.Name)
		case "arguments":
			return r.optString(&f.Arguments)
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
