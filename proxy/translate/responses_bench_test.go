package translate

import "testing"

// Benchmarks of the Responses hot path: one request translation per call,
// one stream event per upstream chunk. Run with -benchmem.

// BenchmarkResponsesToMessagesCodex translates a Codex-shaped request (a
// tool loop with signed thinking) to Anthropic.
func BenchmarkResponsesToMessagesCodex(b *testing.B) {
	body := readTestdata(b, "testdata/responses_requests/codex_tool_round_trip.in.json")
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := Request(Responses, Messages, body, "claude", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkResponsesToChatCodex(b *testing.B) {
	body := readTestdata(b, "testdata/responses_requests/codex_tool_round_trip.in.json")
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := Request(Responses, Chat, body, "gpt", Options{IncludeUsage: true}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMessagesResponseToResponses(b *testing.B) {
	body := readTestdata(b, "testdata/responses_answer_messages/text_tool_use_text.in.json")
	for b.Loop() {
		if _, _, err := Answer(Messages, Responses, body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMessagesToResponsesStreamTextDelta converts one text_delta
// event, the commonest event of a stream.
func BenchmarkMessagesToResponsesStreamTextDelta(b *testing.B) {
	s := mustStream(Messages, Responses, Options{})
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

// BenchmarkChatToResponsesStreamContent converts one content chunk.
func BenchmarkChatToResponsesStreamContent(b *testing.B) {
	s := mustStream(Chat, Responses, Options{})
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
