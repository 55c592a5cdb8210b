package translate

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestGoldenConverseAnswers: testdata/bedrock/answers holds Converse
// answers and what each caller's writer makes of them.
func TestGoldenConverseAnswers(t *testing.T) {
	for to, fn := range map[string]func([]byte) ([]byte, Usage, error){
		"chat":      func(b []byte) ([]byte, Usage, error) { return answerAt(Converse, Chat, b, goldenCreated) },
		"messages":  answerFunc(Converse, Messages),
		"responses": func(b []byte) ([]byte, Usage, error) { return answerAt(Converse, Responses, b, goldenCreated) },
	} {
		t.Run("to "+to, func(t *testing.T) {
			runGolden(t, "bedrock/answers", ".in.json", "."+to+".json", func(in []byte) ([]byte, error) {
				return withoutMadeUpIDs(responseOutcome(fn(in)))
			})
		})
	}
}

// TestConverseAnswers: every stop reason, in each caller's words, and the
// usage in the gateway's meaning.
func TestConverseAnswers(t *testing.T) {
	for _, tc := range []struct {
		stopReason                     string
		wantChat, wantAnthropic, wantR string // finish_reason, stop_reason, Responses status (incomplete reason)
	}{
		{"end_turn", "stop", "end_turn", "completed"},
		{"tool_use", "tool_calls", "tool_use", "completed"},
		{"max_tokens", "length", "max_tokens", "incomplete max_output_tokens"},
		{"stop_sequence", "stop", "end_turn", "completed"},
		{"guardrail_intervened", "content_filter", "refusal", "incomplete content_filter"},
		{"content_filtered", "content_filter", "refusal", "incomplete content_filter"},
		{"model_context_window_exceeded", "length", "max_tokens", "incomplete max_output_tokens"},
		{"some_new_reason", "stop", "end_turn", "completed"},
	} {
		t.Run(tc.stopReason, func(t *testing.T) {
			body := []byte(`{"output":{"message":{"role":"assistant","content":[{"text":"Hi."}]}},"stopReason":"` + tc.stopReason +
				`","usage":{"inputTokens":10,"outputTokens":3,"totalTokens":1313,"cacheReadInputTokens":1000,"cacheWriteInputTokens":300}}`)
			wantUsage := Usage{InputTokens: 1310, OutputTokens: 3, CacheReadTokens: 1000, CacheWriteTokens: 300}

			out, u, err := Answer(Converse, Chat, body)
			var chat struct {
				Choices []struct {
					FinishReason string `json:"finish_reason"`
				} `json:"choices"`
				Usage chatUsage `json:"usage"`
			}
			if err != nil || json.Unmarshal(out, &chat) != nil || chat.Choices[0].FinishReason != tc.wantChat || u != wantUsage ||
				chat.Usage.PromptTokens != 1310 || chat.Usage.PromptTokensDetails.CachedTokens != 1000 {
				t.Errorf("chat: %s, usage %+v, err %v; want finish_reason %s", out, u, err, tc.wantChat)
			}

			out, u, err = Answer(Converse, Messages, body)
			var msg messagesResponse
			if err != nil || json.Unmarshal(out, &msg) != nil || msg.StopReason != tc.wantAnthropic || u != wantUsage ||
				msg.Usage != (anthropicUsage{InputTokens: 10, CacheReadInputTokens: 1000, CacheCreationInputTokens: 300, OutputTokens: 3}) {
				t.Errorf("messages: %s, usage %+v, err %v; want stop_reason %s", out, u, err, tc.wantAnthropic)
			}

			out, u, err = Answer(Converse, Responses, body)
			var resp responsesFinalIn
			if err != nil || json.Unmarshal(out, &resp) != nil || u != wantUsage {
				t.Fatalf("responses: %s, usage %+v, err %v", out, u, err)
			}
			status := resp.Status
			if resp.IncompleteDetails != nil {
				status += " " + resp.IncompleteDetails.Reason
			}
			if status != tc.wantR || resp.Usage.InputTokens != 1310 || resp.Usage.InputTokensDetails.CachedTokens != 1000 {
				t.Errorf("responses: %s; want status %s", out, tc.wantR)
			}
		})
	}
}

