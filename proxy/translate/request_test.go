package translate

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestDroppedFieldsAreDropped holds droppedFields to the code: every
// top-level field it lists is accepted with any value and left out of the
// translation. A field that the code reads would fail on the odd value or
// show up in the output.
func TestDroppedFieldsAreDropped(t *testing.T) {
	const marker = "unexpected"
	odd := json.RawMessage(`{"` + marker + `":[1,"two",null]}`)
	tested := 0
	for _, f := range droppedFields() {
		if f.Reason == "" {
			t.Errorf("%s %s: no reason given", f.From, f.Path)
		}
		path, targets := droppedPath(f)
		if strings.ContainsAny(path, " [(,") || strings.Count(path, ".") > 1 {
			continue // items and partial cases: covered by the golden files
		}
		for _, target := range targets {
			tested++
			t.Run(f.From+"/"+path+"/to "+target, func(t *testing.T) {
				req, translate := droppedBase(t, f.From, target)
				if top, sub, nested := strings.Cut(path, "."); nested {
					inner, _ := json.Marshal(map[string]json.RawMessage{sub: odd})
					req[top] = inner
				} else {
					req[path] = odd
				}
				// Fields that other upstreams take are read, so their type
				// is checked: those get a value of it.
				typed, isTyped := typedDropped[path]
				if isTyped {
					req[path] = json.RawMessage(typed)
				}
				body, _ := json.Marshal(req)
				out, err := translate(body)
				if err != nil {
					t.Fatalf("a dropped field made the translation fail: %v", err)
				}
				var top map[string]json.RawMessage
				if err := json.Unmarshal(out, &top); err != nil {
					t.Fatal(err)
				}
				if _, kept := top[path]; strings.Contains(string(out), marker) || (isTyped && kept) {
					t.Errorf("%s went through: %s", path, out)
				}
			})
		}
	}
	if tested < 40 {
		t.Errorf("only %d dropped fields tested", tested)
	}
}

// typedDropped are dropped fields the translator still reads (for the
// upstreams that take them), with a value of their type.
var typedDropped = map[string]string{"reasoning_effort": `"high"`, "top_k": `5`}

// droppedPath is an entry's field path without the upstreams it names in
// parentheses at its end ("(both)", "(to chat)", "(to anthropic)"), and
// those upstreams: every one the caller's protocol is translated to when
// it names none.
func droppedPath(f droppedField) (string, []string) {
	path := f.Path
	all := map[string][]string{"openai": {"anthropic"}, "anthropic": {"chat"}, "responses": {"chat", "anthropic"}}[f.From]
	open := strings.LastIndex(path, " (")
	if open < 0 || !strings.HasSuffix(path, ")") {
		return path, all
	}
	named := path[open+2 : len(path)-1]
	switch {
	case named == "both":
		return path[:open], all
	case strings.HasPrefix(named, "to "):
		var targets []string
		for _, t := range strings.Split(strings.TrimPrefix(named, "to "), ", ") {
			if slices.Contains(all, t) {
				targets = append(targets, t)
			}
		}
		return path[:open], targets
	}
	return path, all
}

// droppedBase is a minimal request of the caller's protocol and its
// translation to target.
func droppedBase(t *testing.T, from, target string) (map[string]json.RawMessage, func([]byte) ([]byte, error)) {
	t.Helper()
	msgs := json.RawMessage(`[{"role":"user","content":"hi"}]`)
	switch from {
	case "openai":
		return map[string]json.RawMessage{"model": json.RawMessage(`"m"`), "messages": msgs},
			func(b []byte) ([]byte, error) { return Request(Chat, Messages, b, "claude", Options{}) }
	case "anthropic":
		return map[string]json.RawMessage{"model": json.RawMessage(`"m"`), "max_tokens": json.RawMessage(`10`), "messages": msgs},
			func(b []byte) ([]byte, error) { return Request(Messages, Chat, b, "gpt", Options{IncludeUsage: true}) }
	case "responses":
		req := map[string]json.RawMessage{"model": json.RawMessage(`"m"`), "input": json.RawMessage(`"hi"`)}
		if target == "chat" {
			return req, func(b []byte) ([]byte, error) { return Request(Responses, Chat, b, "gpt", Options{}) }
		}
		return req, func(b []byte) ([]byte, error) { return Request(Responses, Messages, b, "claude", Options{}) }
	}
	t.Fatalf("unknown protocol %q", from)
	return nil, nil
}

