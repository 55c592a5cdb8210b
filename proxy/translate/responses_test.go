package translate

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestResponsesDroppedFieldsAreDropped holds the Responses entries of
// droppedFields to the code, as TestDroppedFieldsAreDropped does the
// others: every top-level field listed is accepted with any value and left
// out of the translation to the targets its path names.
func TestResponsesDroppedFieldsAreDropped(t *testing.T) {
	odd := json.RawMessage(`{"unexpected":[1,"two",null]}`)
	translators := map[string]func([]byte) ([]byte, error){
		"chat":      func(b []byte) ([]byte, error) { return Request(Responses, Chat, b, "gpt", Options{IncludeUsage: true}) },
		"anthropic": func(b []byte) ([]byte, error) { return Request(Responses, Messages, b, "claude", Options{}) },
	}
	n := 0
	for _, f := range droppedFields() {
		if f.From != "responses" {
			continue
		}
		field, target, ok := strings.Cut(f.Path, " (")
		if !ok || f.Reason == "" {
			t.Errorf("%q: want a path of the form %q, and a reason", f.Path, "field (target)")
		}
		targets := map[string][]string{"both)": {"chat", "anthropic"}, "to chat)": {"chat"}, "to anthropic)": {"anthropic"}}[target]
		if len(targets) == 0 {
			t.Errorf("%q: unknown target %q", f.Path, target)
		}
		if strings.ContainsAny(field, " .[(,") {
			continue // nested or partial: covered by the golden files
		}
		for _, to := range targets {
			n++
			t.Run(to+"/"+field, func(t *testing.T) {
				req := map[string]json.RawMessage{"model": json.RawMessage(`"m"`), "input": json.RawMessage(`"hi"`), field: odd}
				body, _ := json.Marshal(req)
				out, err := translators[to](body)
				if err != nil {
					t.Fatalf("a dropped field made the translation fail: %v", err)
				}
				var got map[string]json.RawMessage
				if err := json.Unmarshal(out, &got); err != nil {
					t.Fatal(err)
				}
				if v, ok := got[field]; ok {
					t.Errorf("%s went through as %s", field, v)
				}
			})
		}
	}
	if n == 0 {
		t.Fatal("no top-level Responses field is listed as dropped")
	}
}

// TestResponsesRefusals: what the translators cannot do is a *RequestError
// naming the field, from both, for stateful requests first of all.
func TestResponsesRefusals(t *testing.T) {
	for _, c := range []struct {
		body, param string
	}{
		{`not json`, ""},
		{`[]`, ""},
		{`{"input":{"a":1}}`, "input"},
		{`{"instructions":["a"],"input":"x"}`, "instructions"},
		{`{"previous_response_id":"resp_1","input":"x"}`, "previous_response_id"},
		{`{"store":true,"input":"x"}`, "store"},
		{`{"conversation":{"id":"conv_1"},"input":"x"}`, "conversation"},
		{`{"background":true,"input":"x"}`, "background"},
		{`{"prompt":{"id":"pmpt_1"},"input":"x"}`, "prompt"},
		{`{"input":[{"type":"item_reference","id":"msg_1"}]}`, "input[0]"},
		{`{"input":[{"type":"compaction","encrypted_content":"x"}]}`, "input[0].type"},
		{`{"input":[{"role":"user","content":[{"type":"input_file","file_id":"file-1"}]}]}`, "input[0].content[0]"},
		{`{"input":[{"role":"user","content":[{"type":"input_image","image_url":"data:image/png,notbase64"}]}]}`, "input[0].content[0]"},
		{`{"input":[{"role":"assistant","content":[{"type":"input_image","image_url":"https://x/y.png"}]}]}`, "input[0].content[0]"},
		{`{"input":[{"type":"function_call_output","call_id":"c","output":[{"type":"input_audio"}]}]}`, "input[0].output[0]"},
		{`{"input":"x","tools":[{"type":"function","name":"f"}],"tool_choice":"sometimes"}`, "tool_choice"},
		{`{"input":"x","tool_choice":{"type":"function"}}`, "tool_choice.name"},
		{`{"input":"x","tool_choice":{"type":"custom","name":"apply_patch"}}`, "tool_choice"},
		{`{"input":"x","tool_choice":{"type":"allowed_tools","mode":"none","tools":[]}}`, "tool_choice.mode"},
		{`{"input":"x","text":{"format":{"type":"grammar"}}}`, "text.format.type"},
	} {
		for name, translate := range map[string]func([]byte) ([]byte, error){
			"chat":      func(b []byte) ([]byte, error) { return Request(Responses, Chat, b, "gpt", Options{IncludeUsage: true}) },
			"anthropic": func(b []byte) ([]byte, error) { return Request(Responses, Messages, b, "claude", Options{}) },
		} {
			if c.param == "input[0].content[0]" && strings.Contains(c.body, "notbase64") && name == "chat" {
				continue // chat takes any image URL and lets the upstream judge it
			}
			out, err := translate([]byte(c.body))
			var re *RequestError
			if !errors.As(err, &re) || re.Param != c.param || re.Message == "" || out != nil {
				t.Errorf("%s(%s) = %s, %v; want a *RequestError at %q", name, c.body, out, err, c.param)
			}
		}
	}
}

