package translate

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"gateway/proxy/upstreamerr"
)

// TestGoldenConverseStreams: testdata/bedrock/streams holds ConverseStreams
// (each event by its :event-type) and what each caller's writer makes of
// them, fed event by event as the gateway will (see feedStream); the
// Responses streams are also held to readResponsesStream.
func TestGoldenConverseStreams(t *testing.T) {
	for to, newStream := range map[string]func() *Stream{
		"chat":      func() *Stream { return mustStream(Converse, Chat, Options{IncludeUsage: true}) },
		"messages":  func() *Stream { return mustStream(Converse, Messages, Options{InputEstimate: goldenEstimate}) },
		"responses": streamFunc(Converse, Responses),
	} {
		t.Run("to "+to, func(t *testing.T) {
			runGolden(t, "bedrock/streams", ".in.sse", "."+to+".sse", func(in []byte) ([]byte, error) {
				s := newStream()
				setCreated(s, goldenCreated)
				out := feedStream(t, in, s)
				if _, err := readResponsesStream(out[:len(out)-len(lastLine(out))]); to == "responses" && err != nil {
					return nil, fmt.Errorf("not a well-formed Responses stream: %v\n%s", err, out)
				}
				return withoutMadeUpIDs(out, nil)
			})
		})
	}
}

// TestConverseStreamToEachCaller: one realistic ConverseStream fed into
// each writer: reasoning, text, two tool calls (one without input), the
// stop reason, and the usage that arrives only in the last event.
func TestConverseStreamToEachCaller(t *testing.T) {
	in := readTestdata(t, "testdata/bedrock/streams/reasoning_then_tool_use.in.sse")
	wantUsage := Usage{InputTokens: 2312, OutputTokens: 140, CacheReadTokens: 2000, CacheWriteTokens: 300}
	wantCalls := []chatToolCall{
		{ID: "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", Type: "function", Function: chatFunctionCall{Name: "get_weather", Arguments: `{"city": "Paris"}`}},
		{ID: "tooluse_Zx8PqWvT3KeBc1RdN9mYfA", Type: "function", Function: chatFunctionCall{Name: "get_time", Arguments: `{}`}},
	}

	s := mustStream(Converse, Chat, Options{IncludeUsage: true})
	chat, err := readChatStream(feedEach(t, s, in))
	want := chatResult{Content: "Let me check.", Reasoning: "The user wants the weather in Paris: call the tool.", ToolCalls: wantCalls,
		FinishReason: "tool_calls", Usage: &chatUsage{PromptTokens: 2312, CompletionTokens: 140, TotalTokens: 2452,
			PromptTokensDetails: &chatPromptDetails{CachedTokens: 2000, CacheWriteTokens: 300}}, Done: true}
	if err != nil || !reflect.DeepEqual(chat, want) {
		t.Errorf("chat stream (%v)\n got %+v\nwant %+v", err, chat, want)
	}
	if s.Usage() != wantUsage || !s.FinalUsage() {
		t.Errorf("chat Usage() = %+v (final %v), want %+v", s.Usage(), s.FinalUsage(), wantUsage)
	}

	s = mustStream(Converse, Messages, Options{InputEstimate: goldenEstimate})
	msgs, err := readMessagesStream(feedEach(t, s, in))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for _, b := range msgs.Blocks {
		blocks = append(blocks, b.Type+":"+b.Text+b.ID+b.Name+string(b.Input))
	}
	wantBlocks := []string{"text:Let me check.", `tool_use:tooluse_kZJMlvQmRJ6eAyJE5GIl7Qget_weather{"city": "Paris"}`, "tool_use:tooluse_Zx8PqWvT3KeBc1RdN9mYfAget_time"}
	if !reflect.DeepEqual(blocks, wantBlocks) || msgs.StopReason != "tool_use" ||
		msgs.Usage != (anthropicUsage{InputTokens: 12, CacheReadInputTokens: 2000, CacheCreationInputTokens: 300, OutputTokens: 140}) {
		t.Errorf("messages stream: blocks %q stop %s usage %+v", blocks, msgs.StopReason, msgs.Usage)
	}

	s = mustStream(Converse, Responses, Options{})
	resp, err := readResponsesStream(feedEach(t, s, in))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Let me check." || resp.Reasoning != "The user wants the weather in Paris: call the tool." || resp.Status != "completed" ||
		len(resp.Calls) != 2 || resp.Calls[0].CallID != wantCalls[0].ID || resp.Calls[0].Arguments != `{"city": "Paris"}` ||
		resp.Calls[1].Arguments != "{}" || resp.Usage == nil || resp.Usage.usage() != wantUsage {
		t.Errorf("responses stream %+v", resp)
	}
	block, ok := decodeThinking(resp.Items[0].EncryptedContent)
	if !ok || !strings.Contains(string(block), `"signature":"EqQBCkYIBxgCKkBzaWduYXR1cmU="`) {
		t.Errorf("reasoning item carries %q", resp.Items[0].EncryptedContent)
	}
}