// TestRequestRoundTrip: an OpenAI request sent through both translators
// keeps its conversation, tools and parameters.
func TestRequestRoundTrip(t *testing.T) {
	in := readTestdata(t, "testdata/chat_to_messages/tool_round_trip.in.json")
	anthropic, err := Request(Chat, Messages, in, "claude", Options{})
	if err != nil {
		t.Fatal(err)
	}
	back, err := Request(Messages, Chat, anthropic, "gpt", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got, orig struct {
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCalls  []chatToolCall  `json:"tool_calls"`
			ToolCallID string          `json:"tool_call_id"`
		} `json:"messages"`
		Tools []chatTool `json:"tools"`
	}
	if err := json.Unmarshal(back, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(in, &orig); err != nil {
		t.Fatal(err)
	}
	var roles, origRoles []string
	for _, m := range got.Messages {
		roles = append(roles, m.Role)
	}
	for _, m := range orig.Messages {
		origRoles = append(origRoles, m.Role)
	}
	if !reflect.DeepEqual(roles, origRoles) {
		t.Errorf("roles %v, want %v", roles, origRoles)
	}
	// Tool call ids are kept exactly, arguments survive as JSON (the
	// truncated one as {}, see toolInput).
	wantCalls := [][]string{nil, {"call_paris_01", `{"city":"Paris"}`, "call_rome_02", `{"city":"Rome"}`}, nil, nil, nil, {"call_time_03", `{}`}, nil}
	for i, m := range got.Messages {
		var calls []string
		for _, c := range m.ToolCalls {
			calls = append(calls, c.ID, c.Function.Arguments)
		}
		if !reflect.DeepEqual(calls, wantCalls[i]) {
			t.Errorf("messages[%d] tool calls %v, want %v", i, calls, wantCalls[i])
		}
		if m.ToolCallID != orig.Messages[i].ToolCallID {
			t.Errorf("messages[%d] tool_call_id %q, want %q", i, m.ToolCallID, orig.Messages[i].ToolCallID)
		}
	}
	if len(got.Tools) != 2 || got.Tools[0].Function.Name != "get_weather" || string(got.Tools[1].Function.Parameters) != emptySchema {
		t.Errorf("tools %+v", got.Tools)
	}
}

// TestClaudeCodeFixture checks what matters about the translation of
// Claude Code's request (a captured body, kept in testdata) beyond its
// golden file.
func TestClaudeCodeFixture(t *testing.T) {
	body := readTestdata(t, "testdata/messages_to_chat/claude_code.in.json")
	out, err := Request(Messages, Chat, body, "gpt", Options{IncludeUsage: true})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Messages      []chatMessageOut   `json:"messages"`
		Tools         []chatTool         `json:"tools"`
		StreamOptions *chatStreamOptions `json:"stream_options"`
		User          string             `json:"user"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Tools) != 24 || got.StreamOptions == nil || !got.StreamOptions.IncludeUsage || len(got.User) != 64 {
		t.Errorf("tools %d, stream_options %+v, user %q", len(got.Tools), got.StreamOptions, got.User)
	}
	if roles := []string{got.Messages[0].Role, got.Messages[1].Role, got.Messages[2].Role}; !reflect.DeepEqual(roles, []string{"system", "user", "system"}) {
		t.Errorf("roles %v: want the system prompt, the user turn, then the mid-conversation system message in place", roles)
	}
	for _, dropped := range []string{"cache_control", "context_management", "output_config", "thinking", "reasoning_effort"} {
		if strings.Contains(string(out), dropped) {
			t.Errorf("%s went through", dropped)
		}
	}
}

func TestChatUser(t *testing.T) {
	if got := chatUser("user-7"); got != "user-7" {
		t.Errorf("short id changed to %q", got)
	}
	long := strings.Repeat("x", 65)
	if got := chatUser(long); len(got) != 64 || got != chatUser(long) || got == chatUser(long+"y") {
		t.Errorf("long id gave %q: want a stable 64-character hash", got)
	}
}

func TestRequestErrorsAreRequestErrors(t *testing.T) {
	for _, body := range []string{`not json`, `[]`, `{"messages":"x"}`, `{"messages":[{"role":"user","content":{"a":1}}]}`} {
		if _, err := Request(Chat, Messages, []byte(body), "m", Options{}); !isRequestError(err) {
			t.Errorf("Request(Chat, Messages)(%s) = %v, want a *RequestError", body, err)
		}
		if _, err := Request(Messages, Chat, []byte(body), "m", Options{IncludeUsage: true}); !isRequestError(err) {
			t.Errorf("Request(Messages, Chat)(%s) = %v, want a *RequestError", body, err)
		}
	}
}

func isRequestError(err error) bool {
	var re *RequestError
	return errors.As(err, &re) && re.Message != ""
}

// TestMessagesToChatErrorParams: a refused request names the part at
// fault, at every depth (the names are built only for errors).
func TestMessagesToChatErrorParams(t *testing.T) {
	user := func(content string) string {
		return `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"a"},{"role":"user","content":` + content + `}]}`
	}
	for _, c := range []struct{ body, param string }{
		{`{"system":[{"type":"text","text":"a"},{"type":"image"}],"messages":[]}`, "system[1]"},
		{`{"system":5,"messages":[]}`, "system"},
		{`{"messages":[{"role":"user","content":"a"},{"role":"robot","content":"x"}]}`, "messages[1].role"},
		{`{"messages":[{"role":"user","content":"a"},{"role":"system","content":[{"type":"image"}]}]}`, "messages[1].content[0]"},
		{`{"messages":[{"role":"system","content":5}]}`, "messages[0].content"},
		{user(`5`), "messages[1].content"},
		{user(`[{"type":"text","text":5}]`), "messages[1].content.text"},
		{user(`[{"type":"text","text":"a"},{"type":"search_result"}]`), "messages[1].content[1]"},
		{user(`[{"type":"text","text":"a"},{"type":"image","source":{"type":"file","file_id":"f"}}]`), "messages[1].content[1].source"},
		{user(`[{"type":"document","source":{"type":"url","url":"u"}}]`), "messages[1].content[0].source"},
		{user(`[{"type":"tool_result","tool_use_id":"t","content":5}]`), "messages[1].content[0].content"},
		{user(`[{"type":"text","text":"a"},{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"},{"type":"search_result"}]}]`), "messages[1].content[1].content[1]"},
		{user(`[{"type":"tool_result","tool_use_id":"t","content":[{"type":"image","source":{"type":"file"}}]}]`), "messages[1].content[0].content[0].source"},
		{`{"messages":[{"role":"assistant","content":5}]}`, "messages[0].content"},
		{`{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"text","text":"x"},{"type":"image"}]}]}`, "messages[1].content[1]"},
	} {
		_, err := Request(Messages, Chat, []byte(c.body), "gpt", Options{IncludeUsage: true})
		var re *RequestError
		if !errors.As(err, &re) || re.Param != c.param {
			t.Errorf("%s: error %v, want one at %s", c.body, err, c.param)
		}
	}
}

