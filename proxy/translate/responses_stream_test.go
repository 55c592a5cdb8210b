package translate

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestMessagesToResponsesStreamToolCalls(t *testing.T) {
	s := mustStream(Messages, Responses, Options{})
	out := feedEach(t, s, readTestdata(t, "testdata/stream_messages_to_chat/tool_use_parallel.in.sse"))
	got, err := readResponsesStream(out)
	if err != nil {
		t.Fatal(err)
	}
	wantCalls := []functionCallItem{
		{Type: "function_call", ID: "fc_01Stream_1", CallID: "toolu_01Paris", Name: "get_weather", Arguments: `{"city": "Paris"}`, Status: "completed"},
		{Type: "function_call", ID: "fc_01Stream_2", CallID: "toolu_02Rome", Name: "get_weather", Arguments: `{"city":"Rome"}`, Status: "completed"},
		{Type: "function_call", ID: "fc_01Stream_3", CallID: "toolu_03Time", Name: "get_time", Arguments: `{}`, Status: "completed"},
	}
	if got.ID != "resp_01Stream" || got.Text != "Checking." || got.Status != "completed" || !reflect.DeepEqual(got.Calls, wantCalls) {
		t.Errorf("assembled stream %+v\nwant text %q and calls %+v", got, "Checking.", wantCalls)
	}
	if want := (responsesUsage{InputTokens: 25, OutputTokens: 80, TotalTokens: 105}); *got.Usage != want {
		t.Errorf("usage %+v, want %+v", *got.Usage, want)
	}
	if u, want := s.Usage(), (Usage{InputTokens: 25, OutputTokens: 80}); u != want {
		t.Errorf("Usage() = %+v, want %+v", u, want)
	}
}

func TestChatToResponsesStreamToolCalls(t *testing.T) {
	s := mustStream(Chat, Responses, Options{})
	out := feedEach(t, s, readTestdata(t, "testdata/stream_chat_to_messages/tool_calls_parallel.in.sse"))
	got, err := readResponsesStream(out)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, c := range got.Calls {
		calls = append(calls, c.CallID, c.Name, c.Arguments)
	}
	want := []string{"call_paris_01", "get_weather", `{"city": "Paris"}`, "call_rome_02", "get_weather", `{"city":"Rome"}`, "call_time_03", "get_time", "{}"}
	if got.Text != "Checking." || got.Status != "completed" || !reflect.DeepEqual(calls, want) {
		t.Errorf("assembled text %q, status %q, calls %q; want %q", got.Text, got.Status, calls, want)
	}
	if u, want := s.Usage(), (Usage{InputTokens: 80, OutputTokens: 40}); u != want || got.Usage.usage() != want {
		t.Errorf("Usage() = %+v, response usage %+v; want %+v", u, got.Usage, want)
	}
}

func TestResponsesStreamCachedAndReasoningUsage(t *testing.T) {
	c := mustStream(Chat, Responses, Options{})
	got, err := readResponsesStream(feedEach(t, c, readTestdata(t, "testdata/responses_stream_chat/openrouter_reasoning_tokens.in.sse")))
	if err != nil {
		t.Fatal(err)
	}
	want := responsesUsage{InputTokens: 14, InputTokensDetails: responsesInputDetails{CachedTokens: 8}, OutputTokens: 30,
		OutputTokensDetails: responsesOutputDetails{ReasoningTokens: 25}, TotalTokens: 44}
	if *got.Usage != want || got.Reasoning != "Count the letters." || got.Text != "Three." {
		t.Errorf("usage %+v, reasoning %q, text %q", *got.Usage, got.Reasoning, got.Text)
	}
	m := mustStream(Messages, Responses, Options{})
	got, err = readResponsesStream(feedEach(t, m, readTestdata(t, "testdata/stream_messages_to_chat/cache_usage_cumulative.in.sse")))
	if err != nil {
		t.Fatal(err)
	}
	// Anthropic's input_tokens leave the cache out; the Responses API's count it.
	want = responsesUsage{InputTokens: 2312, InputTokensDetails: responsesInputDetails{CachedTokens: 2000, CacheWriteTokens: 300},
		OutputTokens: 9, TotalTokens: 2321}
	if *got.Usage != want {
		t.Errorf("usage %+v, want %+v", *got.Usage, want)
	}
}

