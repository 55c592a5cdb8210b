package translate

import (
	"encoding/json"
	"fmt"
	"testing"
)

// Fuzz targets of the Responses translators, as in fuzz_test.go: no input
// may make them panic or hang; requests give valid JSON or a *RequestError;
// streams, fed event by event and ended with Finish or Error, must be
// well-formed Responses streams (see readResponsesStream).
//
//	go test -run '^$' -fuzz FuzzMessagesToResponsesStream -fuzztime 60s ./proxy/translate

func FuzzResponsesToChat(f *testing.F) {
	addSeeds(f, "responses_requests/*.in.json")
	f.Fuzz(func(t *testing.T, body []byte) {
		out, err := Request(Responses, Chat, body, "gpt", Options{IncludeUsage: true})
		checkRequestOutcome(t, out, err)
	})
}

func FuzzResponsesToMessages(f *testing.F) {
	addSeeds(f, "responses_requests/*.in.json")
	f.Fuzz(func(t *testing.T, body []byte) {
		out, err := Request(Responses, Messages, body, "claude", Options{})
		checkRequestOutcome(t, out, err)
	})
}

func FuzzResponsesAnswers(f *testing.F) {
	addSeeds(f, "responses_answer_chat/*.in.json")
	addSeeds(f, "responses_answer_messages/*.in.json")
	f.Fuzz(func(t *testing.T, body []byte) {
		for name, translate := range map[string]func([]byte) ([]byte, Usage, error){
			"Answer(Chat, Responses)":     answerFunc(Chat, Responses),
			"Answer(Messages, Responses)": answerFunc(Messages, Responses),
		} {
			out, _, err := translate(body)
			if err != nil {
				continue
			}
			var r responsesFinalIn
			if err := json.Unmarshal(out, &r); err != nil || r.Object != "response" || r.Output == nil || r.Usage == nil {
				t.Fatalf("%s gave no response object: %v: %q", name, err, out)
			}
		}
		if out := Error(Responses, 500, body); !json.Valid(out) {
			t.Fatalf("Error(Responses) gave invalid JSON: %q", out)
		}
		ResponsesUsage(body)
	})
}

func FuzzChatToResponsesStream(f *testing.F) {
	addSeeds(f, "responses_stream_chat/*.in.sse")
	f.Fuzz(func(t *testing.T, stream []byte) {
		for _, end := range []func(s streamConverter) []byte{finish, fail} {
			out := fuzzFeed(t, mustStream(Chat, Responses, Options{}), stream, end)
			if _, err := readResponsesStream(out); err != nil {
				t.Fatalf("%v\n--- output\n%s", err, out)
			}
		}
		checkFastPath(t, streamConverters["responses_stream_chat"], stream)
	})
}

func FuzzMessagesToResponsesStream(f *testing.F) {
	addSeeds(f, "responses_stream_messages/*.in.sse")
	f.Fuzz(func(t *testing.T, stream []byte) {
		for _, end := range []func(s streamConverter) []byte{finish, fail} {
			out := fuzzFeed(t, mustStream(Messages, Responses, Options{}), stream, end)
			if _, err := readResponsesStream(out); err != nil {
				t.Fatalf("%v\n--- output\n%s", err, out)
			}
		}
		checkFastPath(t, streamConverters["responses_stream_messages"], stream)
	})
}

// The structured targets feed every order of well-formed upstream events
// (see fuzz_ops_test.go), plus, for Anthropic, thinking with signatures.

func FuzzChatToResponsesStreamOps(f *testing.F) {
	f.Add([]byte{0, 0, 5, 6, 7}, "Hello")
	f.Add([]byte{3, 0, 1, 11, 2, 12, 2, 15, 6, 7}, `{"a":`)
	f.Add([]byte{4, 0, 1, 25, 2, 8}, "x")
	f.Fuzz(func(t *testing.T, ops []byte, text string) {
		var stream []byte
		for _, op := range ops {
			stream = fmt.Appendf(stream, "data: %s\n\n", chatOp(op, text))
		}
		for _, end := range []func(s streamConverter) []byte{finish, fail} {
			out := fuzzFeed(t, mustStream(Chat, Responses, Options{}), stream, end)
			if _, err := readResponsesStream(out); err != nil {
				t.Fatalf("%v\n--- input\n%s\n--- output\n%s", err, stream, out)
			}
		}
		checkFastPath(t, streamConverters["responses_stream_chat"], stream)
	})
}

func FuzzMessagesToResponsesStreamOps(f *testing.F) {
	f.Add([]byte{0, 1, 4, 7, 8, 9}, "Hello")
	f.Add([]byte{0, 3, 6, 10, 7, 12, 15, 17, 18, 9}, `{"a":`)
	f.Add([]byte{4, 5, 7, 3, 6, 9, 29, 0, 10, 20}, "x")
	f.Fuzz(func(t *testing.T, ops []byte, text string) {
		var stream []byte
		for _, op := range ops {
			name, data := anthropicOp(op, text)
			if op%10 == 9 && op/10%4 == 3 { // the spare variant: a signature for a thinking block
				name, data = "content_block_delta", fmt.Appendf(nil, `{"type":"content_block_delta","index":%d,"delta":{"type":"signature_delta","signature":"sig"}}`, op/40%4)
			}
			stream = fmt.Appendf(stream, "event: %s\ndata: %s\n\n", name, data)
		}
		for _, end := range []func(s streamConverter) []byte{finish, fail} {
			out := fuzzFeed(t, mustStream(Messages, Responses, Options{}), stream, end)
			if _, err := readResponsesStream(out); err != nil {
				t.Fatalf("%v\n--- input\n%s\n--- output\n%s", err, stream, out)
			}
		}
		checkFastPath(t, streamConverters["responses_stream_messages"], stream)
	})
}