// TestConverseAnswerParts: text, signed and redacted reasoning and tool
// calls reach each caller as its protocol carries them.
func TestConverseAnswerParts(t *testing.T) {
	body := readTestdata(t, "testdata/bedrock/answers/reasoning_tool_use_cache.in.json")
	wantCalls := []chatToolCall{
		{ID: "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", Type: "function", Function: chatFunctionCall{Name: "get_weather", Arguments: `{"city":"Paris","unit":"celsius"}`}},
		{ID: "tooluse_Zx8PqWvT3KeBc1RdN9mYfA", Type: "function", Function: chatFunctionCall{Name: "get_time", Arguments: `{}`}},
	}
	out, _, err := Answer(Converse, Chat, body)
	var chat struct {
		ID      string `json:"id"`
		Model   string `json:"model"`
		Choices []struct {
			Message chatResponseMessage `json:"message"`
		} `json:"choices"`
	}
	if err != nil || json.Unmarshal(out, &chat) != nil {
		t.Fatalf("chat: %s, %v", out, err)
	}
	m := chat.Choices[0].Message
	if !reflect.DeepEqual(m.ToolCalls, wantCalls) || *m.Content != "Let me check both." ||
		m.ReasoningContent != "The user wants the weather in Paris and the time: two tools." {
		t.Errorf("chat message %+v", m)
	}
	if !strings.HasPrefix(chat.ID, "chatcmpl-") || len(chat.ID) != len("chatcmpl-")+26 || chat.Model != "" {
		t.Errorf("chat id %q model %q: want a made-up id and the model left to the gateway", chat.ID, chat.Model)
	}

	out, _, err = Answer(Converse, Responses, body)
	var resp responsesFinalIn
	if err != nil || json.Unmarshal(out, &resp) != nil {
		t.Fatalf("responses: %s, %v", out, err)
	}
	var kinds []string
	for _, it := range resp.Output {
		kinds = append(kinds, it.Type)
	}
	if want := []string{"reasoning", "reasoning", "message", "function_call", "function_call"}; !reflect.DeepEqual(kinds, want) {
		t.Fatalf("responses output %v, want %v", kinds, want)
	}
	signed, ok := decodeThinking(resp.Output[0].EncryptedContent)
	redacted, ok2 := decodeThinking(resp.Output[1].EncryptedContent)
	if !ok || !ok2 || !strings.Contains(string(signed), `"signature":"EqQBCkYIBxgCKkBzaWduYXR1cmU="`) ||
		!strings.Contains(string(redacted), `"data":"EmwKAhgBEgy3va3pzix`) {
		t.Errorf("reasoning items carry %s and %s", signed, redacted)
	}
	if c := resp.Output[3]; c.CallID != "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q" || *c.Arguments != `{"city":"Paris","unit":"celsius"}` {
		t.Errorf("function_call %+v", c)
	}

	if _, _, err := Answer(Converse, Messages, []byte(`{"message":"The security token included in the request is invalid."}`)); err == nil {
		t.Error("an answer without output.message was read")
	}
}

// TestConverseAnswerRoundTrip: signed reasoning a Responses caller got
// from a Converse answer goes back to Converse as it came.
func TestConverseAnswerRoundTrip(t *testing.T) {
	out, _, err := Answer(Converse, Responses, readTestdata(t, "testdata/bedrock/answers/reasoning_tool_use_cache.in.json"))
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		Output []json.RawMessage `json:"output"`
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatal(err)
	}
	input, _ := json.Marshal(append([]json.RawMessage{json.RawMessage(`{"role":"user","content":"Weather and time in Paris?"}`)}, resp.Output...))
	// A request that keeps Claude's thinking on is an Anthropic caller's:
	// lay the reasoning items read from a Responses request under it.
	req, err := readResponsesRequest([]byte(`{"input":` + string(input) + `}`))
	if err != nil {
		t.Fatal(err)
	}
	req.budget = 4096
	c, err := writeConverseRequest(&req)
	if err != nil {
		t.Fatal(err)
	}
	got := c.Messages[1].Content
	if blockKinds(got) != "reasoning redacted text toolUse toolUse" {
		t.Fatalf("assistant turn %s", blockKinds(got))
	}
	if r := got[0].ReasoningContent.ReasoningText; r.Signature != "EqQBCkYIBxgCKkBzaWduYXR1cmU=" || r.Text != "The user wants the weather in Paris and the time: two tools." {
		t.Errorf("reasoning went back as %+v", r)
	}
	if r := got[1].ReasoningContent.RedactedContent; r != "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj" {
		t.Errorf("redacted content went back as %q", r)
	}
}