// TestResponsesStreamSequenceNumbers: whatever the upstream sends, each call
// returns whole events whose sequence numbers go on from the last call's.
func TestResponsesStreamSequenceNumbers(t *testing.T) {
	for _, dir := range []string{"responses_stream_chat", "responses_stream_messages"} {
		inputs, _ := filepath.Glob(filepath.Join("testdata", dir, "*.in.sse"))
		for _, path := range inputs {
			t.Run(dir+"/"+filepath.Base(path), func(t *testing.T) {
				var s streamConverter = mustStream(Chat, Responses, Options{})
				if dir == "responses_stream_messages" {
					s = mustStream(Messages, Responses, Options{})
				}
				next := int64(0)
				check := func(out []byte) {
					t.Helper()
					events, err := splitEvents(out)
					if err != nil {
						t.Fatal(err)
					}
					for _, ev := range events {
						var h eventHeader
						data := ev[strings.Index(ev, "\ndata: ")+7:]
						if err := json.Unmarshal([]byte(data), &h); err != nil || h.SequenceNumber != next {
							t.Fatalf("event %s: sequence_number %d, want %d (%v)", h.Type, h.SequenceNumber, next, err)
						}
						next++
					}
				}
				for _, ev := range parseSSE(readTestdata(t, path)) {
					out, _ := s.Event(ev.name, ev.data)
					check(out)
				}
				check(s.Error(errors.New("end")))
				check(s.Finish())
				if next < 3 {
					t.Errorf("only %d events", next)
				}
			})
		}
	}
}

// TestResponsesStreamCutEndsWithFailure: an upstream that stops mid-way
// leaves the caller with a stream that ends in response.failed, and the
// half-streamed call is never done, so that Codex does not run it.
func TestResponsesStreamCutEndsWithFailure(t *testing.T) {
	cut := errors.New("upstream connection reset")
	for name, c := range map[string]struct {
		s      streamConverter
		path   string
		events int
	}{
		"anthropic upstream": {mustStream(Messages, Responses, Options{}), "testdata/stream_messages_to_chat/tool_use_parallel.in.sse", 7},
		"openai upstream":    {mustStream(Chat, Responses, Options{}), "testdata/stream_chat_to_messages/tool_calls_parallel.in.sse", 3},
	} {
		t.Run(name, func(t *testing.T) {
			var out []byte
			for _, ev := range parseSSE(readTestdata(t, c.path))[:c.events] {
				b, err := c.s.Event(ev.name, ev.data)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, b...)
			}
			if c.s.Done() {
				t.Fatal("Done() before the upstream's end")
			}
			out = append(out, c.s.Error(cut)...)
			got, err := readResponsesStream(out)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != "failed" || got.Error.Message != cut.Error() || got.Error.Code != "server_error" {
				t.Errorf("want response.failed with %q as the end; got %+v", cut, got)
			}
			if got.Text != "Checking." || len(got.Calls) != 0 {
				t.Errorf("want the text done and the half call not; got text %q, calls %+v", got.Text, got.Calls)
			}
			if !strings.HasSuffix(string(out), "\n\n") || !strings.Contains(string(out), "event: response.failed\n") {
				t.Errorf("last event: %s", tail(out))
			}
		})
	}
}