// TestConverseStreamExceptions: an exception event ends the stream with
// the caller's error, returned as a *StreamError of the exception's type
// and classified by it.
func TestConverseStreamExceptions(t *testing.T) {
	for _, tc := range []struct {
		name, message string
		kind          upstreamerr.Kind
		anthropicType string // in a Messages caller's error event
		chatCode      string // in a chat caller's
	}{
		{"throttlingException", "Too many tokens, please wait before trying again.", upstreamerr.RateLimit, "rate_limit_error", "rate_limit_exceeded"},
		{"serviceUnavailableException", "Bedrock is unable to process your request.", upstreamerr.Upstream, "overloaded_error", "overloaded"},
		{"internalServerException", "An internal error occurred.", upstreamerr.Upstream, "api_error", ""},
		{"modelStreamErrorException", "The model stream failed.", upstreamerr.Upstream, "api_error", ""},
		{"validationException", "Input is too long for requested model.", upstreamerr.ContextWindow, "invalid_request_error", "context_length_exceeded"},
		{"validationException", "messages: roles must alternate", upstreamerr.Caller, "invalid_request_error", ""},
	} {
		t.Run(tc.name+" "+string(tc.kind), func(t *testing.T) {
			data := []byte(`{"message":"` + tc.message + `"}`)
			for _, s := range []*Stream{mustStream(Converse, Chat, Options{IncludeUsage: true}), mustStream(Converse, Messages, Options{InputEstimate: goldenEstimate}), mustStream(Converse, Responses, Options{})} {
				start, err := s.Event("messageStart", []byte(`{"role":"assistant"}`))
				if err != nil {
					t.Fatal(err)
				}
				out, err := s.Event(tc.name, data)
				var se *StreamError
				if !errors.As(err, &se) || se.Type != strings.ToUpper(tc.name[:1])+tc.name[1:] || se.Message != tc.message {
					t.Fatalf("err = %v, want a StreamError of the exception", err)
				}
				f := s.events[0].failure
				if f == nil || f.detail.Kind != tc.kind {
					t.Errorf("classified as %+v, want %s", f, tc.kind)
				}
				switch s.writer.(type) {
				case *chatWriter:
					got, _ := readChatStream(out)
					if got.Error != tc.message || tc.chatCode != "" && !strings.Contains(string(out), `"code":"`+tc.chatCode+`"`) {
						t.Errorf("chat caller got %s", out)
					}
				case *messagesWriter:
					got, _ := readMessagesStream(out)
					if !strings.Contains(got.Error, tc.message) || !strings.Contains(string(out), `"type":"`+tc.anthropicType+`"`) {
						t.Errorf("messages caller got %s", out)
					}
				case *responsesWriter:
					if got, err := readResponsesStream(append(start, out...)); err != nil || got.Status != "failed" || got.Error == nil || got.Error.Message != tc.message {
						t.Errorf("responses caller got %s (%v)", out, err)
					}
				}
				if more, _ := s.Event("metadata", []byte(`{"usage":{}}`)); more != nil || s.Done() {
					t.Errorf("events after the error: %s", more)
				}
			}
		})
	}
}

// TestConverseStreamMalformed: events that cannot be read are errors, and
// events Bedrock may add are skipped.
func TestConverseStreamMalformed(t *testing.T) {
	s := mustStream(Converse, Chat, Options{})
	for _, ev := range []struct {
		name, data string
		bad        bool
	}{
		{"contentBlockDelta", `{`, true},
		{"contentBlockDelta", `{"contentBlockIndex":0}`, true},
		{"contentBlockStart", `{"contentBlockIndex":1,"start":{"toolUse":{"toolUseId":"t","name":"f"}}}`, false},
		{"contentBlockDelta", `{"contentBlockIndex":1,"delta":{"text":"text in a tool call"}}`, true},
		{"contentBlockDelta", `{"contentBlockIndex":2,"delta":{"toolUse":{"input":"{}"}}}`, true},
		{"contentBlockDelta", `{"contentBlockIndex":3,"delta":{"reasoningContent":{"text":"x"}}}`, false},
		{"contentBlockDelta", `{"contentBlockIndex":3,"delta":{"reasoningContent":{"redactedContent":"eA=="}}}`, true},
	} {
		if _, err := s.Event(ev.name, []byte(ev.data)); (err != nil) != ev.bad {
			t.Errorf("%s %s: err = %v, want an error %v", ev.name, ev.data, err, ev.bad)
		}
	}
	for _, ev := range []struct{ name, data string }{
		{"someNewEvent", `not json`},
		{"contentBlockDelta", `{"contentBlockIndex":4,"delta":{"citation":{"title":"t"}}}`},
		{"contentBlockStart", `{"contentBlockIndex":5,"start":{"image":{}}}`},
		{"contentBlockDelta", `{"contentBlockIndex":5,"delta":{"text":"of a skipped block"}}`},
	} {
		if out, err := s.Event(ev.name, []byte(ev.data)); err != nil || strings.Contains(string(out), "skipped") {
			t.Errorf("%s %s: %q, %v; want it skipped", ev.name, ev.data, out, err)
		}
	}
}
