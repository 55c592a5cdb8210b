package translate

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The request fast paths (request_read_messages_fast.go, request_write_chat_fast.go) must give
// what decode and marshal give. These tests hold the readers to decode
// (the same values whenever a reader takes a body, and a refusal for what
// they leave to it) and the writer to marshal (the same bytes).

// requestReaderCases are bodies and whether readMessagesRequest takes them:
// near misses of the common shapes, each refused or read as decode reads it.
var requestReaderCases = []struct {
	body  string
	taken bool
}{
	{benchMessagesRequest, true},
	{`{}`, true},
	{` {"model" : "m" , "max_tokens" : 123456789 } `, true},
	{`{"Max_tokens":5}`, false}, // encoding/json takes it as max_tokens
	{`{"MAX_TOKENS":5}`, false},
	{`{"model":"m","Model":"x"}`, false},
	{`{"max-tokens":5}`, false},
	{`{"maxtokens":5}`, true}, // no field: ignored
	{`{"max_\u0074okens":5}`, false},
	{"{\"\xc3\xbf\":1}", false},
	{`{"max_tokens":5,"max_tokens":6}`, false},
	{`{"metadata":{"user_id":"a","user_id":"b"}}`, false},
	{`{"metadata":{"user_id":"a"},"metadata":null}`, false},
	{`{"messages":[{"role":"user","role":"assistant","content":"x"}]}`, false},
	{`{"unknown":1,"unknown":2}`, true}, // ignored both times
	{`{"max_tokens":1.0}`, false},
	{`{"max_tokens":1e3}`, false},
	{`{"max_tokens":-1}`, false},
	{`{"max_tokens":-0}`, false},
	{`{"max_tokens":1234567890}`, false},
	{`{"max_tokens":00}`, false},
	{`{"max_tokens":null,"temperature":null,"stream":null,"tool_choice":null,"metadata":null}`, true},
	{`{"temperature":0.7,"top_p":-0,"stream":false}`, true},
	{`{"temperature":1e400}`, false},
	{`{"temperature":1E-400}`, true},
	{`{"temperature":"1"}`, false},
	{`{"stream":"true"}`, false},
	{`{"stream":1}`, false},
	{`{"messages":null}`, true},
	{`{"messages":[]}`, true},
	{`{"messages":[null]}`, false},
	{`{"messages":{}}`, false},
	{`{"messages":[{"role":null,"content":null}]}`, true},
	{`{"system":null}`, true},
	{`{"system":"\u00e9\ud83d\ude00\"<&>"}`, true},
	{"{\"system\":\"\xff\"}", false},
	{"{\"metadata\":{\"user_id\":\"\xff\xfe\"}}", true},
	{"{\"system\":\"a\x01\"}", false},
	{`{"system":"\x"}`, false},
	{`{"system":"\u12"}`, false},
	{`{"system":"\u12zz and on"}`, false},
	{`{"system":["\uD83D\uDE00","\ud800\u0041"]}`, true},
	{`{"model":"m"} {}`, false},
	{`{"model":"m",}`, false},
	{`[]`, false},
	{`null`, false},
	{``, false},
	{`{"tools":[{"input_schema":{"a":1,}}]}`, false},
	{`{"tools":[{"name":"t","input_schema":{ "type" : "object" , "properties" : { } }}],"tool_choice":{"type":"tool","name":"t","disable_parallel_tool_use":true}}`, true},
	{`{"tools":null,"stop_sequences":null}`, true},
	{`{"tools":[],"stop_sequences":[]}`, true},
	{`{"stop_sequences":["a",null]}`, false},
	{`{"stop_sequences":["a","\n"]}`, true},
	{`{"thinking":{"type":"enabled","budget_tokens":null}}`, true},
	{`{"top_k":40,"thinking":{"type":"enabled","budget_tokens":2048}}`, true},
	{`{"top_k":null}`, true},
	{`{"top_k":0}`, true},
	{`{"top_k":-1}`, false},
	{`{"top_k":1.5}`, false},
	{`{"top_k":"5"}`, false},
	{`{"top_k":5,"top_k":6}`, false},
	{`{"Top_k":5}`, false},
	{`{"tools":[{"name":"t","input_schema":{},"cache_control":{"type":"ephemeral"}},{"type":"web_search_20250305","name":"w","cache_control":null}]}`, true},
	{`{"tools":[{"name":"t","cache_control":{},"cache_control":{}}]}`, false},
	{`{"tools":[{"name":"t","cache_control":{"type":"ephemeral",}}]}`, false},
	{`{"thinking":{"type":"enabled","budget_tokens":2048,"budget_tokens":4096}}`, false},
	{`{"output_config":{"format":{"type":"json_schema","schema":{"type":"object"}},"effort":"high"}}`, true},
	{`{"output_config":{"format":null}}`, true},
	{`{"context_management":{"edits":[{"type":"clear","keep":{"n":[true,false,null,-1.5e+3]}}]}}`, true},
	{`{"unknown":` + strings.Repeat("[", 150) + strings.Repeat("]", 150) + `}`, false},
}

