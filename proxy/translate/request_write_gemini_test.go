package translate

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestGoldenGeminiRequests: testdata/gemini/*_to_gemini hold a caller's
// request (system prompts, images, a PDF, tools, calls and their results)
// and the Gemini request it becomes, checked by hand.
func TestGoldenGeminiRequests(t *testing.T) {
	runGolden(t, "gemini/chat_to_gemini", ".in.json", ".out.json", func(in []byte) ([]byte, error) {
		return requestOutcome(Request(Chat, Gemini, in, "", Options{}))
	})
	runGolden(t, "gemini/messages_to_gemini", ".in.json", ".out.json", func(in []byte) ([]byte, error) {
		return requestOutcome(Request(Messages, Gemini, in, "", Options{}))
	})
	runGolden(t, "gemini/responses_to_gemini", ".in.json", ".out.json", func(in []byte) ([]byte, error) {
		return requestOutcome(Request(Responses, Gemini, in, "", Options{}))
	})
}

// geminiCase is a request and what parts of its Gemini request must be:
// want maps a path (members and indexes joined by dots) to its JSON, ""
// for a path that must be absent.
type geminiCase struct {
	name     string
	from     string // chat, messages or responses
	body     string
	want     map[string]string
	refusal  string // instead of want: a *RequestError whose message holds it
	refParam string
}

func (c *geminiCase) translate() ([]byte, error) {
	switch c.from {
	case "chat":
		return Request(Chat, Gemini, []byte(c.body), "", Options{})
	case "messages":
		return Request(Messages, Gemini, []byte(c.body), "", Options{})
	}
	return Request(Responses, Gemini, []byte(c.body), "", Options{})
}

func TestGeminiRequest(t *testing.T) {
	for _, c := range []geminiCase{
		{name: "consecutive turns of a role merge", from: "chat",
			body: `{"messages":[{"role":"user","content":"a"},{"role":"user","content":[{"type":"text","text":"b"}]},` +
				`{"role":"assistant","content":"c"},{"role":"assistant","content":"d"},{"role":"system","content":"s"},{"role":"user","content":"e"}]}`,
			want: map[string]string{
				"contents":          `[{"role":"user","parts":[{"text":"a"},{"text":"b"}]},{"role":"model","parts":[{"text":"c"},{"text":"d"}]},{"role":"user","parts":[{"text":"e"}]}]`,
				"systemInstruction": `{"parts":[{"text":"s"}]}`,
				"generationConfig":  ``, "tools": ``, "toolConfig": ``,
			}},
		{name: "empty turns are left out", from: "chat",
			body: `{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":""},{"role":"user","content":"b"}]}`,
			want: map[string]string{"contents": `[{"role":"user","parts":[{"text":"a"},{"text":"b"}]}]`}},
		{name: "tool results as objects", from: "chat",
			body: `{"messages":[{"role":"user","content":"go"},{"role":"assistant","content":null,"tool_calls":[` +
				testToolCall("c1", "obj") + `,` + testToolCall("c2", "arr") + `,` + testToolCall("c3", "num") + `,` + testToolCall("c4", "text") + `,` + testToolCall("c5", "empty") + `]},` +
				`{"role":"tool","tool_call_id":"c1","content":" {\"ok\":true} "},{"role":"tool","tool_call_id":"c2","content":"[1,2]"},` +
				`{"role":"tool","tool_call_id":"c3","content":"42"},{"role":"tool","tool_call_id":"c4","content":"done <b>"},` +
				`{"role":"tool","tool_call_id":"c5","content":""}]}`,
			want: map[string]string{
				"contents.2.role": `"user"`,
				"contents.2.parts": `[{"functionResponse":{"name":"obj","response":{"ok":true}}},{"functionResponse":{"name":"arr","response":{"result":[1,2]}}},` +
					`{"functionResponse":{"name":"num","response":{"result":42}}},{"functionResponse":{"name":"text","response":{"content":"done <b>"}}},` +
					`{"functionResponse":{"name":"empty","response":{"content":""}}}]`,
				"contents.3": ``,
			}},
		{name: "a result names the function of the latest call of its id", from: "messages",
			body: `{"max_tokens":10,"messages":[{"role":"user","content":"go"},` +
				`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"first","input":{}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"x"}]},` +
				`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"second","input":{}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"y"}]}]}`,
			want: map[string]string{
				"contents.2.parts.0.functionResponse.name": `"first"`,
				"contents.4.parts.0.functionResponse.name": `"second"`,
			}},
		{name: "a result without its call is refused", from: "chat",
			body:    `{"messages":[{"role":"user","content":"go"},{"role":"tool","tool_call_id":"lost","content":"x"}]}`,
			refusal: `call "lost" follows no call`},
		{name: "function responses come first in a merged user content", from: "responses",
			body: `{"input":[{"type":"function_call","call_id":"a","name":"shot","arguments":"{}"},` +
				`{"type":"function_call","call_id":"b","name":"read","arguments":"{}"},` +
				`{"type":"function_call_output","call_id":"a","output":[{"type":"input_text","text":"here"},{"type":"input_image","image_url":"https://x.test/a.png"}]},` +
				`{"type":"function_call_output","call_id":"b","output":"text"}]}`,
			want: map[string]string{
				"contents.0.role": `"model"`,
				"contents.1.parts": `[{"functionResponse":{"name":"shot","response":{"content":"here"}}},{"functionResponse":{"name":"read","response":{"content":"text"}}},` +
					`{"fileData":{"mimeType":"image/png","fileUri":"https://x.test/a.png"}}]`,
			}},
		{name: "calls made elsewhere: the first of a turn gets the skip signature", from: "chat",
			body: `{"messages":[{"role":"user","content":"go"},{"role":"assistant","content":"ok","tool_calls":[` + testToolCall("call_AbC", "a") + `,` + testToolCall("call_DeF", "b") + `]},` +
				`{"role":"tool","tool_call_id":"call_AbC","content":"1"},{"role":"tool","tool_call_id":"call_DeF","content":"2"}]}`,
			want: map[string]string{
				"contents.1.parts.0": `{"text":"ok"}`,
				"contents.1.parts.1": `{"thoughtSignature":"skip_thought_signature_validator","functionCall":{"name":"a","args":{}}}`,
				"contents.1.parts.2": `{"functionCall":{"name":"b","args":{}}}`,
			}},
		{name: "arguments that are not an object become {}", from: "chat",
			body: `{"messages":[{"role":"user","content":"go"},{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"a\":"}}]}]}`,
			want: map[string]string{"contents.1.parts.0.functionCall.args": `{}`}},
		{name: "images and files", from: "responses",
			body: `{"input":[{"role":"user","content":[{"type":"input_image","image_url":"data:image/webp;base64,UklGRg=="},` +
				`{"type":"input_image","image_url":"https://cdn.test/cat"},{"type":"input_image","image_url":"gs://bucket/dog.JPG"},` +
				`{"type":"input_file","filename":"a.pdf","file_data":"data:application/pdf;base64,JVBERi0="}]}]}`,
			want: map[string]string{"contents.0.parts": `[{"inlineData":{"mimeType":"image/webp","data":"UklGRg=="}},{"fileData":{"fileUri":"https://cdn.test/cat"}},` +
				`{"fileData":{"mimeType":"image/jpeg","fileUri":"gs://bucket/dog.JPG"}},{"inlineData":{"mimeType":"application/pdf","data":"JVBERi0="}}]`}},
		{name: "a file that is not a data URL is refused", from: "responses",
			body:    `{"input":[{"role":"user","content":[{"type":"input_file","filename":"a.pdf","file_data":"JVBERi0="}]}]}`,
			refusal: "base64 data URL", refParam: "input[0].content[0]"},
		{name: "a request with no turn is refused", from: "responses",
			body: `{"instructions":"be brief","input":[]}`, refusal: "no user or assistant turn"},
		{name: "thinking blocks are dropped", from: "messages",
			body: `{"max_tokens":10,"messages":[{"role":"user","content":"a"},{"role":"assistant","content":[` +
				`{"type":"thinking","thinking":"hm","signature":"sig"},{"type":"redacted_thinking","data":"xyz"},{"type":"text","text":"b"}]}]}`,
			want: map[string]string{"contents.1.parts": `[{"text":"b"}]`}},
		{name: "tool choices", from: "chat",
			body: `{"messages":[{"role":"user","content":"a"}],"tools":[` + testFunctionTool("f") + `,` + testFunctionTool("g") + `],"tool_choice":{"type":"function","function":{"name":"g"}}}`,
			want: map[string]string{"toolConfig": `{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["g"]}}`}},
		{name: "tool choice none", from: "messages",
			body: `{"max_tokens":10,"messages":[{"role":"user","content":"a"}],"tools":[{"name":"f","input_schema":{"type":"object","properties":{"x":{"type":"string"}}}}],"tool_choice":{"type":"none"}}`,
			want: map[string]string{"toolConfig": `{"functionCallingConfig":{"mode":"NONE"}}`}},
		{name: "tool choice auto", from: "responses",
			body: `{"input":"a","tools":[{"type":"function","name":"f","parameters":{"type":"object","properties":{"x":{"type":"string"}}}}],"tool_choice":"auto"}`,
			want: map[string]string{"toolConfig": `{"functionCallingConfig":{"mode":"AUTO"}}`}},
		{name: "no tool choice without tools", from: "chat",
			body: `{"messages":[{"role":"user","content":"a"}],"tool_choice":"required"}`,
			want: map[string]string{"toolConfig": ``, "tools": ``}},
		{name: "a function without parameters has none", from: "chat",
			body: `{"messages":[{"role":"user","content":"a"}],"tools":[{"type":"function","function":{"name":"now"}},` +
				`{"type":"function","function":{"name":"now2","parameters":{"type":"object","properties":{},"additionalProperties":false}}}]}`,
			want: map[string]string{"tools": `[{"functionDeclarations":[{"name":"now"},{"name":"now2"}]}]`}},
		{name: "a recursive schema is refused", from: "chat",
			body: `{"messages":[{"role":"user","content":"a"}],"tools":[{"type":"function","function":{"name":"tree","parameters":` +
				`{"type":"object","properties":{"root":{"$ref":"#/$defs/Node"}},"$defs":{"Node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/Node"}}}}}}}}]}`,
			refusal: `tool "tree" cannot be sent to Gemini: $ref "#/$defs/Node" is recursive`, refParam: "tools"},
		{name: "generation config", from: "chat",
			body: `{"messages":[{"role":"user","content":"a"}],"max_tokens":300,"temperature":1.5,"top_p":0.5,"stop":"\n\n","top_k":7}`,
			want: map[string]string{"generationConfig": `{"maxOutputTokens":300,"temperature":1.5,"topP":0.5,"topK":7,"stopSequences":["\n\n"]}`}},
		{name: "more than five stop sequences are refused", from: "chat",
			body:    `{"messages":[{"role":"user","content":"a"}],"stop":["1","2","3","4","5","6"]}`,
			refusal: "at most 5 stop sequences", refParam: "stop"},
		{name: "top_k of an Anthropic request", from: "messages",
			body: `{"max_tokens":100,"top_k":3,"stop_sequences":["END"],"messages":[{"role":"user","content":"a"}]}`,
			want: map[string]string{"generationConfig": `{"maxOutputTokens":100,"topK":3,"stopSequences":["END"]}`}},
		{name: "json_object", from: "chat",
			body: `{"messages":[{"role":"user","content":"a"}],"response_format":{"type":"json_object"}}`,
			want: map[string]string{"generationConfig": `{"responseMimeType":"application/json"}`}},
		{name: "json_schema keeps the properties' order", from: "chat",
			body: `{"messages":[{"role":"user","content":"a"}],"response_format":{"type":"json_schema","json_schema":{"name":"x","strict":true,` +
				`"schema":{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"integer"}},"required":["zeta","alpha"],"additionalProperties":false}}}}`,
			want: map[string]string{"generationConfig": `{"responseMimeType":"application/json","responseSchema":{"type":"OBJECT",` +
				`"properties":{"zeta":{"type":"STRING"},"alpha":{"type":"INTEGER"}},"required":["zeta","alpha"],"propertyOrdering":["zeta","alpha"]}}`}},
		{name: "an Anthropic output format", from: "messages",
			body: `{"max_tokens":100,"messages":[{"role":"user","content":"a"}],"output_config":{"format":{"type":"json_schema","schema":{"type":"object","properties":{"n":{"type":"number"}}}}}}`,
			want: map[string]string{"generationConfig.responseSchema": `{"type":"OBJECT","properties":{"n":{"type":"NUMBER"}}}`}},
		{name: "reasoning effort of a chat request", from: "chat",
			body: `{"messages":[{"role":"user","content":"a"}],"reasoning_effort":"medium"}`,
			want: map[string]string{"generationConfig": `{"thinkingConfig":{"includeThoughts":true,"thinkingBudget":16384}}`}},
		{name: "the budget leaves half of max tokens to the answer", from: "responses",
			body: `{"input":"a","reasoning":{"effort":"high"},"max_output_tokens":3000}`,
			want: map[string]string{"generationConfig.thinkingConfig.thinkingBudget": `1500`}},
		{name: "and is at least Gemini's minimum", from: "chat",
			body: `{"messages":[{"role":"user","content":"a"}],"reasoning_effort":"minimal","max_completion_tokens":100}`,
			want: map[string]string{"generationConfig.thinkingConfig.thinkingBudget": `128`}},
		{name: "effort none leaves the model's default", from: "chat",
			body: `{"messages":[{"role":"user","content":"a"}],"reasoning_effort":"none"}`,
			want: map[string]string{"generationConfig": ``}},
		{name: "Anthropic thinking", from: "messages",
			body: `{"max_tokens":32000,"thinking":{"type":"enabled","budget_tokens":2000},"messages":[{"role":"user","content":"a"}]}`,
			want: map[string]string{"generationConfig.thinkingConfig": `{"includeThoughts":true,"thinkingBudget":4096}`}},
		{name: "an unknown effort is refused", from: "chat",
			body: `{"messages":[{"role":"user","content":"a"}],"reasoning_effort":"extreme"}`, refusal: `unknown reasoning effort "extreme"`, refParam: "reasoning.effort"},
		{name: "a string input and the end user", from: "responses",
			body: `{"input":"hello","user":"u1","parallel_tool_calls":false}`,
			want: map[string]string{"contents": `[{"role":"user","parts":[{"text":"hello"}]}]`, "user": ``, "generationConfig": ``}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := c.translate()
			if c.refusal != "" {
				var re *RequestError
				if !errors.As(err, &re) || !strings.Contains(re.Message, c.refusal) || re.Param != c.refParam {
					t.Fatalf("got %s, %v; want a RequestError at %q saying %q", out, err, c.refParam, c.refusal)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for path, want := range c.want {
				got, ok := jsonAt(t, out, path)
				switch {
				case want == "" && ok:
					t.Errorf("%s is %s, want it absent", path, got)
				case want != "" && !jsonEqual(t, got, want):
					t.Errorf("%s is %s\nwant %s", path, got, want)
				}
			}
		})
	}
}

func testToolCall(id, name string) string {
	return `{"id":"` + id + `","type":"function","function":{"name":"` + name + `","arguments":"{}"}}`
}

func testFunctionTool(name string) string {
	return `{"type":"function","function":{"name":"` + name + `","parameters":{"type":"object","properties":{"x":{"type":"string"}}}}}`
}

// jsonAt gives the JSON at path (members and array indexes joined by
// dots), and whether it is there.
func jsonAt(t *testing.T, doc []byte, path string) (json.RawMessage, bool) {
	t.Helper()
	cur := json.RawMessage(doc)
	for _, key := range strings.Split(path, ".") {
		if i, err := strconv.Atoi(key); err == nil {
			var list []json.RawMessage
			if json.Unmarshal(cur, &list) != nil || i >= len(list) {
				return nil, false
			}
			cur = list[i]
			continue
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(cur, &obj) != nil {
			return nil, false
		}
		next, ok := obj[key]
		if !ok {
			return nil, false
		}
		cur = next
	}
	return cur, true
}

func jsonEqual(t *testing.T, got json.RawMessage, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("not JSON: %s", got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("the test's want is not JSON: %s", want)
	}
	return reflect.DeepEqual(g, w)
}
