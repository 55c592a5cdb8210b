package translate

// Hand decoding of the OpenAI chunks that make up the body of a stream: a
// chunk with one choice or none, and the usage or none. A streamed answer
// has hundreds of them, and encoding/json's reflection costs several times
// the rest of their conversion: with the hand writers, a chat stream
// converts 6.8× faster to Anthropic events and 3.3× faster to Responses
// events than with encoding/json alone (BenchmarkHandStreams). Each reader
// takes only the common shape and reports !ok for anything else, which the
// stream's reader then decodes with encoding/json; when it takes an event,
// it decodes it to what encoding/json would (FuzzFastEventReaders holds it
// to that).

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
