package translate

import "strconv"

// Hand writing of a chat completion, byte for byte what marshal writes:
// 2.2× faster than encoding/json on an answer with parallel tool calls
// (BenchmarkHandJSON/answer_write_chat; FuzzChatResponseWriter holds it to
// marshal).

// marshalChatResponse writes out as marshal(out) would.
func marshalChatResponse(out *chatResponseOut) ([]byte, error) {
	if b, ok := appendChatResponse(make([]byte, 0, chatResponseSize(out)), out); ok {
		return b, nil
	}
	return marshal(*out) // a copy, so that out need not escape
}

// appendChatResponse writes m as marshal would (HTML not escaped); for a
// choice with logprobs, which Answer(Messages, Chat) never sets, it
// reports false.
func appendChatResponse(b []byte, m *chatResponseOut) ([]byte, bool) {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, m.ID, false)
	b = append(b, `,"object":`...)
	b = appendJSONString(b, m.Object, false)
	b = append(b, `,"created":`...)
	b = strconv.AppendInt(b, m.Created, 10)
	b = append(b, `,"model":`...)
	b = appendJSONString(b, m.Model, false)
	b = append(b, `,"choices":`...)
	if m.Choices == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range m.Choices {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendChatChoice(b, &m.Choices[i]); !ok {
				return b, false
			}
		}
		b = append(b, ']')
	}
	b = append(b, `,"usage":`...)
	b = appendChatUsage(b, &m.Usage)
	return append(b, '}'), true
}

func appendChatChoice(b []byte, c *chatChoiceOut) ([]byte, bool) {
	if c.Logprobs != nil {
		return b, false
	}
	b = append(b, `{"index":`...)
	b = strconv.AppendInt(b, int64(c.Index), 10)
	m := &c.Message
	b = append(b, `,"message":{"role":`...)
	b = appendJSONString(b, m.Role, false)
	b = append(b, `,"content":`...)
	b = appendOptString(b, m.Content)
	b = appendOptMember(b, `,"reasoning_content":`, m.ReasoningContent)
	if len(m.ToolCalls) > 0 {
		b = append(b, `,"tool_calls":`...)
		b = appendChatToolCalls(b, m.ToolCalls)
	}
	b = append(b, `,"refusal":`...)
	b = appendOptString(b, m.Refusal)
	b = append(b, `},"logprobs":null,"finish_reason":`...)
	b = appendJSONString(b, c.FinishReason, false)
	return append(b, '}'), true
}

func appendChatUsage(b []byte, u *chatUsage) []byte {
	b = append(b, `{"prompt_tokens":`...)
	b = strconv.AppendInt(b, u.PromptTokens, 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, u.CompletionTokens, 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, u.TotalTokens, 10)
	if d := u.PromptTokensDetails; d != nil {
		b = append(b, `,"prompt_tokens_details":{"cached_tokens":`...)
		b = strconv.AppendInt(b, d.CachedTokens, 10)
		if d.CacheWriteTokens != 0 {
			b = append(b, `,"cache_write_tokens":`...)
			b = strconv.AppendInt(b, d.CacheWriteTokens, 10)
		}
		b = append(b, '}')
	}
	if d := u.CompletionTokensDetails; d != nil {
		b = append(b, `,"completion_tokens_details":{"reasoning_tokens":`...)
		b = strconv.AppendInt(b, d.ReasoningTokens, 10)
		b = append(b, '}')
	}
	if u.PromptCacheHitTokens != 0 {
		b = append(b, `,"prompt_cache_hit_tokens":`...)
		b = strconv.AppendInt(b, u.PromptCacheHitTokens, 10)
	}
	return append(b, '}')
}

// chatResponseSize estimates the length of m as JSON, so that writing it
// allocates once.
func chatResponseSize(m *chatResponseOut) int {
	n := 400 + len(m.ID) + len(m.Model)
	for i := range m.Choices {
		msg := &m.Choices[i].Message
		n += 128 + len(msg.ReasoningContent)
		if msg.Content != nil {
			n += len(*msg.Content)
		}
		for j := range msg.ToolCalls {
			f := &msg.ToolCalls[j].Function
			n += 64 + len(msg.ToolCalls[j].ID) + len(f.Name) + len(f.Arguments)
		}
	}
	return n + n/16
}
