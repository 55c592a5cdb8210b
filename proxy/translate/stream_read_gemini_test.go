package translate

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// geminiStreamWant is what a Gemini stream must become, in each caller's
// protocol.
type geminiStreamWant struct {
	id, model       string
	text, reasoning string
	refusal         string   // a blocked prompt's; chat has no place for it and gives only the finish_reason
	calls           []string // name and arguments
	signed          []bool   // whether each call's id carries a thoughtSignature
	finish          string
	stop            string
	status          string
	incomplete      string
	usage           Usage
	reasoningTokens int64
	startInput      int64  // message_start's input_tokens
	failure         string // the upstream error's message
	chatError       string // and its shape in each protocol
	messagesError   string
	responsesError  string
}

func TestGeminiStreams(t *testing.T) {
	for _, tc := range []struct {
		file string
		want geminiStreamWant
	}{
		{"stream_tool_calls.sse", geminiStreamWant{id: "TKQ3aYz_D_-W1MkPkpr62QE", model: "gemini-3-pro-preview",
			text:      "I'll look that up.",
			reasoning: "**Checking the weather**\n\nThe user asks about Paris. I should call get_weather, and get_time for the local hour.",
			calls:     []string{`get_weather{"city":"Paris"}`, `get_time{}`}, signed: []bool{true, false},
			finish: "tool_calls", stop: "tool_use", status: "completed",
			usage: Usage{InputTokens: 203, OutputTokens: 31 + 161, ReasoningTokens: 161}, reasoningTokens: 161, startInput: 203}},
		{"stream_text.sse", geminiStreamWant{id: "8KY3acqdKOrH1MkP4Pv2mQc", model: "gemini-2.5-flash",
			text:   "The capital of France is Paris, on the Seine <river>. It has about 2.1 million inhabitants.",
			finish: "stop", stop: "end_turn", status: "completed",
			usage: Usage{InputTokens: 2061, OutputTokens: 21 + 377, CacheReadTokens: 2048, ReasoningTokens: 377}, reasoningTokens: 377, startInput: 2061 - 2048}},
		{"stream_max_tokens.sse", geminiStreamWant{id: "YKk3aZLCFpyK4s8P1c6ZsQQ", model: "gemini-2.0-flash-001",
			text:   "1. alpha\n2. beta\n3.",
			finish: "length", stop: "max_tokens", status: "incomplete", incomplete: "max_output_tokens",
			usage: Usage{InputTokens: 9, OutputTokens: 10}, startInput: 9}},
		{"stream_blocked.sse", geminiStreamWant{id: "2Kg3aaL9EuyW1MkPs8HT0QE", model: "gemini-2.5-flash",
			refusal: "Gemini blocked the prompt (SAFETY)",
			finish:  "content_filter", stop: "refusal", status: "incomplete", incomplete: "content_filter",
			usage: Usage{InputTokens: 17}, startInput: 17}},
		{"stream_error.sse", geminiStreamWant{id: "8KY3acqdKOrH1MkP4Pv2mQc", model: "gemini-2.5-flash",
			text: "Working on it", usage: Usage{InputTokens: 40, OutputTokens: 3}, startInput: 40,
			failure:   "Resource has been exhausted (e.g. check quota).",
			chatError: `"type":"rate_limit_error","param":null,"code":"rate_limit_exceeded"`, messagesError: `"type":"rate_limit_error"`,
			responsesError: `"code":"rate_limit_exceeded"`}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			in := readTestdata(t, "testdata/gemini/"+tc.file)
			checkGeminiChatStream(t, in, &tc.want)
			checkGeminiMessagesStream(t, in, &tc.want)
			checkGeminiResponsesStream(t, in, &tc.want)
		})
	}
}

// feedGemini feeds a Gemini stream to s event by event, as the gateway
// does, up to an upstream error; any other error fails the test, as does a
// usage or an upstream error other than want's (nil: no error, usage
// unchecked).
func feedGemini(t *testing.T, s *Stream, in []byte, want *geminiStreamWant) []byte {
	t.Helper()
	if want == nil {
		want = &geminiStreamWant{usage: Usage{InputTokens: -1}}
	}
	var out []byte
	for i, ev := range parseSSE(in) {
		b, err := s.Event(ev.name, ev.data)
		out = append(out, b...)
		if _, serr := splitEvents(b); serr != nil {
			t.Fatalf("event %d: %v", i, serr)
		}
		var se *StreamError
		switch {
		case errors.As(err, &se):
			if se.Type != "RESOURCE_EXHAUSTED" || se.Message != want.failure {
				t.Errorf("upstream error %+v, want RESOURCE_EXHAUSTED: %s", se, want.failure)
			}
			return out
		case err != nil:
			t.Fatalf("event %d: %v", i, err)
		}
	}
	if want.failure != "" {
		t.Fatal("no upstream error")
	}
	if !s.Done() {
		t.Fatal("Done() is false after the chunk with the finishReason")
	}
	if got := s.Usage(); want.usage.InputTokens >= 0 && (got != want.usage || !s.FinalUsage()) {
		t.Errorf("Usage() %+v (final %v), want %+v", got, s.FinalUsage(), want.usage)
	}
	return out
}