// contentReaderCases are contents and whether readContent takes them.
var contentReaderCases = []struct {
	content string
	taken   bool
}{
	{`"text"`, true},
	{` "text" `, true},
	{`null`, true},
	{``, true},
	{`[]`, true},
	{`[null]`, false},
	{`{}`, false},
	{`5`, false},
	{`"a" x`, false},
	{`[{"type":"text","text":"a"}] x`, false},
	{`[{"type":"text","Text":"a"}]`, false},
	{`[{"type":"text","text":"a","text":"b"}]`, false},
	{`[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}}]`, true},
	{`[{"type":"tool_use","id":"t","name":"f","input":{ "a" : [1, "\u00e9"] }}]`, true},
	{`[{"type":"tool_use","input":{ "k" : "a \" b  \\\\" ,` + "\n\t" + `"long" : "` + strings.Repeat("x y ", 80) + `" }},{"type":"tool_use","input":[ 1 ]}]`, true},
	{`[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"r"}],"is_error":true}]`, true},
	{`[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA=="}}]`, true},
	{`[{"type":"thinking","thinking":"hm","signature":"sig"},{"type":"text","text":null}]`, true},
	{`[{"type":"text","text":"a","cache_control":null},{"type":"redacted_thinking","data":"xyz","cache_control":{"type":"ephemeral","ttl":"1h"}}]`, true},
	{`[{"type":"text","text":"a","cache_control":{},"cache_control":{}}]`, false},
	{`[{"type":"text","text":"a","Cache_control":{}}]`, false},
	{`[{"type":"text","text":"a","cache_control":[1,]}]`, false},
	{`[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"r","cache_control":{"type":"ephemeral"}}],"cache_control":"x"}]`, true},
}

func TestRequestReaders(t *testing.T) {
	for _, c := range requestReaderCases {
		if got := checkRequestReader(t, []byte(c.body)); got != c.taken {
			t.Errorf("readMessagesRequest took %q: %v, want %v", c.body, got, c.taken)
		}
	}
	for _, c := range contentReaderCases {
		if got := checkContentReader(t, []byte(c.content)); got != c.taken {
			t.Errorf("readContent took %q: %v, want %v", c.content, got, c.taken)
		}
	}
}

// TestRequestReadersTakeGoldens: the readers take every golden request
// that decodes, and all its contents, so that the common shapes stay on
// the fast path.
func TestRequestReadersTakeGoldens(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "messages_to_chat", "*.in.json"))
	if len(files) < 20 {
		t.Fatalf("%d golden requests", len(files))
	}
	for _, path := range files {
		body := readTestdata(t, path)
		var req messagesRequest
		if decode(body, &req) != nil {
			continue
		}
		if !checkRequestReader(t, body) {
			t.Errorf("%s: not taken", path)
		}
		for _, raw := range requestContents(&req) {
			if _, _, _, err := decodeContent[anthropicBlock](raw); err == nil && !checkContentReader(t, raw) {
				t.Errorf("%s: content not taken: %s", path, raw)
			}
		}
	}
}

// requestContents gives the contents of a request that decodeBlocks reads.
func requestContents(req *messagesRequest) []json.RawMessage {
	list := []json.RawMessage{req.System}
	for _, m := range req.Messages {
		list = append(list, m.Content)
	}
	return list
}

func FuzzRequestReaders(f *testing.F) {
	for _, pattern := range []string{"messages_to_chat/*.in.json", "chat_to_messages/*.in.json"} {
		files, _ := filepath.Glob(filepath.Join("testdata", pattern))
		for _, path := range files {
			if data, err := os.ReadFile(path); err == nil {
				f.Add(data)
			}
		}
	}
	for _, c := range requestReaderCases {
		f.Add([]byte(c.body))
	}
	for _, c := range contentReaderCases {
		f.Add([]byte(c.content))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkRequestReader(t, data)
		checkContentReader(t, data)
	})
}