// TestResponsesStatelessAccepted: store false, an empty or null
// previous_response_id and a null conversation are what Codex and the SDKs
// send, and must go through.
func TestResponsesStatelessAccepted(t *testing.T) {
	for _, body := range []string{
		`{"input":"x","store":false}`,
		`{"input":"x","previous_response_id":null,"conversation":null,"prompt":null}`,
		`{"input":"x","previous_response_id":"","background":false}`,
	} {
		if _, err := Request(Responses, Chat, []byte(body), "gpt", Options{IncludeUsage: true}); err != nil {
			t.Errorf("Request(Responses, Chat)(%s): %v", body, err)
		}
		if _, err := Request(Responses, Messages, []byte(body), "claude", Options{}); err != nil {
			t.Errorf("Request(Responses, Messages)(%s): %v", body, err)
		}
	}
}

// TestThinkingBudget holds reasoning.effort to the budgets and conditions
// that thinkingBudget documents.
func TestThinkingBudget(t *testing.T) {
	call := inputEntry{kind: entryCall, callID: "c"}
	thinking := inputEntry{kind: entryThinking}
	output := inputEntry{kind: entryOutput, callID: "c"}
	user := inputEntry{kind: entryUser}
	text := inputEntry{kind: entryAssistant}
	system := inputEntry{kind: entrySystem}
	max := func(v int64) *int64 { return &v }
	for _, c := range []struct {
		name    string
		effort  string
		maxOut  *int64
		choice  string
		entries []inputEntry
		want    int64
	}{
		{"none", "none", nil, "", nil, 0},
		{"minimal", "minimal", nil, "", nil, 1024},
		{"low", "low", nil, "", nil, 4096},
		{"medium", "medium", nil, "", nil, 16384},
		{"high", "high", nil, "", nil, 24576},
		{"xhigh", "xhigh", nil, "", nil, 24576},
		{"cut to max_output_tokens", "high", max(5000), "", nil, 3976},
		{"max_output_tokens too small", "low", max(2047), "", nil, 0},
		{"forced tool", "high", nil, "required", nil, 0},
		{"named tool", "high", nil, "function", nil, 0},
		{"tool turn with its thinking", "low", nil, "auto", []inputEntry{user, thinking, text, call, output}, 4096},
		{"tool turn without thinking", "low", nil, "", []inputEntry{user, text, call, output}, 0},
		{"old tool turn without thinking", "low", nil, "", []inputEntry{user, call, output, text, user}, 4096},
		{"system inside the turn", "low", nil, "", []inputEntry{user, thinking, system, call, output, user}, 4096},
		{"only text turns", "low", nil, "", []inputEntry{user, text, user}, 4096},
	} {
		req := request{effort: c.effort, maxTokens: c.maxOut, toolChoice: toolChoice{mode: c.choice}}
		for i := 0; i < len(c.entries); {
			i = req.addEntries(c.entries, i)
		}
		got, err := thinkingBudget(&req)
		if err != nil || got != c.want {
			t.Errorf("%s: budget %d, %v; want %d", c.name, got, err, c.want)
		}
	}
	if got, err := thinkingBudget(&request{}); got != 0 || err != nil {
		t.Errorf("no reasoning: %d, %v", got, err)
	}
}

