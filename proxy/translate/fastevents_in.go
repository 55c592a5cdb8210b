package translate

import "cmp"

// Hand decoding of the events that make up the body of a stream: an
// Anthropic content_block_delta and an OpenAI chunk with one choice. A
// streamed answer has hundreds of them, and encoding/json's reflection
// costs several times the rest of their conversion. Each reader takes only
// the common shape and reports !ok for anything else, which the converter
// then decodes with encoding/json; when it takes an event, it decodes it
// to what encoding/json would (FuzzFastEventReaders holds it to that).

// readBlockDelta reads a content_block_delta: cmp.Or(name, its type) must
// say so, and its delta be an object of string members.
func (r *jsonReader) readBlockDelta(name string, data []byte, d *signedDelta) (index int, ok bool) {
	r.reset(data)
	*d = signedDelta{}
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

func (r *jsonReader) readDelta(d *signedDelta) bool {
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

// fastChunk is an OpenAI chunk as readChunk takes it: one choice, with
// index 0, at most one tool call, no usage and no error. Its tool call is
// held in calls, so that reading one allocates nothing.
type fastChunk struct {
	id, model string
	choice    chatStreamChoice
	calls     [1]chatToolDelta
}

// readChunk reads a chunk into c. id and model are read only with
// wantIDs: after the first chunk nobody needs them.
func (r *jsonReader) readChunk(data []byte, wantIDs bool, c *fastChunk) bool {
	r.reset(data)
	*c = fastChunk{}
	hasChoices := false
	ok := r.object(func(key []byte) bool {
		switch string(key) {
		case "id":
			return r.idString(wantIDs, &c.id)
		case "model":
			return r.idString(wantIDs, &c.model)
		case "choices":
			ok := !hasChoices && r.consume('[') && r.readChoice(c) && r.consume(']')
			hasChoices = true
			return ok
		case "usage", "error":
			return r.null()
		}
		return r.skip()
	})
	return ok && hasChoices && r.end() && c.choice.Index == 0
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

// chatChoice gives the choice as ChatToMessagesStream reads it.
func (c *fastChunk) chatChoice() chatChunkChoiceIn {
	d := &c.choice.Delta
	return chatChunkChoiceIn{Index: c.choice.Index, FinishReason: c.choice.FinishReason,
		Delta: chatDeltaIn{Content: d.Content, Refusal: d.Refusal, ToolCalls: d.ToolCalls}}
}
