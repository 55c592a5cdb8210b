package proxy_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

// Usage where clients read it, in every translated stream direction: each
// test reads the stream with the official SDK the way clients do.

// TestAnthropicStreamUsageFromChatMember: an Anthropic caller streaming from
// an openai-type member. LangChain's ChatAnthropic takes the input count
// from message_start alone and the output count from message_delta, so
// message_start must carry a count before OpenAI's usage arrives at the
// end: the request's estimate; what the SDK accumulates ends with the
// upstream's real counts. An upstream that never reports usage leaves the
// estimate in place rather than a zero.
func TestAnthropicStreamUsageFromChatMember(t *testing.T) {
	cases := []struct {
		name      string
		usage     bool  // the upstream sends its usage chunk
		wantInput int64 // the accumulated input_tokens, 0: the estimate
		wantCache int64
		wantOut   int64
	}{
		{"usage chunk", true, fakePromptTokens - fakeCachedTokens, fakeCachedTokens, fakeCompletionTokens},
		{"no usage from upstream", false, 0, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newProtocolEnv(t)
			if !tc.usage {
				// A compatible server that ignores include_usage: the default
				// stream as sent to a request without stream_options.
				e.up.setRespond(func(w http.ResponseWriter, _ *http.Request, req upstreamRequest) {
					startStream(w)
					for _, ev := range fakeStreamEvents(upstreamRequest{Body: map[string]any{"model": req.Body["model"]}}) {
						io.WriteString(w, ev)
					}
				})
			}
			client := e.anthropicClient()
			s := client.Messages.NewStreaming(context.Background(), messageParams("gpt", false))
			var m anthropic.Message
			var start anthropic.Usage
			for s.Next() {
				ev := s.Current()
				if ev.Type == "message_start" {
					start = ev.Message.Usage
				}
				if err := m.Accumulate(ev); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			if so, _ := e.up.last(t).Body["stream_options"].(map[string]any); so["include_usage"] != true {
				t.Fatalf("the upstream was not asked for its usage: stream_options %v", so)
			}
			if start.InputTokens <= 0 {
				t.Fatalf("message_start usage %s: no input count", start.RawJSON())
			}
			got := m.Usage
			if tc.wantInput == 0 {
				if got.InputTokens != start.InputTokens || got.OutputTokens != 0 {
					t.Fatalf("accumulated usage %s, want message_start's estimate %d kept", got.RawJSON(), start.InputTokens)
				}
				return
			}
			if got.InputTokens != tc.wantInput || got.CacheReadInputTokens != tc.wantCache || got.OutputTokens != tc.wantOut {
				t.Fatalf("accumulated usage %s, want input %d, cache read %d, output %d",
					got.RawJSON(), tc.wantInput, tc.wantCache, tc.wantOut)
			}
			if sum := got.InputTokens + got.CacheReadInputTokens + got.CacheCreationInputTokens; sum != fakePromptTokens {
				t.Fatalf("accumulated input %d in all, want the upstream's prompt_tokens %d", sum, fakePromptTokens)
			}
		})
	}
}

// TestChatStreamUsageFromMessagesMember: an OpenAI caller streaming from an
// anthropic-type member. With include_usage the stream ends with a chunk of
// no choices whose usage has Anthropic's counts in OpenAI's meaning (input
// 10 + 5 cache reads + 2 cache writes from message_start, output 7 from
// message_delta); without it no chunk carries usage.
func TestChatStreamUsageFromMessagesMember(t *testing.T) {
	for _, include := range []bool{true, false} {
		t.Run(fmt.Sprintf("include_usage=%v", include), func(t *testing.T) {
			e, _ := newProtocolEnv(t)
			var opts []option.RequestOption
			if include {
				opts = append(opts, option.WithJSONSet("stream_options", map[string]any{"include_usage": true}))
			}
			s := e.client().Chat.Completions.NewStreaming(context.Background(), userMessage("claude"), opts...)
			var chunks []openai.ChatCompletionChunk
			for s.Next() {
				chunks = append(chunks, s.Current())
			}
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			if len(chunks) == 0 {
				t.Fatal("no chunks")
			}
			var withUsage []openai.ChatCompletionChunk
			for _, c := range chunks {
				if c.JSON.Usage.Valid() {
					withUsage = append(withUsage, c)
				}
			}
			if !include {
				if len(withUsage) != 0 {
					t.Fatalf("usage without include_usage: %s", withUsage[0].RawJSON())
				}
				return
			}
			last := chunks[len(chunks)-1]
			if len(withUsage) != 1 || !last.JSON.Usage.Valid() || len(last.Choices) != 0 {
				t.Fatalf("want one usage chunk, last and without choices; last chunk %s", last.RawJSON())
			}
			u := last.Usage
			if u.PromptTokens != 17 || u.CompletionTokens != 7 || u.TotalTokens != 24 || u.PromptTokensDetails.CachedTokens != 5 {
				t.Fatalf("usage %s, want 17 prompt (5 cached), 7 completion, 24 total", u.RawJSON())
			}
		})
	}
}

// TestResponsesStreamUsageFromTranslatedMembers: a Responses caller
// streaming from a chat member and from a messages member. Like OpenAI,
// response.created and response.in_progress carry usage null; the usage is
// response.completed's, whole: input (cached tokens included), cached,
// output and total as the upstream counted them.
func TestResponsesStreamUsageFromTranslatedMembers(t *testing.T) {
	cases := []struct {
		pool                         string
		input, cached, output, total int64
	}{
		{"gpt", fakePromptTokens, fakeCachedTokens, fakeCompletionTokens, fakePromptTokens + fakeCompletionTokens},
		{"claude", 17, 5, 7, 24},
	}
	for _, tc := range cases {
		t.Run(tc.pool, func(t *testing.T) {
			e, _ := newProtocolEnv(t)
			p := responseParams(tc.pool)
			p.Tools = nil
			s := e.client().Responses.NewStreaming(context.Background(), p)
			var completed *responses.Response
			for s.Next() {
				switch ev := s.Current(); ev.Type {
				case "response.created", "response.in_progress":
					if ev.Response.JSON.Usage.Valid() {
						t.Errorf("%s carries usage %s; OpenAI sends null", ev.Type, ev.Response.Usage.RawJSON())
					}
				case "response.completed":
					r := ev.AsResponseCompleted().Response
					completed = &r
				}
			}
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			if completed == nil {
				t.Fatal("no response.completed")
			}
			if tc.pool == "gpt" {
				if so, _ := e.up.last(t).Body["stream_options"].(map[string]any); so["include_usage"] != true {
					t.Fatalf("the upstream was not asked for its usage: stream_options %v", so)
				}
			}
			u := completed.Usage
			if !completed.JSON.Usage.Valid() || u.InputTokens != tc.input || u.InputTokensDetails.CachedTokens != tc.cached ||
				u.OutputTokens != tc.output || u.TotalTokens != tc.total {
				t.Fatalf("response.completed usage %s, want input %d (%d cached), output %d, total %d",
					u.RawJSON(), tc.input, tc.cached, tc.output, tc.total)
			}
		})
	}
}