// TestResponsesStreamEnds: the end is written once, whatever ends the
// stream, and nothing follows it; an empty stream finished is well-formed.
func TestResponsesStreamEnds(t *testing.T) {
	for name, s := range map[string]streamConverter{
		"chat":     mustStream(Chat, Responses, Options{}),
		"messages": mustStream(Messages, Responses, Options{}),
	} {
		t.Run(name, func(t *testing.T) {
			first := s.Finish()
			got, err := readResponsesStream(first)
			if err != nil || got.Status != "completed" || len(got.Items) != 0 {
				t.Errorf("Finish on an empty stream: %+v, %v\n%s", got, err, first)
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
		})
	}
}

// TestResponsesStreamUpstreamErrors: an upstream error event is returned as
// a *StreamError, response.failed is in the bytes, and its code is the one
// Codex acts on.
func TestResponsesStreamUpstreamErrors(t *testing.T) {
	for _, c := range []struct {
		s        streamConverter
		name     string
		data     string
		wantCode string
	}{
		{mustStream(Messages, Responses, Options{}), "error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "server_error"},
		{mustStream(Messages, Responses, Options{}), "error", `{"type":"error","error":{"type":"rate_limit_error","message":"Try again in 2s."}}`, "rate_limit_exceeded"},
		{mustStream(Messages, Responses, Options{}), "error", `{"type":"error","error":{"type":"billing_error","message":"Credit balance too low."}}`, "insufficient_quota"},
		{mustStream(Messages, Responses, Options{}), "", `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}`, "context_length_exceeded"},
		{mustStream(Messages, Responses, Options{}), "error", `{"type":"error"}`, "server_error"},
		{mustStream(Chat, Responses, Options{}), "", `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, "rate_limit_exceeded"},
		{mustStream(Chat, Responses, Options{}), "", `{"error":{"message":"This model's maximum context length is 8192 tokens.","code":"context_length_exceeded"}}`, "context_length_exceeded"},
		{mustStream(Chat, Responses, Options{}), "", `{"error":"boom"}`, "server_error"},
	} {
		out, err := c.s.Event(c.name, []byte(c.data))
		var se *StreamError
		if !errors.As(err, &se) || se.Message == "" {
			t.Errorf("%s: err = %v, want a StreamError", c.data, err)
		}
		got, rerr := readResponsesStream(out)
		if rerr != nil || got.Status != "failed" || got.Error.Code != c.wantCode || got.Error.Message != se.Message {
			t.Errorf("%s: caller got %+v (%v), want code %s", c.data, got, rerr, c.wantCode)
		}
		if b, _ := c.s.Event(c.name, []byte(c.data)); b != nil || c.s.Error(errors.New("x")) != nil || c.s.Finish() != nil {
			t.Errorf("%s: output after the upstream's error", c.data)
		}
	}
}

// TestResponsesStreamMalformedEvents: bad input is reported, not
// swallowed, and the converter stays usable.
func TestResponsesStreamMalformedEvents(t *testing.T) {
	m := mustStream(Messages, Responses, Options{})
	var all []byte
	for _, data := range []string{`{`, `[]`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"x"}}`,
		`{"type":"content_block_start","index":0}`, `{"type":"content_block_delta","index":0}`} {
		out, err := m.Event("", []byte(data))
		if err == nil {
			t.Errorf("no error for %s", data)
		}
		all = append(all, out...)
	}
	if _, err := m.Event("ping", []byte(`not json`)); err != nil {
		t.Errorf("ping with garbage: %v; want it skipped", err)
	}
	if got, err := readResponsesStream(append(all, m.Finish()...)); err != nil || got.Status != "completed" {
		t.Errorf("after the errors: %+v, %v", got, err)
	}
	c := mustStream(Chat, Responses, Options{})
	for _, data := range []string{`{`, `{"choices":[{"index":0,"delta":{"content":5}}]}`} {
		if _, err := c.Event("", []byte(data)); err == nil {
			t.Errorf("no error for %s", data)
		}
	}
	if b, err := c.Event("keepalive", []byte(`whatever`)); b != nil || err != nil {
		t.Errorf("a named event other than message was not skipped: %q, %v", b, err)
	}
}

// TestResponsesStreamThinkingRoundTrip: Anthropic's signed thinking,
// streamed to a Responses client as a reasoning item, goes back to
// Anthropic in the next request as the very block it was.
func TestResponsesStreamThinkingRoundTrip(t *testing.T) {
	s := mustStream(Messages, Responses, Options{})
	got, err := readResponsesStream(feedEach(t, s, readTestdata(t, "testdata/responses_stream_messages/thinking_signed_then_tool_use.in.sse")))
	if err != nil {
		t.Fatal(err)
	}
	output, _ := json.Marshal(map[string]any{"output": got.Items})
	first := `{"input":[{"role":"user","content":"List the files."}],"tools":[{"type":"function","name":"shell"}],"reasoning":{"effort":"high"}}`
	out, err := Request(Responses, Messages, nextRequest(t, first, output, "a b c"), "claude", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"role":"assistant","content":[{"type":"thinking","thinking":"The user wants the files listed. I will run ls.",` +
		`"signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxgsb0VD1AaF0sIuCIiMMhzFw=="},{"type":"text","text":"Listing the files."},` +
		`{"type":"tool_use","id":"toolu_01Shell","name":"shell","input":{"command":["ls","-la"]}}]}`
	if !strings.Contains(string(out), want) || !strings.Contains(string(out), `"thinking":{"type":"enabled","budget_tokens":24576}`) {
		t.Errorf("next request %s\nlacks the assistant turn %s, or thinking", out, want)
	}
}
