package translate

import "strconv"

// Hand reading of an OpenAI chat completion and hand writing of the
// Anthropic answer made from it, for ChatResponseToMessages: as with the
// requests (fastrequest.go), reflection was most of what it cost. The
// reader takes the common shapes only and reports !ok for the rest (a
// repeated field, a number it cannot read exactly, a null where an element
// should be), which decode then reads; what it takes, it reads to what
// decode would (FuzzChatResponseReader). The writer writes what marshal
// would, byte for byte (FuzzMessagesResponseWriter).

// decodeChatResponse decodes body into resp as decode does.
// decode gets a value of its own, so that resp, which it would let
// escape, can stay on the caller's stack.
func decodeChatResponse(body []byte, resp *chatResponse) error {
	var r jsonReader
	if r.readChatResponse(body, resp) {
		return nil
	}
	v := new(chatResponse)
	err := decode(body, v)
	*resp = *v
	return err
}

func (r *jsonReader) readChatResponse(data []byte, resp *chatResponse) bool {
	r.reset(data)
	var seen fieldSet
	ok := r.object(func(key []byte) bool {
		switch string(key) {
		case "id":
			return seen.first(0) && r.optString(&resp.ID)
		case "model":
			return seen.first(1) && r.optString(&resp.Model)
		case "choices":
			return seen.first(2) && r.readAnswerChoices(&resp.Choices)
		case "usage":
			if !seen.first(3) {
				return false
			}
			if r.null() {
				return true
			}
			u := new(fastUsage) // one allocation for the usage and its details
			resp.Usage = &u.chatUsage
			return r.readUsage(u)
		}
		return r.value(0)
	})
	return ok && r.end()
}

// readAnswerChoices reads null, or an array of choices; [] gives an empty
// slice, as encoding/json gives it.
func (r *jsonReader) readAnswerChoices(dst *[]chatResponseChoice) bool {
	list := []chatResponseChoice{}
	null, ok := r.array(func() bool {
		list = append(list, chatResponseChoice{})
		return r.readAnswerChoice(&list[len(list)-1])
	})
	if !null {
		*dst = list
	}
	return ok
}

func (r *jsonReader) readAnswerChoice(c *chatResponseChoice) bool {
	var seen fieldSet
	return r.object(func(key []byte) bool {
		switch string(key) {
		case "message":
			return seen.first(0) && (r.null() || r.readAnswerMessage(&c.Message))
		case "finish_reason":
			return seen.first(1) && r.optString(&c.FinishReason)
		}
		return r.value(0)
	})
}

func (r *jsonReader) readAnswerMessage(m *chatAnswerMessage) bool {
	var seen fieldSet
	return r.object(func(key []byte) bool {
		switch string(key) {
		case "content":
			return seen.first(0) && r.rawInto(&m.Content)
		case "refusal":
			return seen.first(1) && r.optString(&m.Refusal)
		case "tool_calls":
			return seen.first(2) && r.readToolCallList(&m.ToolCalls)
		}
		return r.value(0)
	})
}

// readToolCallList reads null, or an array of tool calls.
func (r *jsonReader) readToolCallList(dst *[]chatToolCall) bool {
	list := []chatToolCall{}
	null, ok := r.array(func() bool {
		list = append(list, chatToolCall{})
		return r.readToolCall(&list[len(list)-1])
	})
	if !null {
		*dst = list
	}
	return ok
}

func (r *jsonReader) readToolCall(tc *chatToolCall) bool {
	var seen fieldSet
	return r.object(func(key []byte) bool {
		switch string(key) {
		case "id":
			return seen.first(0) && r.optString(&tc.ID)
		case "type":
			return seen.first(1) && r.optString(&tc.Type)
		case "function":
			return seen.first(2) && (r.null() || r.readFunctionCall(&tc.Function))
		}
		return r.value(0)
	})
}

func (r *jsonReader) readFunctionCall(f *chatFunctionCall) bool {
	var seen fieldSet
	return r.object(func(key []byte) bool {
		switch string(key) {
		case "name":
			return seen.first(0) && r.optString(&f.Name)
		case "arguments":
			return seen.first(1) && r.optString(&f.Arguments)
		}
		return r.value(0)
	})
}

// marshalMessagesResponse writes out as marshal does: by hand if its
// blocks are text and tool_use blocks (all that ChatResponseToMessages
// makes), else through marshal.
func marshalMessagesResponse(out *messagesResponseOut) ([]byte, error) {
	if b, ok := appendMessagesResponse(make([]byte, 0, messagesResponseSize(out)), out); ok {
		return b, nil
	}
	return marshal(*out) // a copy, so that out need not escape
}

// appendMessagesResponse writes m as marshal would (HTML not escaped), if
// its blocks are textBlock and toolUseBlock values whose inputs are valid
// JSON, as toolInput makes them; for another block it reports false.
func appendMessagesResponse(b []byte, m *messagesResponseOut) ([]byte, bool) {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, m.ID, false)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, m.Type, false)
	b = append(b, `,"role":`...)
	b = appendJSONString(b, m.Role, false)
	b = append(b, `,"model":`...)
	b = appendJSONString(b, m.Model, false)
	b = append(b, `,"content":`...)
	b, ok := appendAnswerBlocks(b, m.Content)
	if !ok {
		return b, false
	}
	b = append(b, `,"stop_reason":`...)
	b = appendOptString(b, m.StopReason)
	b = append(b, `,"stop_sequence":`...)
	b = appendOptString(b, m.StopSequence)
	b = append(b, `,"usage":{"input_tokens":`...)
	b = strconv.AppendInt(b, m.Usage.InputTokens, 10)
	b = append(b, `,"cache_creation_input_tokens":`...)
	b = strconv.AppendInt(b, m.Usage.CacheCreationInputTokens, 10)
	b = append(b, `,"cache_read_input_tokens":`...)
	b = strconv.AppendInt(b, m.Usage.CacheReadInputTokens, 10)
	b = append(b, `,"output_tokens":`...)
	b = strconv.AppendInt(b, m.Usage.OutputTokens, 10)
	return append(b, "}}"...), true
}

// appendAnswerBlocks writes blocks, nil as null.
func appendAnswerBlocks(b []byte, blocks []any) ([]byte, bool) {
	if blocks == nil {
		return append(b, "null"...), true
	}
	b = append(b, '[')
	for i, block := range blocks {
		if i > 0 {
			b = append(b, ',')
		}
		switch v := block.(type) {
		case textBlock:
			b = append(b, `{"type":`...)
			b = appendJSONString(b, v.Type, false)
			b = append(b, `,"text":`...)
			b = appendJSONString(b, v.Text, false)
			b = append(b, '}')
		case toolUseBlock:
			var ok bool
			if b, ok = appendToolUseBlock(b, &v); !ok {
				return b, false
			}
		default:
			return b, false
		}
	}
	return append(b, ']'), true
}

// appendOptString writes *s, or null.
func appendOptString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendJSONString(b, *s, false)
}

// messagesResponseSize estimates the length of m as JSON, so that writing
// it allocates once.
func messagesResponseSize(m *messagesResponseOut) int {
	n := 320 + len(m.ID) + len(m.Model)
	for _, block := range m.Content {
		switch v := block.(type) {
		case textBlock:
			n += 32 + len(v.Text)
		case toolUseBlock:
			n += 64 + len(v.ID) + len(v.Name) + len(v.Input)
		}
	}
	return n + n/16
}