// TestReadMessagesRequestKeepsHints: the Anthropic reader keeps what only
// some writers use: each cache breakpoint on the part its block gave (or,
// for a block that gave none, the part before it in its turn; none inside
// a tool result), on the tool (a server tool's on the tool before it), the
// assistant turns' signed thinking as thinking parts, top_k and the
// budget as given.
func TestReadMessagesRequestKeepsHints(t *testing.T) {
	const cc = `"cache_control":{"type":"ephemeral"}`
	body := `{"max_tokens":10,"top_k":7,"thinking":{"type":"enabled","budget_tokens":3000},` +
		`"system":[{"type":"text","text":"a"},{"type":"text","text":"",` + cc + `},{"type":"text","text":"b","cache_control":null}],` +
		`"messages":[{"role":"user","content":[{"type":"text","text":"q",` + cc + `},` +
		`{"type":"tool_result","tool_use_id":"t0","content":[{"type":"text","text":"r",` + cc + `}],` + cc + `}]},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"no signature",` + cc + `},` +
		`{"type":"thinking","thinking":"hm","signature":"sig","extra":1},{"type":"server_tool_use","id":"s","name":"web_search",` + cc + `},` +
		`{"type":"redacted_thinking","data":"xyz"},{"type":"tool_use","id":"t1","name":"f","input":{}}]},` +
		`{"role":"system","content":[{"type":"text","text":"c",` + cc + `}]}],` +
		`"tools":[{"type":"web_search_20250305","name":"web_search",` + cc + `},{"name":"f","input_schema":{}},` +
		`{"type":"bash_20250124","name":"bash",` + cc + `},{"name":"g","input_schema":{},` + cc + `},{"name":"h","input_schema":{}}]}`
	req, err := readMessagesRequest([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := range req.messages {
		m := &req.messages[i]
		for _, p := range req.partsOf(m) {
			s := p.text + string(p.block)
			if p.cache {
				s += "*"
			}
			got = append(got, s)
		}
		got = append(got, "|")
	}
	want := []string{"a*", "b", "|", "q*", "*", "r", "|",
		`{"type":"thinking","thinking":"hm","signature":"sig"}*`, `{"type":"redacted_thinking","data":"xyz"}`, "{}", "|", "c*", "|"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parts (* for a breakpoint)\n got %q\nwant %q", got, want)
	}
	var tools []bool
	for _, tl := range req.tools {
		tools = append(tools, tl.cache)
	}
	if !reflect.DeepEqual(tools, []bool{true, true, false}) {
		t.Errorf("tools' breakpoints %v, want f (the bash tool's) and g", tools)
	}
	if req.topK == nil || *req.topK != 7 || req.budget != 3000 {
		t.Errorf("top_k %v, budget %d: want 7 and 3000 as given", req.topK, req.budget)
	}
}
