package translate

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// geminiAnswerWant is what a Gemini answer must become, in each caller's
// protocol.
type geminiAnswerWant struct {
	id, model       string
	created         int64 // 0: the time of the translation
	text, reasoning string
	refusal         string
	calls           []string // name and arguments, as get_weather{"city":"Paris"}
	finish          string   // chat's finish_reason
	stop            string   // Anthropic's stop_reason
	status          string   // the response's status
	incomplete      string   // and its incomplete_details.reason
	usage           Usage
	reasoningTokens int64
}

func TestGeminiAnswers(t *testing.T) {
	for _, tc := range []struct {
		file string
		want geminiAnswerWant
	}{
		{"answer_text.json", geminiAnswerWant{id: "Zx8saNqTLc2t1MkP_q6X4Ag", model: "gemini-2.5-flash",
			text:   "Paris is the capital of France. It has been the seat of government since 987 <with> a few interruptions.",
			finish: "stop", stop: "end_turn", status: "completed",
			usage: Usage{InputTokens: 1042, OutputTokens: 23 + 418, CacheReadTokens: 1024, ReasoningTokens: 418}, reasoningTokens: 418}},
		{"answer_thinking_calls.json", geminiAnswerWant{id: "4qA3aaiTHLyW1MkPvYfT8QE", model: "gemini-3-pro-preview",
			text:      "Let me check both cities.",
			reasoning: "**Planning the lookup**\n\nThe user wants the weather in two cities. I'll call get_weather for both in parallel.\n",
			calls:     []string{`get_weather{"city":"Paris","unit":"celsius"}`, `get_weather{"city":"Rome","unit":"celsius"}`},
			finish:    "tool_calls", stop: "tool_use", status: "completed",
			usage: Usage{InputTokens: 187, OutputTokens: 54 + 216, ReasoningTokens: 216}, reasoningTokens: 216}},
		{"answer_safety.json", geminiAnswerWant{id: "kW4saJ3aDMGa1MkP8OOPkQk", model: "gemini-2.0-flash",
			finish: "content_filter", stop: "refusal", status: "incomplete", incomplete: "content_filter",
			usage: Usage{InputTokens: 31}}},
		{"answer_blocked_prompt.json", geminiAnswerWant{id: "b3EsaKb0Gt2g1MkPpL6I8QQ", model: "gemini-2.5-pro",
			refusal: "Gemini blocked the prompt (PROHIBITED_CONTENT)",
			finish:  "content_filter", stop: "refusal", status: "incomplete", incomplete: "content_filter",
			usage: Usage{InputTokens: 12}}},
		{"answer_vertex_max_tokens.json", geminiAnswerWant{id: "SS9MaJvqMY-K4s8P9ua0mAU", model: "gemini-2.0-flash-001", created: 1749823385,
			text:   "Here is the first part of a very long list:\n1. alpha\n2. beta\n3.",
			finish: "length", stop: "max_tokens", status: "incomplete", incomplete: "max_output_tokens",
			usage: Usage{InputTokens: 9, OutputTokens: 20}}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			checkGeminiAnswer(t, readTestdata(t, "testdata/gemini/"+tc.file), &tc.want)
		})
	}
}