// checkRequestReader reports whether readMessagesRequest took data, and
// if so checks that decode takes it too, to the same value, and checks
// the content reader on each of its contents.
func checkRequestReader(t *testing.T, data []byte) bool {
	t.Helper()
	var r jsonReader
	var got messagesRequest
	if !r.readMessagesRequest(data, &got) {
		return false
	}
	var want messagesRequest
	if err := decode(data, &want); err != nil {
		t.Fatalf("taken, but decode fails: %v\n%q", err, data)
	}
	if !reflect.DeepEqual(got, want) || !sameFloat(got.Temperature, want.Temperature) || !sameFloat(got.TopP, want.TopP) {
		t.Fatalf("read %+v\ndecode %+v\n%q", got, want, data)
	}
	for _, raw := range requestContents(&got) {
		checkContentReader(t, raw)
	}
	return true
}

// sameFloat compares as reflect.DeepEqual does, but tells -0 from 0,
// which marshal writes differently.
func sameFloat(a, b *float64) bool {
	return a == nil || b == nil || math.Signbit(*a) == math.Signbit(*b)
}

// checkContentReader reports whether readContent took raw, and if so
// checks that decodeContent takes it too, to the same value, and checks
// the contents of its tool results the same way.
func checkContentReader(t *testing.T, raw []byte) bool {
	t.Helper()
	var r jsonReader
	text, blocks, isArray, ok := r.readContent(raw)
	if !ok {
		return false
	}
	wantText, wantBlocks, wantIsArray, err := decodeContent[anthropicBlock](raw)
	if err != nil {
		t.Fatalf("taken, but decodeContent fails: %v\n%q", err, raw)
	}
	if text != wantText || isArray != wantIsArray || !reflect.DeepEqual(blocks, wantBlocks) {
		t.Fatalf("read %q %v %+v\ndecodeContent %q %v %+v\n%q", text, isArray, blocks, wantText, wantIsArray, wantBlocks, raw)
	}
	for _, b := range blocks {
		if b.Content != nil {
			checkContentReader(t, b.Content)
		}
		checkToolArguments(t, b.Input)
	}
	return true
}

// checkToolArguments holds toolArguments, which compacts input without
// checking it, to json.Compact on what a reader or decode gave.
func checkToolArguments(t *testing.T, input json.RawMessage) {
	t.Helper()
	want := "{}"
	var buf bytes.Buffer
	if trimmed := bytes.TrimSpace(input); len(trimmed) > 0 && trimmed[0] == '{' && json.Compact(&buf, trimmed) == nil {
		want = buf.String()
	}
	if got := toolArguments(input); got != want {
		t.Fatalf("toolArguments(%s) = %s, want %s", input, got, want)
	}
}

// writerFloats are floats around the edges of encoding/json's formats.
var writerFloats = []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 0.7, 1e-6, 9.99e-7, 1e-7, 1.5e-10, 1e20, 1e21,
	123456789e15, 5e-324, math.MaxFloat64, -math.SmallestNonzeroFloat64, 2.5e-300, 1.0 / 3}

func TestChatRequestWriter(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*", "*.in.json"))
	for _, path := range files {
		body := readTestdata(t, path)
		for _, text := range adversarialStrings {
			checkChatRequestWriter(t, body, text, 0, false)
		}
	}
	for i, f := range writerFloats {
		checkChatRequestWriter(t, []byte(benchMessagesRequest), adversarialStrings[i%len(adversarialStrings)], f, true)
	}
	yes := true
	for _, req := range []*chatRequestOut{
		{}, // messages nil: null
		{chatRequestHead: chatRequestHead{Model: "<&>\u2028", Messages: []chatMessageOut{
			{Role: "user", Content: []chatPartOut{{Type: "file", File: &chatFile{}}, {Type: "file", File: &chatFile{FileID: "f"}},
				{Type: "image_url", ImageURL: &chatImageURL{URL: "u\"\\"}}, {Type: "text"}}},
			{Role: "user", Content: []chatPartOut(nil)},
			{Role: "assistant", Content: nil, ToolCalls: []chatToolCall{{ID: "a", Type: "function"}}, ToolCallID: "x"},
		}, Stop: []string{}, StreamOptions: &chatStreamOptions{}}},
		{chatRequestTail: chatRequestTail{ToolChoice: "", ParallelToolCalls: new(bool), ResponseFormat: &chatResponseFormat{Type: "text"}}},
		{chatRequestTail: chatRequestTail{ResponseFormat: &chatResponseFormat{Type: "json_schema",
			JSONSchema: &chatJSONSchema{Name: "n", Description: "d", Schema: json.RawMessage(`{ "a" : [ 1 ] }`), Strict: &yes}}}},
		// What the writer leaves to marshal: these must come out the same.
		{chatRequestHead: chatRequestHead{Messages: []chatMessageOut{{Role: "user", Content: []string{"a"}}}}},
		{chatRequestTail: chatRequestTail{ToolChoice: map[string]string{"type": "auto"}}},
		{chatRequestTail: chatRequestTail{ToolChoice: &chatToolChoiceFunction{Type: "function"}}},
		{chatRequestHead: chatRequestHead{Temperature: ptr(math.NaN())}},
		{chatRequestHead: chatRequestHead{TopP: ptr(math.Inf(-1))}},
	} {
		compareChatRequestWriter(t, req)
	}
}