// TestThinkingEncoding: a signed thinking block and a redacted one survive
// the trip through encrypted_content exactly; anything else is not ours.
func TestThinkingEncoding(t *testing.T) {
	for _, b := range []anthropicBlock{
		{Type: "thinking", Thinking: "Let me think <about> \"it\".", Signature: "EqQBCg=="},
		{Type: "thinking", Signature: "sig"},
		{Type: "redacted_thinking", Data: "EmwKAhgB"},
	} {
		enc := encodeThinking(&b)
		raw, ok := decodeThinking(enc)
		if !ok {
			t.Fatalf("%+v: %q does not decode", b, enc)
		}
		var got anthropicBlock
		if err := json.Unmarshal(raw, &got); err != nil || !reflect.DeepEqual(got, b) {
			t.Errorf("%+v came back as %s", b, raw)
		}
	}
	if enc := encodeThinking(&anthropicBlock{Type: "thinking", Thinking: "x"}); enc != "" {
		t.Errorf("thinking without a signature encoded as %q", enc)
	}
	for _, s := range []string{"", "gAAAAABoq==", thinkingPrefix, thinkingPrefix + "!!!", thinkingPrefix + "e30", thinkingPrefix + "eyJ0eXBlIjoidGV4dCJ9"} {
		if raw, ok := decodeThinking(s); ok {
			t.Errorf("decodeThinking(%q) = %s", s, raw)
		}
	}
}