// TestGeminiAnswerParts: parts and reasons the captured answers do not
// show.
func TestGeminiAnswerParts(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       geminiAnswerWant
	}{
		{"signature carriers, other parts and a malformed call", `{"candidates":[{"content":{"role":"model","parts":[` +
			`{"text":"a"},{"text":"","thoughtSignature":"c2ln"},{"executableCode":{"language":"PYTHON","code":"1"}},{"text":"b"}]},` +
			`"finishReason":"MALFORMED_FUNCTION_CALL"}],"responseId":"r1","modelVersion":"m"}`,
			geminiAnswerWant{id: "r1", model: "m", text: "ab", finish: "stop", stop: "end_turn", status: "completed"}},
		{"a call without args, stopped for length", `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"now"}}]},` +
			`"finishReason":"MAX_TOKENS"}],"responseId":"r2","modelVersion":"m"}`,
			geminiAnswerWant{id: "r2", model: "m", calls: []string{"now{}"}, finish: "length", stop: "max_tokens", status: "incomplete", incomplete: "max_output_tokens"}},
		{"recitation is a refusal; tool-use prompts are input", `{"candidates":[{"content":{"role":"model","parts":[{"text":"It was the best"}]},` +
			`"finishReason":"RECITATION"}],"usageMetadata":{"promptTokenCount":10,"toolUsePromptTokenCount":5,"candidatesTokenCount":4,"totalTokenCount":19},"responseId":"r3","modelVersion":"m"}`,
			geminiAnswerWant{id: "r3", model: "m", text: "It was the best", finish: "content_filter", stop: "refusal", status: "incomplete",
				incomplete: "content_filter", usage: Usage{InputTokens: 15, OutputTokens: 4}}},
		{"Vertex's block message", `{"promptFeedback":{"blockReason":"OTHER","blockReasonMessage":"The prompt could not be submitted."},"responseId":"r4","modelVersion":"m"}`,
			geminiAnswerWant{id: "r4", model: "m", refusal: "Gemini blocked the prompt (OTHER): The prompt could not be submitted.",
				finish: "content_filter", stop: "refusal", status: "incomplete", incomplete: "content_filter"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkGeminiAnswer(t, []byte(tc.body), &tc.want)
		})
	}
}

func TestGeminiAnswerErrors(t *testing.T) {
	for name, body := range map[string]string{
		"no candidates":  `{"usageMetadata":{"promptTokenCount":3},"modelVersion":"m"}`,
		"an error":       `{"error":{"code":500,"message":"Internal error","status":"INTERNAL"}}`,
		"not JSON":       `<html>502</html>`,
		"a wrong shape":  `{"candidates":{"content":1}}`,
		"a list of them": `[{"candidates":[]}]`,
	} {
		t.Run(name, func(t *testing.T) {
			for protocol, translate := range map[string]func([]byte) ([]byte, Usage, error){
				"chat": answerFunc(Gemini, Chat), "messages": answerFunc(Gemini, Messages), "responses": answerFunc(Gemini, Responses)} {
				if out, _, err := translate([]byte(body)); err == nil || !strings.HasPrefix(err.Error(), "translate: gemini answer") {
					t.Errorf("%s: got %s, %v; want an error", protocol, out, err)
				}
			}
		})
	}
}

