package translate

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Fuzz targets: no input may make a translator panic or hang, and whatever
// it produces must be valid JSON, or a well-formed stream of valid JSON
// events. The seed corpus is every golden input in testdata (plus
// testdata/fuzz/<target> for what a run found).
//
//	go test -run '^$' -fuzz FuzzChatToMessages -fuzztime 60s ./proxy/translate

func addSeeds(f *testing.F, pattern string) {
	f.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", pattern))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seeds for %s (%v)", pattern, err)
	}
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

func FuzzChatToMessages(f *testing.F) {
	addSeeds(f, "chat_to_messages/*.in.json")
	addSeeds(f, "messages_to_chat/*.in.json") // the other shape is a fine mutation source
	f.Fuzz(func(t *testing.T, body []byte) {
		out, err := Request(Chat, Messages, body, "claude", Options{})
		checkRequestOutcome(t, out, err)
	})
}

func FuzzMessagesToChat(f *testing.F) {
	addSeeds(f, "messages_to_chat/*.in.json")
	addSeeds(f, "chat_to_messages/*.in.json")
	f.Fuzz(func(t *testing.T, body []byte) {
		out, err := Request(Messages, Chat, body, "gpt", Options{IncludeUsage: true})
		checkRequestOutcome(t, out, err)
		checkMarshalChatRequest(t, body)
	})
}

func checkRequestOutcome(t *testing.T, out []byte, err error) {
	t.Helper()
	var re *RequestError
	switch {
	case err != nil && !errors.As(err, &re):
		t.Fatalf("error is not a *RequestError: %v", err)
	case err != nil && out != nil:
		t.Fatalf("output %q beside the error %v", out, err)
	case err == nil && !json.Valid(out):
		t.Fatalf("output is not JSON: %q", out)
	}
}

func FuzzResponses(f *testing.F) {
	addSeeds(f, "response_messages_to_chat/*.in.json")
	addSeeds(f, "response_chat_to_messages/*.in.json")
	f.Fuzz(func(t *testing.T, body []byte) {
		if out, _, err := Answer(Messages, Chat, body); err == nil && !json.Valid(out) {
			t.Fatalf("Answer(Messages, Chat) gave invalid JSON: %q", out)
		}
		if out, _, err := Answer(Chat, Messages, body); err == nil && !json.Valid(out) {
			t.Fatalf("Answer(Chat, Messages) gave invalid JSON: %q", out)
		}
		for _, status := range []int{400, 429, 529} {
			if out := Error(Chat, status, body); !json.Valid(out) {
				t.Fatalf("Error(Chat) gave invalid JSON: %q", out)
			}
			if out := Error(Messages, status, body); !json.Valid(out) {
				t.Fatalf("Error(Messages) gave invalid JSON: %q", out)
			}
		}
	})
}

// The stream targets read the fuzzer's bytes as an SSE stream and feed its
// events one by one, as the gateway does, then end it with Finish and, in a
// second converter, with Error. Every call must return complete events, and
// the whole must be a well-formed stream in the caller's protocol.

func FuzzMessagesToChatStream(f *testing.F) {
	addSeeds(f, "stream_messages_to_chat/*.in.sse")
	f.Fuzz(func(t *testing.T, stream []byte) {
		for _, end := range []func(s streamConverter) []byte{finish, fail} {
			out := fuzzFeed(t, mustStream(Messages, Chat, Options{IncludeUsage: true}), stream, end)
			if _, err := readChatStream(out); err != nil {
				t.Fatalf("%v\n--- output\n%s", err, out)
			}
		}
		checkFastPath(t, streamConverters["stream_messages_to_chat"], stream)
	})
}

func FuzzChatToMessagesStream(f *testing.F) {
	addSeeds(f, "stream_chat_to_messages/*.in.sse")
	f.Fuzz(func(t *testing.T, stream []byte) {
		for _, end := range []func(s streamConverter) []byte{finish, fail} {
			out := fuzzFeed(t, mustStream(Chat, Messages, Options{InputEstimate: goldenEstimate}), stream, end)
			if _, err := readMessagesStream(out); err != nil {
				t.Fatalf("%v\n--- output\n%s", err, out)
			}
		}
		checkFastPath(t, streamConverters["stream_chat_to_messages"], stream)
	})
}

func finish(s streamConverter) []byte { return s.Finish() }
func fail(s streamConverter) []byte   { return s.Error(errors.New("cut")) }

// fuzzFeed feeds every event, going on after errors (a converter must stay
// consistent even if the gateway did not stop), then ends the stream.
func fuzzFeed(t *testing.T, s streamConverter, stream []byte, end func(streamConverter) []byte) []byte {
	t.Helper()
	var all []byte
	for _, ev := range parseSSE(stream) {
		out, _ := s.Event(ev.name, ev.data)
		if _, err := splitEvents(out); err != nil {
			t.Fatal(err)
		}
		all = append(all, out...)
	}
	out := end(s)
	if _, err := splitEvents(out); err != nil {
		t.Fatal(err)
	}
	return append(all, out...)
}
