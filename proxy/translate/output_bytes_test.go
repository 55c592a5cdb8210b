package translate

import (
	"encoding/json"
	"strings"
	"testing"
)

// partialStream is what the gateway bills a stream by when it is cut.
type partialStream interface {
	streamConverter
	FinalUsage() bool
	OutputBytes() int64
}

// TestOutputBytesCountWhatWasWritten: after every event of a stream, a
// converter's OutputBytes is the length of the text, reasoning and tool
// arguments in the deltas it has written for the caller, and FinalUsage
// turns true only with the upstream's final usage.
func TestOutputBytesCountWhatWasWritten(t *testing.T) {
	for _, tc := range []struct {
		name, path string
		conv       func() partialStream
		finalAt    string // the event that brings the final usage
	}{
		{"messages to chat, tools", "testdata/stream_messages_to_chat/tool_use_parallel.in.sse",
			func() partialStream { return mustStream(Messages, Chat, Options{IncludeUsage: true}) }, "message_delta"},
		{"messages to chat, thinking", "testdata/stream_messages_to_chat/thinking_then_text.in.sse",
			func() partialStream { return mustStream(Messages, Chat, Options{IncludeUsage: true}) }, "message_delta"},
		{"chat to messages, tools", "testdata/stream_chat_to_messages/tool_calls_parallel.in.sse",
			func() partialStream { return mustStream(Chat, Messages, Options{InputEstimate: goldenEstimate}) }, `"usage":{`},
		{"chat to messages, reasoning dropped", "testdata/stream_chat_to_messages/reasoning_then_text.in.sse",
			func() partialStream { return mustStream(Chat, Messages, Options{InputEstimate: goldenEstimate}) }, `"usage":{`},
		{"messages to responses, thinking", "testdata/stream_messages_to_chat/thinking_then_text.in.sse",
			func() partialStream { return mustStream(Messages, Responses, Options{}) }, "message_delta"},
		{"chat to responses, reasoning", "testdata/stream_chat_to_messages/reasoning_then_text.in.sse",
			func() partialStream { return mustStream(Chat, Responses, Options{}) }, `"usage":{`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.conv()
			var out []byte
			final := false
			for i, ev := range parseSSE(readTestdata(t, tc.path)) {
				b, err := s.Event(ev.name, ev.data)
				if err != nil {
					t.Fatalf("event %d: %v", i, err)
				}
				out = append(out, b...)
				final = final || ev.name == tc.finalAt || strings.Contains(string(ev.data), tc.finalAt)
				if got, want := s.OutputBytes(), deltaBytes(t, out); got != want {
					t.Fatalf("after event %d: OutputBytes() = %d, the deltas written hold %d", i, got, want)
				}
				if s.FinalUsage() != final {
					t.Fatalf("after event %d (%s): FinalUsage() = %v, want %v", i, ev.name, s.FinalUsage(), final)
				}
			}
			if !final || s.OutputBytes() == 0 {
				t.Fatalf("the stream had no final usage (%v) or no output (%d)", final, s.OutputBytes())
			}
		})
	}
}

// deltaBytes adds up the output in a caller's stream: OpenAI's content,
// reasoning_content and tool-call arguments, Anthropic's text, thinking and
// partial_json deltas, Responses' delta events (their done events repeat
// the text and are not counted).
func deltaBytes(t *testing.T, out []byte) int64 {
	t.Helper()
	var n int
	for _, ev := range parseSSE(out) {
		if string(ev.data) == "[DONE]" {
			continue
		}
		var v struct {
			Type    string `json:"type"`
			Choices []struct {
				Delta chatDelta `json:"delta"`
			} `json:"choices"`
			Delta json.RawMessage `json:"delta"`
		}
		if err := json.Unmarshal(ev.data, &v); err != nil {
			t.Fatalf("%s: %v", ev.data, err)
		}
		switch {
		case len(v.Choices) > 0:
			n += int(v.Choices[0].Delta.outputBytes())
		case v.Type == "content_block_delta":
			var d struct {
				Text        string `json:"text"`
				Thinking    string `json:"thinking"`
				PartialJSON string `json:"partial_json"`
			}
			json.Unmarshal(v.Delta, &d) //nolint:errcheck // checked as a whole above
			n += len(d.Text) + len(d.Thinking) + len(d.PartialJSON)
		case strings.HasSuffix(v.Type, ".delta"):
			var d string
			json.Unmarshal(v.Delta, &d) //nolint:errcheck // checked as a whole above
			n += len(d)
		}
	}
	return int64(n)
}