func checkGeminiAnswer(t *testing.T, body []byte, want *geminiAnswerWant) {
	t.Helper()
	const now = 1700000000
	created := want.created
	if created == 0 {
		created = now
	}
	out, usage, err := answerAt(Gemini, Chat, body, now)
	if err != nil {
		t.Fatalf("chat: %v", err)
	}
	checkUsage(t, "chat", usage, want.usage)
	var chat struct {
		ID      string `json:"id"`
		Model   string `json:"model"`
		Created int64  `json:"created"`
		Choices []struct {
			Message struct {
				Content          *string        `json:"content"`
				ReasoningContent string         `json:"reasoning_content"`
				Refusal          *string        `json:"refusal"`
				ToolCalls        []chatToolCall `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage chatUsage `json:"usage"`
	}
	mustDecode(t, out, &chat)
	m := &chat.Choices[0].Message
	var calls []string
	for _, c := range m.ToolCalls {
		calls = append(calls, c.Function.Name+c.Function.Arguments)
	}
	switch {
	case chat.ID != "chatcmpl-"+want.id || chat.Model != want.model || chat.Created != created:
		t.Errorf("chat: id %q, model %q, created %d", chat.ID, chat.Model, chat.Created)
	case deref(m.Content) != want.text || m.ReasoningContent != want.reasoning || deref(m.Refusal) != want.refusal:
		t.Errorf("chat: content %q, reasoning %q, refusal %q", deref(m.Content), m.ReasoningContent, deref(m.Refusal))
	case !reflect.DeepEqual(calls, want.calls) || chat.Choices[0].FinishReason != want.finish:
		t.Errorf("chat: calls %v, finish_reason %q", calls, chat.Choices[0].FinishReason)
	case chat.Usage.PromptTokens != want.usage.InputTokens || chat.Usage.CompletionTokens != want.usage.OutputTokens ||
		chat.Usage.PromptTokensDetails.CachedTokens != want.usage.CacheReadTokens:
		t.Errorf("chat: usage %+v", chat.Usage)
	}
	checkGeminiCallIDs(t, "chat", m.ToolCalls, want)

	out, usage, err = Answer(Gemini, Messages, body)
	if err != nil {
		t.Fatalf("messages: %v", err)
	}
	checkUsage(t, "messages", usage, want.usage)
	var msg struct {
		ID         string           `json:"id"`
		Model      string           `json:"model"`
		Content    []anthropicBlock `json:"content"`
		StopReason string           `json:"stop_reason"`
		Usage      anthropicUsage   `json:"usage"`
	}
	mustDecode(t, out, &msg)
	var text string
	calls = nil
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			text += b.Text
		case "tool_use":
			calls = append(calls, b.Name+string(b.Input))
		default:
			t.Errorf("messages: a %s block", b.Type) // thinking is dropped: it has no Anthropic signature
		}
	}
	switch {
	case msg.ID != "msg_"+want.id || msg.Model != want.model:
		t.Errorf("messages: id %q, model %q", msg.ID, msg.Model)
	case text != want.text+want.refusal || !reflect.DeepEqual(calls, want.calls) || msg.StopReason != want.stop:
		t.Errorf("messages: text %q, calls %v, stop_reason %q", text, calls, msg.StopReason)
	case msg.Usage.usage() != noReasoning(want.usage):
		t.Errorf("messages: usage %+v", msg.Usage)
	}

	out, usage, err = answerAt(Gemini, Responses, body, now)
	if err != nil {
		t.Fatalf("responses: %v", err)
	}
	checkUsage(t, "responses", usage, want.usage)
	var resp struct {
		ID         string                   `json:"id"`
		Model      string                   `json:"model"`
		CreatedAt  int64                    `json:"created_at"`
		Status     string                   `json:"status"`
		Incomplete *struct{ Reason string } `json:"incomplete_details"`
		Output     []responsesItemIn        `json:"output"`
		Usage      responsesUsage           `json:"usage"`
	}
	mustDecode(t, out, &resp)
	var reasoning, refusal string
	text, calls = "", nil
	for _, it := range resp.Output {
		switch it.Type {
		case "reasoning":
			for _, s := range it.Summary {
				reasoning += s.Text
			}
		case "message":
			for _, p := range it.Content {
				text += p.Text
				refusal += p.Refusal
			}
		case "function_call":
			calls = append(calls, it.Name+deref(it.Arguments))
		}
	}
	incomplete := ""
	if resp.Incomplete != nil {
		incomplete = resp.Incomplete.Reason
	}
	switch {
	case resp.ID != "resp_"+want.id || resp.Model != want.model || resp.CreatedAt != created:
		t.Errorf("responses: id %q, model %q, created_at %d", resp.ID, resp.Model, resp.CreatedAt)
	case text != want.text || reasoning != want.reasoning || refusal != want.refusal || !reflect.DeepEqual(calls, want.calls):
		t.Errorf("responses: text %q, reasoning %q, refusal %q, calls %v", text, reasoning, refusal, calls)
	case resp.Status != want.status || incomplete != want.incomplete:
		t.Errorf("responses: status %q, incomplete %q", resp.Status, incomplete)
	case resp.Usage.usage() != want.usage || resp.Usage.OutputTokensDetails.ReasoningTokens != want.reasoningTokens:
		t.Errorf("responses: usage %+v", resp.Usage)
	}
}

// checkGeminiCallIDs: the ids an answer's calls get are the package's, each
// its own, the same for the same answer.
func checkGeminiCallIDs(t *testing.T, protocol string, calls []chatToolCall, want *geminiAnswerWant) {
	t.Helper()
	tag := geminiTag(want.id)
	for i, c := range calls {
		if prefix := geminiCallPrefix + tag + "_" + string(rune('0'+i)); !strings.HasPrefix(c.ID, prefix) {
			t.Errorf("%s: call %d has id %q, want it to start with %q", protocol, i, c.ID, prefix)
		}
	}
}

// noReasoning is u as Anthropic's usage object carries it: without a
// count of the reasoning tokens.
func noReasoning(u Usage) Usage {
	u.ReasoningTokens = 0
	return u
}

func checkUsage(t *testing.T, protocol string, got, want Usage) {
	t.Helper()
	if got != want {
		t.Errorf("%s: returned usage %+v, want %+v", protocol, got, want)
	}
}

func mustDecode(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