// TestResponsesToolRoundTrip plays Codex through both kinds of upstream: a
// Responses request, the upstream's answer with a tool call translated back,
// the call's output sent with the items of that answer, and the second
// request's translation must tie the output to the call by its id.
func TestResponsesToolRoundTrip(t *testing.T) {
	first := `{"model":"m","instructions":"Be brief.","input":[{"role":"user","content":"List files."}],
		"tools":[{"type":"function","name":"shell","parameters":{"type":"object","properties":{"command":{"type":"array","items":{"type":"string"}}}}}],
		"reasoning":{"effort":"low"},"store":false,"stream":false}`
	t.Run("anthropic", func(t *testing.T) {
		if _, err := Request(Responses, Messages, []byte(first), "claude", Options{}); err != nil {
			t.Fatal(err)
		}
		answer := `{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[
			{"type":"thinking","thinking":"Run ls.","signature":"sig=="},
			{"type":"tool_use","id":"toolu_1","name":"shell","input":{"command":["ls"]}}],
			"stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":5}}`
		resp, _, err := Answer(Messages, Responses, []byte(answer))
		if err != nil {
			t.Fatal(err)
		}
		second := nextRequest(t, first, resp, "README.md")
		out, err := Request(Responses, Messages, second, "claude", Options{})
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
			Thinking *anthropicThinking `json:"thinking"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Messages) != 3 || got.Thinking == nil || got.Thinking.BudgetTokens != 4096 {
			t.Fatalf("want user, assistant, user turns and thinking on; got %s", out)
		}
		for _, want := range []string{`{"type":"thinking","thinking":"Run ls.","signature":"sig=="}`, `"type":"tool_use","id":"toolu_1"`} {
			if !strings.Contains(string(got.Messages[1].Content), want) {
				t.Errorf("assistant turn %s lacks %s", got.Messages[1].Content, want)
			}
		}
		if want := `[{"type":"tool_result","tool_use_id":"toolu_1","content":"README.md"}]`; string(got.Messages[2].Content) != want {
			t.Errorf("last turn %s, want %s", got.Messages[2].Content, want)
		}
	})
	t.Run("chat", func(t *testing.T) {
		if _, err := Request(Responses, Chat, []byte(first), "gpt", Options{IncludeUsage: true}); err != nil {
			t.Fatal(err)
		}
		answer := `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt","choices":[{"index":0,
			"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"shell","arguments":"{\"command\":[\"ls\"]}"}}]},
			"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`
		resp, _, err := Answer(Chat, Responses, []byte(answer))
		if err != nil {
			t.Fatal(err)
		}
		out, err := Request(Responses, Chat, nextRequest(t, first, resp, "README.md"), "gpt", Options{})
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Messages []chatMessageOut `json:"messages"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Messages) != 4 || got.Messages[2].ToolCalls[0].ID != "call_1" ||
			got.Messages[2].ToolCalls[0].Function.Arguments != `{"command":["ls"]}` ||
			got.Messages[3].Role != "tool" || got.Messages[3].ToolCallID != "call_1" || got.Messages[3].Content != "README.md" {
			t.Errorf("want system, user, the assistant's call and its output; got %s", out)
		}
	})
}

// nextRequest builds the request a Responses client sends after resp: the
// first request's input, resp's output items, and an output for every call.
func nextRequest(t *testing.T, first string, resp []byte, output string) []byte {
	t.Helper()
	var req map[string]any
	var r struct {
		Output []map[string]any `json:"output"`
	}
	if err := json.Unmarshal([]byte(first), &req); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(resp, &r); err != nil {
		t.Fatal(err)
	}
	input := req["input"].([]any)
	for _, item := range r.Output {
		input = append(input, item)
		if item["type"] == "function_call" {
			input = append(input, map[string]any{"type": "function_call_output", "call_id": item["call_id"], "output": output})
		}
	}
	req["input"] = input
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestResponsesUsage: the usage a Responses answer carries reads back as the
// Usage it was written from, and ResponsesUsage reads OpenAI's own.
func TestResponsesUsage(t *testing.T) {
	u := Usage{InputTokens: 2312, OutputTokens: 7, CacheReadTokens: 2000, CacheWriteTokens: 300, ReasoningTokens: 3}
	raw, _ := json.Marshal(u.responses())
	if got, ok := ResponsesUsage(raw); !ok || got != u {
		t.Errorf("ResponsesUsage(%s) = %+v, %v; want %+v", raw, got, ok, u)
	}
	openai := `{"input_tokens":328,"input_tokens_details":{"cached_tokens":128},"output_tokens":52,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":380}`
	if got, ok := ResponsesUsage([]byte(openai)); !ok || got != (Usage{InputTokens: 328, OutputTokens: 52, CacheReadTokens: 128}) {
		t.Errorf("ResponsesUsage(OpenAI's) = %+v, %v", got, ok)
	}
	for _, bad := range []string{"", "null x", `[]`} {
		if _, ok := ResponsesUsage([]byte(bad)); ok {
			t.Errorf("ResponsesUsage(%q) reported ok", bad)
		}
	}
}

// TestErrorToResponsesIsOpenAIShape: every error comes out as
// {"error":{"message","type","param","code"}}, the shape the Responses API
// answers errors in.
func TestErrorToResponsesIsOpenAIShape(t *testing.T) {
	for _, body := range []string{`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, `garbage`, ``} {
		var got struct {
			Error map[string]json.RawMessage `json:"error"`
		}
		out := Error(Responses, 529, []byte(body))
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{"message", "type", "param", "code"} {
			if _, ok := got.Error[key]; !ok {
				t.Errorf("Error(Responses)(%q) = %s lacks %s", body, out, key)
			}
		}
	}
}
