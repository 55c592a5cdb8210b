package translate

import (
	"encoding/json"
	"fmt"
	"testing"
)

// Structured stream fuzzing: raw SSE bytes mostly mutate into broken JSON,
// which stops at the first event. Here each fuzzed byte picks a well-formed
// upstream event (kind and block index) and text gives its strings, so the
// converters see every order of valid events: deltas before starts, blocks
// stopped twice, arguments for closed calls, events after the end.

func FuzzMessagesToChatStreamOps(f *testing.F) {
	f.Add([]byte{0, 1, 4, 7, 8, 9}, "Hello")
	f.Add([]byte{0, 2, 5, 5, 7, 12, 15, 17, 18, 9}, `{"a":`)
	f.Add([]byte{4, 5, 7, 3, 6, 9, 29, 0}, "x")
	f.Fuzz(func(t *testing.T, ops []byte, text string) {
		var stream []byte
		for _, op := range ops {
			name, data := anthropicOp(op, text)
			stream = fmt.Appendf(stream, "event: %s\ndata: %s\n\n", name, data)
		}
		for _, end := range []func(s streamConverter) []byte{finish, fail} {
			out := fuzzFeed(t, mustStream(Messages, Chat, Options{IncludeUsage: true}), stream, end)
			if _, err := readChatStream(out); err != nil {
				t.Fatalf("%v\n--- input\n%s\n--- output\n%s", err, stream, out)
			}
		}
		checkFastPath(t, streamConverters["stream_messages_to_chat"], stream)
	})
}

func FuzzChatToMessagesStreamOps(f *testing.F) {
	f.Add([]byte{0, 0, 5, 6, 7}, "Hello")
	f.Add([]byte{0, 1, 2, 2, 11, 12, 5, 6, 7}, `{"a":`)
	f.Add([]byte{2, 1, 0, 21, 2, 8}, "x")
	f.Fuzz(func(t *testing.T, ops []byte, text string) {
		var stream []byte
		for _, op := range ops {
			stream = fmt.Appendf(stream, "data: %s\n\n", chatOp(op, text))
		}
		for _, end := range []func(s streamConverter) []byte{finish, fail} {
			out := fuzzFeed(t, mustStream(Chat, Messages, Options{InputEstimate: goldenEstimate}), stream, end)
			if _, err := readMessagesStream(out); err != nil {
				t.Fatalf("%v\n--- input\n%s\n--- output\n%s", err, stream, out)
			}
		}
		checkFastPath(t, streamConverters["stream_chat_to_messages"], stream)
	})
}

// anthropicOp makes the Anthropic event that op stands for: op%10 the kind,
// op/10%4 the block index (or the variant).
func anthropicOp(op byte, text string) (string, []byte) {
	kind, i := op%10, int(op/10)%4
	str, _ := json.Marshal(text)
	usage := `{"input_tokens":10,"cache_read_input_tokens":5,"output_tokens":3}`
	switch kind {
	case 0:
		return "message_start", fmt.Appendf(nil, `{"type":"message_start","message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude","content":[],"usage":%s}}`, i, usage)
	case 1:
		return "content_block_start", fmt.Appendf(nil, `{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":%s}}`, i, str)
	case 2:
		return "content_block_start", fmt.Appendf(nil, `{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":"toolu_%d","name":%s,"input":{}}}`, i, i, str)
	case 3:
		return "content_block_start", fmt.Appendf(nil, `{"type":"content_block_start","index":%d,"content_block":{"type":"thinking","thinking":""}}`, i)
	case 4:
		return "content_block_delta", fmt.Appendf(nil, `{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, i, str)
	case 5:
		return "content_block_delta", fmt.Appendf(nil, `{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, i, str)
	case 6:
		return "content_block_delta", fmt.Appendf(nil, `{"type":"content_block_delta","index":%d,"delta":{"type":"thinking_delta","thinking":%s}}`, i, str)
	case 7:
		return "content_block_stop", fmt.Appendf(nil, `{"type":"content_block_stop","index":%d}`, i)
	case 8:
		stop := [...]string{"end_turn", "tool_use", "max_tokens", "refusal"}[i]
		return "message_delta", fmt.Appendf(nil, `{"type":"message_delta","delta":{"stop_reason":%q},"usage":{"output_tokens":%d}}`, stop, i)
	}
	switch i {
	case 0:
		return "message_stop", []byte(`{"type":"message_stop"}`)
	case 1:
		return "ping", []byte(`{"type":"ping"}`)
	case 2:
		return "error", fmt.Appendf(nil, `{"type":"error","error":{"type":"overloaded_error","message":%s}}`, str)
	}
	return "future_event", []byte(`{"type":"future_event"}`)
}

// usageOp makes a chunk with the usage, of variant i: alone, on the
// finish chunk, with every detail, or with odd members.
func usageOp(i int, text string) []byte {
	str, _ := json.Marshal(text)
	switch i {
	case 1:
		return fmt.Appendf(nil, `{"id":"chatcmpl-1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":%d,"completion_tokens":20,"total_tokens":340}}`, len(text))
	case 2:
		return []byte(`{"id":"chatcmpl-1","choices":[],"usage":{"prompt_tokens":25,"completion_tokens":15,"total_tokens":40,` +
			`"prompt_tokens_details":{"cached_tokens":30,"cache_write_tokens":2,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":7,"audio_tokens":0}}}`)
	case 3:
		return fmt.Appendf(nil, `{"id":"chatcmpl-1","choices":null,"usage":{"prompt_tokens":%d,"completion_tokens":null,"prompt_tokens_details":null,"cost":{"note":%s}}}`, 999999999-len(text), str)
	}
	return []byte(`{"id":"chatcmpl-1","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13,"prompt_tokens_details":{"cached_tokens":4}}}`)
}

// chatOp makes the OpenAI chunk that op stands for: op%10 the kind, op/10%4
// the tool call index (or the variant).
func chatOp(op byte, text string) []byte {
	kind, i := op%10, int(op/10)%4
	str, _ := json.Marshal(text)
	chunk := func(delta string, finish string) []byte {
		return fmt.Appendf(nil, `{"id":"chatcmpl-1","object":"chat.completion.chunk","model":"gpt","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`, delta, finish)
	}
	switch kind {
	case 0:
		return chunk(fmt.Sprintf(`{"content":%s}`, str), "null")
	case 1:
		return chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":"call_%d","type":"function","function":{"name":%s,"arguments":""}}]}`, i, i, str), "null")
	case 2:
		return chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]}`, i, str), "null")
	case 3:
		return chunk(fmt.Sprintf(`{"reasoning_content":%s}`, str), "null")
	case 4:
		return chunk(fmt.Sprintf(`{"refusal":%s}`, str), "null")
	case 5:
		return chunk(`{}`, fmt.Sprintf("%q", [...]string{"stop", "tool_calls", "length", "content_filter"}[i]))
	case 6: // the usage: see usageOp
		return usageOp(i, text)
	case 7:
		return []byte("[DONE]")
	case 8:
		return fmt.Appendf(nil, `{"error":{"message":%s,"type":"server_error"}}`, str)
	}
	return fmt.Appendf(nil, `{"id":"chatcmpl-1","choices":[{"index":%d,"delta":{"content":%s}}]}`, i, str)
}
