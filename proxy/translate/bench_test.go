package translate

import (
	"testing"
)

// Benchmarks of the hot path: one request translation per proxied call, one
// stream event per upstream chunk. Run with -benchmem.

func BenchmarkChatToMessages(b *testing.B) {
	body := readTestdata(b, "testdata/chat_to_messages/tool_round_trip.in.json")
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := Request(Chat, Messages, body, "claude", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMessagesToChatClaudeCode translates Claude Code's request: 24
// tools, system blocks, about 19 kB.
func BenchmarkMessagesToChatClaudeCode(b *testing.B) {
	body := readTestdata(b, "testdata/messages_to_chat/claude_code.in.json")
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := Request(Messages, Chat, body, "gpt", Options{IncludeUsage: true}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMessagesResponseToChat(b *testing.B) {
	body := readTestdata(b, "testdata/response_messages_to_chat/tool_use_parallel.in.json")
	for b.Loop() {
		if _, _, err := Answer(Messages, Chat, body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMessagesToChatStreamTextDelta converts one text_delta event, the
// commonest event of a stream.
func BenchmarkMessagesToChatStreamTextDelta(b *testing.B) {
	s := mustStream(Messages, Chat, Options{IncludeUsage: true})
	for _, ev := range []string{
		`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[],"usage":{"input_tokens":10,"output_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
	} {
		if _, err := s.Event("", []byte(ev)); err != nil {
			b.Fatal(err)
		}
	}
	data := []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello, this is a typical streamed fragment."}}`)
	for b.Loop() {
		if _, err := s.Event("content_block_delta", data); err != nil {
			b.Fatal(err)
		}
	}
}

// benchEstimate is the gateway's estimate of the prompt of a benchmark
// stream, as it passes it to NewStream(Chat, Messages).
const benchEstimate = 320

// BenchmarkChatToMessagesStreamContent converts one content chunk.
func BenchmarkChatToMessagesStreamContent(b *testing.B) {
	s := mustStream(Chat, Messages, Options{InputEstimate: benchEstimate})
	data := []byte(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Hello, this is a typical streamed fragment."},"logprobs":null,"finish_reason":null}]}`)
	if _, err := s.Event("", data); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.Event("", data); err != nil {
			b.Fatal(err)
		}
	}
}

// benchMessagesRequest is the gateway's own benchmark request
// (proxy/serve_bench_test.go): a short tool round trip, the common size.
const benchMessagesRequest = `{"model":"gpt-4o","max_tokens":1024,"system":"You are a coding agent. Follow the repository's conventions.",` +
	`"messages":[{"role":"user","content":"Please refactor the function below.\n\nfunc f() {}"},` +
	`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path":"main.go"}}]},` +
	`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"package main\n"}]},` +
	`{"role":"user","content":"Now also add a test."}],` +
	`"tools":[{"name":"read_file","description":"Read a file","input_schema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]}`

// BenchmarkMessagesToChatShort translates benchMessagesRequest.
func BenchmarkMessagesToChatShort(b *testing.B) {
	body := []byte(benchMessagesRequest)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := Request(Messages, Chat, body, "gpt", Options{IncludeUsage: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// benchChatStream is the stream of the gateway's own benchmark upstream
// (benchStreamEvents in proxy/serve_bench_test.go): 20 content chunks, a
// finish chunk with the usage, and [DONE].
func benchChatStream() [][]byte {
	var events [][]byte
	for i := range 20 {
		events = append(events, []byte(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o",`+
			`"choices":[{"index":0,"delta":{"content":"word `+string(rune('a'+i))+` "},"finish_reason":null}]}`))
	}
	return append(events, []byte(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o",`+
		`"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":320,"completion_tokens":20,"total_tokens":340}}`),
		[]byte("[DONE]"))
}

// BenchmarkChatToMessagesStreamWhole converts benchChatStream, start and
// finish included.
func BenchmarkChatToMessagesStreamWhole(b *testing.B) {
	events := benchChatStream()
	for b.Loop() {
		s := mustStream(Chat, Messages, Options{InputEstimate: benchEstimate})
		for _, ev := range events {
			if _, err := s.Event("", ev); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// benchCompletion is the answer of the gateway's own benchmark upstream
// (proxy/serve_bench_test.go).
const benchCompletion = `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-2024-08-06",` +
	`"choices":[{"index":0,"message":{"role":"assistant","content":"Here is the shorter function, with a test."},` +
	`"finish_reason":"stop"}],"usage":{"prompt_tokens":320,"completion_tokens":12,"total_tokens":332}}`

func BenchmarkChatResponseToMessages(b *testing.B) {
	body := []byte(benchCompletion)
	for b.Loop() {
		if _, _, err := Answer(Chat, Messages, body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMessagesToChatStreamWhole converts an Anthropic stream of 20
// text deltas, start and end included, for a caller that asked for usage.
func BenchmarkMessagesToChatStreamWhole(b *testing.B) {
	events := benchMessagesStream()
	for b.Loop() {
		s := mustStream(Messages, Chat, Options{IncludeUsage: true})
		for _, ev := range events {
			if _, err := s.Event(ev[0], []byte(ev[1])); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// benchMessagesStream is an Anthropic stream of 20 text deltas, start and
// end included, each event by its name and data.
func benchMessagesStream() [][2]string {
	events := [][2]string{
		{"message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[],"usage":{"input_tokens":320,"output_tokens":1}}}`},
		{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
	}
	for i := range 20 {
		events = append(events, [2]string{"content_block_delta",
			`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"word ` + string(rune('a'+i)) + ` "}}`})
	}
	events = append(events, [2]string{"content_block_stop", `{"type":"content_block_stop","index":0}`},
		[2]string{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":20}}`},
		[2]string{"message_stop", `{"type":"message_stop"}`})
	return events
}