func checkGeminiChatStream(t *testing.T, in []byte, want *geminiStreamWant) {
	t.Helper()
	out := feedGemini(t, mustStream(Gemini, Chat, Options{IncludeUsage: true}), in, want)
	got, err := readChatStream(out)
	if err != nil {
		t.Fatalf("chat: %v\n%s", err, out)
	}
	var calls []string
	for _, c := range got.ToolCalls {
		calls = append(calls, c.Function.Name+c.Function.Arguments)
	}
	switch {
	case got.Content != want.text || got.Reasoning != want.reasoning || !reflect.DeepEqual(calls, want.calls):
		t.Errorf("chat: content %q, reasoning %q, calls %v", got.Content, got.Reasoning, calls)
	case want.failure != "":
		if got.Error != want.failure || !strings.Contains(lastEvent(out), want.chatError) {
			t.Errorf("chat: error %q in %s", got.Error, lastEvent(out))
		}
	case got.FinishReason != want.finish || !got.Done:
		t.Errorf("chat: finish_reason %q, [DONE] %v", got.FinishReason, got.Done)
	case got.Usage == nil || got.Usage.usage() != want.usage:
		t.Errorf("chat: usage %+v", got.Usage)
	}
	for i, c := range got.ToolCalls {
		if signed := geminiSignature(c.ID) != ""; signed != want.signed[i] || !strings.HasPrefix(c.ID, geminiCallPrefix+geminiTag(want.id)) {
			t.Errorf("chat: call %d has id %q (signed %v)", i, c.ID, signed)
		}
	}
}

func checkGeminiMessagesStream(t *testing.T, in []byte, want *geminiStreamWant) {
	t.Helper()
	out := feedGemini(t, mustStream(Gemini, Messages, Options{InputEstimate: 99}), in, want)
	got, err := readMessagesStream(out)
	if err != nil {
		t.Fatalf("messages: %v\n%s", err, out)
	}
	var text string
	var calls []string
	for _, b := range got.Blocks {
		switch b.Type {
		case "text":
			text += b.Text
		case "tool_use":
			calls = append(calls, b.Name+string(b.Input))
		default:
			t.Errorf("messages: a %s block", b.Type)
		}
	}
	switch {
	case got.ID != "msg_"+want.id || got.Model != want.model:
		t.Errorf("messages: id %q, model %q", got.ID, got.Model)
	case text != want.text+want.refusal || !reflect.DeepEqual(calls, want.calls):
		t.Errorf("messages: text %q, calls %v", text, calls)
	case !strings.Contains(string(out), `"usage":{"input_tokens":`+strconv.FormatInt(want.startInput, 10)+`,`):
		t.Errorf("messages: message_start without Gemini's input count %d", want.startInput)
	case want.failure != "":
		if got.Error != want.failure || !strings.Contains(lastEvent(out), want.messagesError) {
			t.Errorf("messages: error %q in %s", got.Error, lastEvent(out))
		}
	case got.StopReason != want.stop || !got.Stopped:
		t.Errorf("messages: stop_reason %q, stopped %v", got.StopReason, got.Stopped)
	case got.Usage.usage() != noReasoning(want.usage):
		t.Errorf("messages: usage %+v", got.Usage)
	}
}

func checkGeminiResponsesStream(t *testing.T, in []byte, want *geminiStreamWant) {
	t.Helper()
	out := feedGemini(t, mustStream(Gemini, Responses, Options{}), in, want)
	got, err := readResponsesStream(out)
	if err != nil {
		t.Fatalf("responses: %v\n%s", err, out)
	}
	var calls []string
	for _, c := range got.Calls {
		calls = append(calls, c.Name+c.Arguments)
	}
	switch {
	case got.ID != "resp_"+want.id || got.Model != want.model:
		t.Errorf("responses: id %q, model %q", got.ID, got.Model)
	case want.failure != "": // the message under way is left open, not done
		if got.Status != "failed" || got.Error == nil || got.Error.Message != want.failure || !strings.Contains(lastEvent(out), want.responsesError) {
			t.Errorf("responses: status %q, error %+v", got.Status, got.Error)
		}
	case got.Text != want.text || got.Reasoning != want.reasoning || got.Refusal != want.refusal || !reflect.DeepEqual(calls, want.calls):
		t.Errorf("responses: text %q, reasoning %q, refusal %q, calls %v", got.Text, got.Reasoning, got.Refusal, calls)
	case got.Status != want.status || got.Incomplete != want.incomplete:
		t.Errorf("responses: status %q, incomplete %q", got.Status, got.Incomplete)
	case got.Usage == nil || got.Usage.usage() != want.usage || got.Usage.OutputTokensDetails.ReasoningTokens != want.reasoningTokens:
		t.Errorf("responses: usage %+v", got.Usage)
	}
}

// TestGeminiStreamIgnores: data that is no chunk of Gemini's is skipped or
// reported, not guessed at.
func TestGeminiStreamIgnores(t *testing.T) {
	s := mustStream(Gemini, Chat, Options{})
	if out, err := s.Event("", []byte("  ")); err != nil || out != nil {
		t.Errorf("empty data: %q, %v", out, err)
	}
	if out, err := s.Event("ping", []byte(`{}`)); err != nil || out != nil {
		t.Errorf("a named event: %q, %v", out, err)
	}
	if _, err := s.Event("", []byte(`{"candidates":`)); err == nil || !strings.Contains(err.Error(), "gemini chunk") {
		t.Errorf("a broken chunk: %v", err)
	}
	if s.Done() {
		t.Error("done without a finishReason")
	}
}

func lastEvent(out []byte) string {
	events, _ := splitEvents(out)
	if len(events) == 0 {
		return ""
	}
	return events[len(events)-1]
}
