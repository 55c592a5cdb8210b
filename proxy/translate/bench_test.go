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
		if _, err := ChatToMessages(body, "claude"); err != nil {
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
		if _, err := MessagesToChat(body, "gpt", true); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMessagesResponseToChat(b *testing.B) {
	body := readTestdata(b, "testdata/response_messages_to_chat/tool_use_parallel.in.json")
	for b.Loop() {
		if _, _, err := MessagesResponseToChat(body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMessagesToChatStreamTextDelta converts one text_delta event, the
// commonest event of a stream.
func BenchmarkMessagesToChatStreamTextDelta(b *testing.B) {
	s := NewMessagesToChatStream(true)
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

// BenchmarkChatToMessagesStreamContent converts one content chunk.
func BenchmarkChatToMessagesStreamContent(b *testing.B) {
	s := NewChatToMessagesStream()
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
		if _, err := MessagesToChat(body, "gpt", true); err != nil {
			b.Fatal(err)
		}
	}
}
