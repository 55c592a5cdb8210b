package translate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

// feedEach feeds a stream event by event, checks that every call returns
// only complete events, and returns all output.
func feedEach(t *testing.T, s streamConverter, in []byte) []byte {
	t.Helper()
	var all []byte
	for i, ev := range parseSSE(in) {
		out, err := s.Event(ev.name, ev.data)
		if err != nil {
			t.Fatalf("event %d (%s): %v", i, ev.name, err)
		}
		if _, err := splitEvents(out); err != nil {
			t.Fatalf("event %d (%s): %v", i, ev.name, err)
		}
		all = append(all, out...)
	}
	if !s.Done() {
		t.Fatal("Done() is false after the upstream's last event")
	}
	return all
}

func readTestdata(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestMessagesToChatStreamToolCalls(t *testing.T) {
	s := mustStream(Messages, Chat, Options{IncludeUsage: true})
	out := feedEach(t, s, readTestdata(t, "testdata/stream_messages_to_chat/tool_use_parallel.in.sse"))
	got, err := readChatStream(out)
	if err != nil {
		t.Fatal(err)
	}
	want := chatResult{
		Content: "Checking.",
		ToolCalls: []chatToolCall{
			{ID: "toolu_01Paris", Type: "function", Function: chatFunctionCall{Name: "get_weather", Arguments: `{"city": "Paris"}`}},
			{ID: "toolu_02Rome", Type: "function", Function: chatFunctionCall{Name: "get_weather", Arguments: `{"city":"Rome"}`}},
			{ID: "toolu_03Time", Type: "function", Function: chatFunctionCall{Name: "get_time", Arguments: `{}`}},
		},
		FinishReason: "tool_calls",
		Usage:        &chatUsage{PromptTokens: 25, CompletionTokens: 80, TotalTokens: 105, PromptTokensDetails: &chatPromptDetails{}},
		Done:         true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("assembled stream\n got %+v\nwant %+v", got, want)
	}
	if u, want := s.Usage(), (Usage{InputTokens: 25, OutputTokens: 80}); u != want {
		t.Errorf("Usage() = %+v, want %+v", u, want)
	}
}

func TestMessagesToChatStreamCacheUsage(t *testing.T) {
	s := mustStream(Messages, Chat, Options{})
	out := feedEach(t, s, readTestdata(t, "testdata/stream_messages_to_chat/cache_usage_cumulative.in.sse"))
	got, err := readChatStream(out)
	if err != nil {
		t.Fatal(err)
	}
	if got.Usage != nil {
		t.Errorf("usage chunk sent although the caller did not ask: %+v", got.Usage)
	}
	if got.Content != "Hi" || got.FinishReason != "stop" || !got.Done {
		t.Errorf("assembled %+v", got)
	}
	want := Usage{InputTokens: 2312, OutputTokens: 9, CacheReadTokens: 2000, CacheWriteTokens: 300}
	if u := s.Usage(); u != want {
		t.Errorf("Usage() = %+v, want %+v", u, want)
	}
}

func TestChatToMessagesStreamToolCalls(t *testing.T) {
	s := mustStream(Chat, Messages, Options{InputEstimate: goldenEstimate})
	out := feedEach(t, s, readTestdata(t, "testdata/stream_chat_to_messages/tool_calls_parallel.in.sse"))
	got, err := readMessagesStream(out)
	if err != nil {
		t.Fatal(err)
	}
	want := messagesResult{
		ID: "msg_Str3am", Model: "gpt-4o-2024-08-06",
		Blocks: []anthropicBlock{
			{Type: "text", Text: "Checking."},
			{Type: "tool_use", ID: "call_paris_01", Name: "get_weather", Input: json.RawMessage(`{"city": "Paris"}`)},
			{Type: "tool_use", ID: "call_rome_02", Name: "get_weather", Input: json.RawMessage(`{"city":"Rome"}`)},
			{Type: "tool_use", ID: "call_time_03", Name: "get_time", Input: json.RawMessage(`{}`)},
		},
		StopReason: "tool_use",
		Usage:      anthropicUsage{InputTokens: 80, OutputTokens: 40},
		Stopped:    true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("assembled stream\n got %+v\nwant %+v", got, want)
	}
	if u, want := s.Usage(), (Usage{InputTokens: 80, OutputTokens: 40}); u != want {
		t.Errorf("Usage() = %+v, want %+v", u, want)
	}
}

func TestChatToMessagesStreamCachedUsage(t *testing.T) {
	s := mustStream(Chat, Messages, Options{InputEstimate: goldenEstimate})
	out := feedEach(t, s, readTestdata(t, "testdata/stream_chat_to_messages/length_cached_usage.in.sse"))
	got, err := readMessagesStream(out)
	if err != nil {
		t.Fatal(err)
	}
	// OpenAI's 2312 prompt tokens include the 2000 cached; Anthropic's input_tokens do not.
	want := anthropicUsage{InputTokens: 312, CacheReadInputTokens: 2000, OutputTokens: 3}
	if got.Usage != want || got.StopReason != "max_tokens" {
		t.Errorf("usage %+v stop %q, want %+v max_tokens", got.Usage, got.StopReason, want)
	}
}

// TestChatToMessagesStreamStartUsage: message_start carries an input count
// whatever the upstream does, since some clients read it there alone: the
// upstream's when its first chunk has one, the estimate otherwise; and
// message_delta never takes the estimate back to zero.
func TestChatToMessagesStreamStartUsage(t *testing.T) {
	cases := []struct {
		file           string
		start, end     anthropicUsage
		wantFinalUsage bool
	}{
		{"text", anthropicUsage{InputTokens: 42}, anthropicUsage{InputTokens: 25, OutputTokens: 15}, true},
		{"length_cached_usage", anthropicUsage{InputTokens: 42},
			anthropicUsage{InputTokens: 312, CacheReadInputTokens: 2000, OutputTokens: 3}, true},
		{"usage_in_every_chunk", anthropicUsage{InputTokens: 25}, anthropicUsage{InputTokens: 25, OutputTokens: 3}, true},
		{"no_usage_at_all", anthropicUsage{InputTokens: 42}, anthropicUsage{InputTokens: 42}, false},
	}
	for _, tc := range cases {
		for _, general := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s general=%v", tc.file, general), func(t *testing.T) {
				s := mustStream(Chat, Messages, Options{InputEstimate: 42})
				setGeneral(s, general)
				out := feedEach(t, s, readTestdata(t, "testdata/stream_chat_to_messages/"+tc.file+".in.sse"))
				var start anthropicEvent
				if err := json.Unmarshal(parseSSE(out)[0].data, &start); err != nil || start.Message == nil {
					t.Fatalf("first event %s: %v", parseSSE(out)[0].data, err)
				}
				if got := start.Message.Usage; got != tc.start {
					t.Errorf("message_start usage %+v, want %+v", got, tc.start)
				}
				got, err := readMessagesStream(out)
				if err != nil {
					t.Fatal(err)
				}
				if got.Usage != tc.end {
					t.Errorf("usage at the end %+v, want %+v", got.Usage, tc.end)
				}
				if s.FinalUsage() != tc.wantFinalUsage || !tc.wantFinalUsage && s.Usage() != (Usage{}) {
					t.Errorf("FinalUsage %v, Usage %+v: the estimate must not count as the upstream's", s.FinalUsage(), s.Usage())
				}
			})
		}
	}
}