func ptr[T any](v T) *T { return &v }

// FuzzChatRequestWriter writes what the fuzzer's body translates to, with
// text added to its strings and f as its top_p if setF, and compares it
// with marshal. Most mutations of a body break it, so text is what puts
// odd strings into every field of a request that translates.
func FuzzChatRequestWriter(f *testing.F) {
	for _, pattern := range []string{"messages_to_chat/*.in.json", "chat_to_messages/*.in.json"} {
		files, _ := filepath.Glob(filepath.Join("testdata", pattern))
		for i, path := range files {
			if data, err := os.ReadFile(path); err == nil {
				f.Add(data, adversarialStrings[i%len(adversarialStrings)], writerFloats[i%len(writerFloats)], i%2 == 0)
			}
		}
	}
	f.Add([]byte(benchMessagesRequest), "", 0.7, false)
	f.Fuzz(checkChatRequestWriter)
}

func checkChatRequestWriter(t *testing.T, body []byte, text string, f float64, setF bool) {
	t.Helper()
	req, err := chatRequestOutOf(body, "gpt", true)
	if err != nil {
		return
	}
	if text != "" {
		addText(req, text)
	}
	if setF {
		req.TopP = &f
	}
	compareChatRequestWriter(t, req)
}

// addText appends text to every string of req that the writer escapes.
func addText(req *chatRequestOut, text string) {
	req.Model += text
	req.User += text
	req.Stop = append(req.Stop, text)
	for i := range req.Messages {
		m := &req.Messages[i]
		m.ToolCallID += text
		switch c := m.Content.(type) {
		case string:
			m.Content = c + text
		case []chatPartOut:
			for j := range c {
				c[j].Text += text
				if c[j].ImageURL != nil {
					c[j].ImageURL.URL += text
				}
				if c[j].File != nil {
					c[j].File.Filename += text
				}
			}
		}
		for j := range m.ToolCalls {
			tc := &m.ToolCalls[j]
			tc.ID += text
			tc.Function.Name += text
			tc.Function.Arguments += text
		}
	}
	for i := range req.Tools {
		req.Tools[i].Function.Name += text
		req.Tools[i].Function.Description += text
	}
	switch c := req.ToolChoice.(type) {
	case string:
		req.ToolChoice = c + text
	case chatToolChoiceFunction:
		c.Function.Name += text
		req.ToolChoice = c
	}
	if rf := req.ResponseFormat; rf != nil && rf.JSONSchema != nil {
		rf.JSONSchema.Description += text
	}
}

// compareChatRequestWriter checks that marshalChatRequest writes req as
// marshal does, and fails as it does; and that appendChatRequest, when it
// takes req, writes the same after what the buffer held.
func compareChatRequestWriter(t *testing.T, req *chatRequestOut) {
	t.Helper()
	want, wantErr := marshal(req)
	got, gotErr := marshalChatRequest(req)
	if !bytes.Equal(got, want) || (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("marshalChatRequest differs from marshal (%v, %v)\n--- got\n%s\n--- want\n%s", gotErr, wantErr, got, want)
	}
	if b, ok := appendChatRequest([]byte("x"), req); ok && (wantErr != nil || string(b) != "x"+string(want)) {
		t.Fatalf("appendChatRequest differs from marshal (%v)\n--- got\n%s\n--- want\nx%s", wantErr, b, want)
	}
}