// TestStreamRoundTrip sends an Anthropic stream through both converters:
// what an Anthropic client assembles at the end must be what it would have
// assembled from the original, less the thinking (OpenAI callers get it as
// reasoning_content, which goes no further, see messagesWriter).
func TestStreamRoundTrip(t *testing.T) {
	for _, name := range []string{"text", "tool_use_parallel", "thinking_then_text", "cache_usage_cumulative", "max_tokens"} {
		t.Run(name, func(t *testing.T) {
			in := readTestdata(t, "testdata/stream_messages_to_chat/"+name+".in.sse")
			want, err := readMessagesStream(in)
			if err != nil {
				t.Fatalf("the input itself: %v", err)
			}
			chat := feedEach(t, mustStream(Messages, Chat, Options{IncludeUsage: true}), in)
			back := feedEach(t, mustStream(Chat, Messages, Options{InputEstimate: goldenEstimate}), chat)
			got, err := readMessagesStream(back)
			if err != nil {
				t.Fatal(err)
			}
			want.Blocks = withoutThinking(want.Blocks)
			for i := range want.Blocks {
				if want.Blocks[i].Type == "tool_use" && len(want.Blocks[i].Input) == 0 {
					want.Blocks[i].Input = json.RawMessage("{}") // OpenAI says "{}" for no arguments
				}
			}
			want.ID, got.ID = "", ""
			if !reflect.DeepEqual(got, want) {
				t.Errorf("after the round trip\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

func withoutThinking(blocks []anthropicBlock) []anthropicBlock {
	var out []anthropicBlock
	for _, b := range blocks {
		if b.Type != "thinking" && b.Type != "redacted_thinking" {
			out = append(out, b)
		}
	}
	return out
}

// TestStreamCutEndsWithError: an upstream that stops mid-way must leave the
// caller with a stream that ends in its protocol's error event.
func TestStreamCutEndsWithError(t *testing.T) {
	cut := errors.New("upstream connection reset")
	t.Run("anthropic upstream, openai caller", func(t *testing.T) {
		s := mustStream(Messages, Chat, Options{IncludeUsage: true})
		var out []byte
		for _, ev := range parseSSE(readTestdata(t, "testdata/stream_messages_to_chat/tool_use_parallel.in.sse"))[:6] {
			b, err := s.Event(ev.name, ev.data)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b...)
		}
		if s.Done() {
			t.Fatal("Done() before message_stop")
		}
		out = append(out, s.Error(cut)...)
		got, err := readChatStream(out)
		if err != nil {
			t.Fatal(err)
		}
		if got.Error != cut.Error() || got.Done || got.FinishReason != "" {
			t.Errorf("want the error %q as the end, without finish_reason or [DONE]; got %+v", cut, got)
		}
		if !strings.HasSuffix(string(out), "\n\n") || !strings.Contains(string(out), `"type":"server_error"`) {
			t.Errorf("last event: %s", tail(out))
		}
	})
	t.Run("openai upstream, anthropic caller", func(t *testing.T) {
		s := mustStream(Chat, Messages, Options{InputEstimate: goldenEstimate})
		var out []byte
		for _, ev := range parseSSE(readTestdata(t, "testdata/stream_chat_to_messages/tool_calls_parallel.in.sse"))[:3] {
			b, err := s.Event(ev.name, ev.data)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b...)
		}
		out = append(out, s.Error(cut)...)
		got, err := readMessagesStream(out)
		if err != nil {
			t.Fatal(err)
		}
		if got.Error != cut.Error() || got.Stopped {
			t.Errorf("want the error %q as the end, without message_stop; got %+v", cut, got)
		}
	})
}

// TestStreamEnds: the end is written once, whatever ends the stream, and
// nothing follows it.
func TestStreamEnds(t *testing.T) {
	for name, s := range map[string]streamConverter{
		"messages_to_chat": mustStream(Messages, Chat, Options{IncludeUsage: true}),
		"chat_to_messages": mustStream(Chat, Messages, Options{InputEstimate: goldenEstimate}),
	} {
		t.Run(name, func(t *testing.T) {
			first := s.Finish()
			if len(first) == 0 {
				t.Fatal("Finish on an empty stream wrote nothing")
			}
			if b := s.Finish(); b != nil {
				t.Errorf("second Finish wrote %q", b)
			}
			if b := s.Error(errors.New("late")); b != nil {
				t.Errorf("Error after Finish wrote %q", b)
			}
			if b, err := s.Event("", []byte(`{"type":"message_start"}`)); b != nil || err != nil {
				t.Errorf("Event after the end gave %q, %v", b, err)
			}
			// An empty stream finished is still well-formed.
			if _, err := readChatStream(first); name == "messages_to_chat" && err != nil {
				t.Error(err)
			}
			if _, err := readMessagesStream(first); name == "chat_to_messages" && err != nil {
				t.Error(err)
			}
		})
	}
}

// TestStreamUpstreamErrorEvent: an upstream error event is returned as a
// *StreamError, and the caller's error event is in the bytes.
func TestStreamUpstreamErrorEvent(t *testing.T) {
	a := mustStream(Messages, Chat, Options{IncludeUsage: true})
	out, err := a.Event("error", []byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
	var se *StreamError
	if !errors.As(err, &se) || se.Type != "overloaded_error" || se.Message != "Overloaded" {
		t.Errorf("err = %v, want a StreamError overloaded_error", err)
	}
	if got, _ := readChatStream(out); got.Error != "Overloaded" {
		t.Errorf("caller's stream %q lacks the error", out)
	}
	o := mustStream(Chat, Messages, Options{InputEstimate: goldenEstimate})
	out, err = o.Event("", []byte(`{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`))
	if !errors.As(err, &se) || se.Message != "Rate limit reached" {
		t.Errorf("err = %v, want a StreamError", err)
	}
	if want := `"type":"rate_limit_error"`; !strings.Contains(string(out), want) {
		t.Errorf("caller's event %q lacks %s", out, want)
	}
}

// TestStreamMalformedEventsReturnErrors: bad input is reported, not
// swallowed, and the converter stays usable.
func TestStreamMalformedEventsReturnErrors(t *testing.T) {
	a := mustStream(Messages, Chat, Options{})
	for _, data := range []string{`{`, `[]`, `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{"}}`,
		`{"type":"content_block_start","index":0}`} {
		if _, err := a.Event("", []byte(data)); err == nil {
			t.Errorf("no error for %s", data)
		}
	}
	if _, err := a.Event("ping", []byte(`not json`)); err != nil {
		t.Errorf("ping with garbage: %v; want it skipped", err)
	}
	o := mustStream(Chat, Messages, Options{InputEstimate: goldenEstimate})
	if _, err := o.Event("", []byte(`{"choices":[{"index":0,"delta":{"content":5}}]}`)); err == nil {
		t.Error("no error for a numeric content")
	}
}

// TestUsageConversion holds both conversions to the documented convention.
func TestUsageConversion(t *testing.T) {
	a := anthropicUsage{InputTokens: 12, CacheCreationInputTokens: 300, CacheReadInputTokens: 2000, OutputTokens: 7}
	u := a.usage()
	if want := (Usage{InputTokens: 2312, OutputTokens: 7, CacheReadTokens: 2000, CacheWriteTokens: 300}); u != want {
		t.Fatalf("anthropic → Usage = %+v, want %+v", u, want)
	}
	if back := u.anthropic(); back != a {
		t.Errorf("Usage → anthropic = %+v, want %+v", back, a)
	}
	c := u.chat()
	if c.PromptTokens != 2312 || c.CompletionTokens != 7 || c.TotalTokens != 2319 || c.PromptTokensDetails.CachedTokens != 2000 {
		t.Errorf("Usage → openai = %+v", c)
	}
	if back := c.usage(); back != u {
		t.Errorf("openai → Usage = %+v, want %+v", back, u)
	}
	// An upstream that reports more cached than prompt tokens never yields a negative count.
	if got := (Usage{InputTokens: 10, CacheReadTokens: 20}).anthropic().InputTokens; got != 0 {
		t.Errorf("input_tokens = %d, want 0", got)
	}
}
