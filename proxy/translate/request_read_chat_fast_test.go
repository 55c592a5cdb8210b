package translate

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// The chat request fast paths (request_read_chat_fast.go,
// request_write_messages_fast.go) must give what decode and marshal give: the
// readers the same values whenever they take a body, and a refusal for
// what they leave to decode; the writer the same bytes; and Request(Chat, Messages)
// the same answer as decode and marshal alone.

// chatRequestReaderCases are bodies and whether readChatRequest takes them.
var chatRequestReaderCases = []struct {
	body  string
	taken bool
}{
	{`{}`, true},
	{` {"model" : "m" , "max_tokens" : 123456789 , "max_completion_tokens" : 0 } `, true},
	{`{"Messages":[]}`, false},
	{`{"MAX_TOKENS":5}`, false},
	{`{"max_\u0074okens":5}`, false},
	{`{"max_tokens":5,"max_tokens":6}`, false},
	{`{"n":1,"n":2}`, false},
	{`{"unknown":1,"unknown":2}`, true},
	{`{"max_tokens":1.0}`, false},
	{`{"max_completion_tokens":-1}`, false},
	{`{"n":1e1}`, false},
	{`{"max_tokens":null,"max_completion_tokens":null,"n":null,"temperature":null,"top_p":null,"stream":null,"parallel_tool_calls":null,"user":null,"safety_identifier":null,"response_format":null}`, true},
	{`{"temperature":0.7,"top_p":-0,"stream":true,"n":2,"parallel_tool_calls":false}`, true},
	{`{"temperature":1e400}`, false},
	{`{"temperature":"1"}`, false},
	{`{"parallel_tool_calls":"false"}`, false},
	{`{"parallel_tool_calls":0}`, false},
	{`{"user":5}`, false},
	{`{"user":"u","safety_identifier":"s\u00e9"}`, true},
	{"{\"user\":\"\xff\"}", true},
	{`{"stop":"x","tool_choice":"auto","functions":[{"name":"f"}],"function_call":{"name":"f"}}`, true},
	{`{"stop":["a",null],"tool_choice":null,"functions":null,"function_call":"none"}`, true},
	{`{"stop":[1,}`, false},
	{`{"messages":null}`, true},
	{`{"messages":[]}`, true},
	{`{"messages":[null]}`, false},
	{`{"messages":{}}`, false},
	{`{"messages":[{"role":null,"content":null,"tool_calls":null,"tool_call_id":null}]}`, true},
	{`{"messages":[{"role":"user","role":"system"}]}`, false},
	{`{"messages":[{"role":"user","Content":"x"}]}`, false},
	{`{"messages":[{"role":"tool","tool_call_id":"c","content":[{"type":"text","text":"a"}],"name":"n"}]}`, true},
	{`{"messages":[{"role":"assistant","tool_calls":[]}]}`, true},
	{`{"messages":[{"role":"assistant","tool_calls":[null]}]}`, false},
	{`{"messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}},{"id":null,"function":null}]}]}`, true},
	{`{"messages":[{"role":"assistant","tool_calls":[{"function":{"arguments":{"a":1}}}]}]}`, false},
	{`{"tools":null}`, true},
	{`{"tools":[]}`, true},
	{`{"tools":[null]}`, false},
	{`{"tools":[{"type":"function","function":{"name":"f","description":"d","parameters":{ "type" : "object" },"strict":true}}]}`, true},
	{`{"tools":[{"type":"function","function":null},{"function":{"parameters":null}}]}`, true},
	{`{"tools":[{"function":{"name":"f","name":"g"}}]}`, false},
	{`{"tools":[{"function":{"parameters":{"a":1,}}}]}`, false},
	{`{"tools":[{"function":[]}]}`, false},
	{`{"response_format":{"type":"json_schema","json_schema":{"name":"n","description":"d","schema":{"type":"object"},"strict":true}}}`, true},
	{`{"response_format":{"type":"json_object","json_schema":null}}`, true},
	{`{"response_format":{"json_schema":{"strict":null,"schema":null}}}`, true},
	{`{"response_format":{"json_schema":{"strict":1}}}`, false},
	{`{"response_format":"json"}`, false},
	{`{"reasoning_effort":"high","top_k":40}`, true},
	{`{"reasoning_effort":null,"top_k":null}`, true},
	{`{"reasoning_effort":5}`, false},
	{`{"reasoning_effort":"low","reasoning_effort":"high"}`, false},
	{`{"Reasoning_effort":"high"}`, false},
	{`{"top_k":-1}`, false},
	{`{"top_k":2.0}`, false},
	{`{"top_k":1,"top_k":2}`, false},
	{`{"model":"m"} {}`, false},
	{`{"model":"m",}`, false},
	{`[]`, false},
	{`null`, false},
	{``, false},
	{`{"metadata":` + "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[" + "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]" + `}`, false},
}

// partsReaderCases are contents and whether readParts takes them.
var partsReaderCases = []struct {
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
	{`[{"type":"text","text":null,"refusal":null,"image_url":null,"file":null}]`, true},
	{`[{"type":"refusal","refusal":"no"},{"type":"text","text":"\u00e9\ud83d\ude00\"<&>"}]`, true},
	{`[{"type":"image_url","image_url":{"url":"https://x/y.png","detail":"high"}},{"type":"image_url","image_url":"data:image/png;base64,AA=="}]`, true},
	{`[{"type":"file","file":{"file_data":"data:application/pdf;base64,AA==","filename":"a.pdf","file_id":null}}]`, true},
	{`[{"type":"file","file":{"filename":"a","filename":"b"}}]`, false},
	{`[{"type":"file","file":"x"}]`, false},
	{`[{"type":"input_audio","input_audio":{"data":"AA==","format":"wav"}}]`, true},
	{`[{"type":5}]`, false},
}

func TestChatRequestReaders(t *testing.T) {
	for _, c := range chatRequestReaderCases {
		if got := checkChatRequestReader(t, []byte(c.body)); got != c.taken {
			t.Errorf("readChatRequest took %q: %v, want %v", c.body, got, c.taken)
		}
	}
	for _, c := range partsReaderCases {
		if got := checkPartsReader(t, []byte(c.content)); got != c.taken {
			t.Errorf("readParts took %q: %v, want %v", c.content, got, c.taken)
		}
	}
}

// TestChatRequestReadersTakeGoldens: the readers take every golden
// request that decodes, and all its contents, so that the common shapes
// stay on the fast path.
func TestChatRequestReadersTakeGoldens(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "chat_to_messages", "*.in.json"))
	if len(files) < 15 {
		t.Fatalf("%d golden requests", len(files))
	}
	for _, path := range files {
		body := readTestdata(t, path)
		var req chatRequest
		if decode(body, &req) != nil {
			continue
		}
		if !checkChatRequestReader(t, body) {
			t.Errorf("%s: not taken", path)
		}
		for _, m := range req.Messages {
			if _, _, _, err := decodeContent[chatPart](m.Content); err == nil && !checkPartsReader(t, m.Content) {
				t.Errorf("%s: content not taken: %s", path, m.Content)
			}
		}
	}
}

func FuzzChatRequestReaders(f *testing.F) {
	for _, pattern := range []string{"chat_to_messages/*.in.json", "messages_to_chat/*.in.json"} {
		files, _ := filepath.Glob(filepath.Join("testdata", pattern))
		for _, path := range files {
			if data, err := os.ReadFile(path); err == nil {
				f.Add(data)
			}
		}
	}
	for _, c := range chatRequestReaderCases {
		f.Add([]byte(c.body))
	}
	for _, c := range partsReaderCases {
		f.Add([]byte(c.content))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkChatRequestReader(t, data)
		checkPartsReader(t, data)
	})
}

// checkChatRequestReader reports whether readChatRequest took data, and
// if so checks that decode takes it too, to the same value, checks the
// parts reader on each of its contents, and checks that Request(Chat, Messages)
// answers as decode and marshal alone do.
func checkChatRequestReader(t *testing.T, data []byte) bool {
	t.Helper()
	var r jsonReader
	var got chatRequest
	if !r.readChatRequest(data, &got) {
		return false
	}
	var want chatRequest
	if err := decode(data, &want); err != nil {
		t.Fatalf("taken, but decode fails: %v\n%q", err, data)
	}
	if !reflect.DeepEqual(got, want) || !sameFloat(got.Temperature, want.Temperature) || !sameFloat(got.TopP, want.TopP) {
		t.Fatalf("read %+v\ndecode %+v\n%q", got, want, data)
	}
	for _, m := range got.Messages {
		checkPartsReader(t, m.Content)
	}
	fast, fastErr := Request(Chat, Messages, data, "claude", Options{})
	general, generalErr := generalChatToMessages(data)
	if !bytes.Equal(fast, general) || errorText(fastErr) != errorText(generalErr) {
		t.Fatalf("Request(Chat, Messages) differs (%v, %v)\n--- fast\n%s\n--- general\n%s", fastErr, generalErr, fast, general)
	}
	return true
}

// messagesRequestFromChat is the translation of a decoded request.
func messagesRequestFromChat(req *chatRequest, upstreamModel string) (messagesRequestOut, error) {
	neutral, err := readChat(req)
	if err != nil {
		return messagesRequestOut{}, err
	}
	neutral.effort = "" // as writeMessagesBody leaves it out for a chat caller
	return writeMessagesRequest(&neutral, upstreamModel)
}

// generalChatToMessages is Request(Chat, Messages) on decode and marshal alone.
func generalChatToMessages(body []byte) ([]byte, error) {
	var req chatRequest
	if err := decode(body, &req); err != nil {
		return nil, decodeError("the request", err)
	}
	out, err := messagesRequestFromChat(&req, "claude")
	if err != nil {
		return nil, err
	}
	return marshal(out)
}

// checkPartsReader reports whether readParts took raw, and if so checks
// that decodeContent takes it too, to the same value.
func checkPartsReader(t *testing.T, raw []byte) bool {
	t.Helper()
	var r jsonReader
	text, parts, isArray, ok := r.readParts(raw)
	if !ok {
		return false
	}
	wantText, wantParts, wantIsArray, err := decodeContent[chatPart](raw)
	if err != nil {
		t.Fatalf("taken, but decodeContent fails: %v\n%q", err, raw)
	}
	if text != wantText || isArray != wantIsArray || !reflect.DeepEqual(parts, wantParts) {
		t.Fatalf("read %q %v %+v\ndecodeContent %q %v %+v\n%q", text, isArray, parts, wantText, wantIsArray, wantParts, raw)
	}
	return true
}

func TestMessagesRequestWriter(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*", "*.in.json"))
	for _, path := range files {
		body := readTestdata(t, path)
		for _, text := range adversarialStrings {
			checkMessagesRequestWriter(t, body, text, 0, false)
		}
	}
	body := readTestdata(t, "testdata/chat_to_messages/tool_round_trip.in.json")
	for i, f := range writerFloats {
		checkMessagesRequestWriter(t, body, adversarialStrings[i%len(adversarialStrings)], f, true)
	}
	for _, req := range []*messagesRequestOut{
		{}, // messages nil: null, system left out
		{System: "", Messages: []anthropicMessageOut{{Content: ""}, {Content: []any(nil)}, {Content: []any{}}, {Content: nil}},
			StopSequences: []string{}, Tools: []anthropicToolOut{{InputSchema: nil}},
			ToolChoice: &anthropicToolChoice{}, Metadata: &anthropicMetadata{}, OutputConfig: &anthropicOutputConfig{}},
		{System: []textBlock(nil), OutputConfig: &anthropicOutputConfig{Format: &anthropicOutputFormat{}}},
		{System: []textBlock{}, Messages: []anthropicMessageOut{{Role: "user", Content: []any{
			sourceBlock{}, sourceBlock{Type: "image", Source: anthropicSource{Type: "url", URL: "u"}, Title: "<t>"},
			toolUseBlock{Input: json.RawMessage(` { "a" : [ 1 , "\u2028<>" ] } `)}, toolUseBlock{},
			toolResultBlock{}, toolResultBlock{Content: []any{textBlock{}}}, toolResultBlock{Content: []any{}}}}}},
		{Tools: []anthropicToolOut{{Name: "n", Description: "d", InputSchema: json.RawMessage(" [ ] ")}},
			OutputConfig: &anthropicOutputConfig{Format: &anthropicOutputFormat{Type: "json_schema", Schema: json.RawMessage(`{ }`)}}},
		// What the writer leaves to marshal: these must come out the same.
		{System: []string{"a"}},
		{System: textBlock{Type: "text"}},
		{Messages: []anthropicMessageOut{{Content: []textBlock{{Type: "text"}}}}},
		{Messages: []anthropicMessageOut{{Content: []any{&textBlock{Type: "text"}}}}},
		{Messages: []anthropicMessageOut{{Content: []any{map[string]string{"type": "text"}}}}},
		{Messages: []anthropicMessageOut{{Content: []any{toolResultBlock{Content: 5}}}}},
		{Messages: []anthropicMessageOut{{Content: []any{toolUseBlock{Input: json.RawMessage{}}}}}},
		{Tools: []anthropicToolOut{{InputSchema: json.RawMessage{}}}},
		{Temperature: ptr(math.NaN())},
		{TopP: ptr(math.Inf(1))},
	} {
		compareMessagesRequestWriter(t, req)
	}
}

// FuzzMessagesRequestWriter writes what the fuzzer's body translates to,
// with text added to its strings and f as its top_p if setF, and compares
// it with marshal.
func FuzzMessagesRequestWriter(f *testing.F) {
	for _, pattern := range []string{"chat_to_messages/*.in.json", "messages_to_chat/*.in.json"} {
		files, _ := filepath.Glob(filepath.Join("testdata", pattern))
		for i, path := range files {
			if data, err := os.ReadFile(path); err == nil {
				f.Add(data, adversarialStrings[i%len(adversarialStrings)], writerFloats[i%len(writerFloats)], i%2 == 0)
			}
		}
	}
	f.Fuzz(checkMessagesRequestWriter)
}

func checkMessagesRequestWriter(t *testing.T, body []byte, text string, f float64, setF bool) {
	t.Helper()
	var req chatRequest
	if decode(body, &req) != nil {
		return
	}
	out, err := messagesRequestFromChat(&req, "claude")
	if err != nil {
		return
	}
	if text != "" {
		addMessagesText(&out, text)
	}
	if setF {
		out.TopP = &f
		out.Temperature = &f
	}
	compareMessagesRequestWriter(t, &out)
}

// addMessagesText appends text to every string of req that the writer
// escapes.
func addMessagesText(req *messagesRequestOut, text string) {
	req.Model += text
	switch s := req.System.(type) {
	case string:
		req.System = s + text
	case []textBlock:
		for i := range s {
			s[i].Text += text
		}
	}
	for i := range req.Messages {
		req.Messages[i].Role += text
		req.Messages[i].Content = addContentText(req.Messages[i].Content, text)
	}
	req.StopSequences = append(req.StopSequences, text)
	for i := range req.Tools {
		req.Tools[i].Name += text
		req.Tools[i].Description += text
	}
	if c := req.ToolChoice; c != nil {
		c.Name += text
	}
	if m := req.Metadata; m != nil {
		m.UserID += text
	}
}

func addContentText(content any, text string) any {
	switch c := content.(type) {
	case string:
		return c + text
	case []any:
		for i, block := range c {
			switch v := block.(type) {
			case textBlock:
				v.Text += text
				c[i] = v
			case sourceBlock:
				v.Title += text
				v.Source.URL += text
				v.Source.MediaType += text
				c[i] = v
			case toolUseBlock:
				v.ID += text
				v.Name += text
				c[i] = v
			case toolResultBlock:
				v.ToolUseID += text
				v.Content = addContentText(v.Content, text)
				c[i] = v
			}
		}
	}
	return content
}

// compareMessagesRequestWriter checks that marshalMessagesRequest writes
// req as marshal does, and fails as it does; and that
// appendMessagesRequest, when it takes req, writes the same after what
// the buffer held.
func compareMessagesRequestWriter(t *testing.T, req *messagesRequestOut) {
	t.Helper()
	want, wantErr := marshal(req)
	got, gotErr := marshalMessagesRequest(req)
	if !bytes.Equal(got, want) || (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("marshalMessagesRequest differs from marshal (%v, %v)\n--- got\n%s\n--- want\n%s", gotErr, wantErr, got, want)
	}
	if b, ok := appendMessagesRequest([]byte("x"), req); ok && (wantErr != nil || string(b) != "x"+string(want)) {
		t.Fatalf("appendMessagesRequest differs from marshal (%v)\n--- got\n%s\n--- want\nx%s", wantErr, b, want)
	}
}

// TestChatRequestFallback: what the readers refuse, decode reads, so that
// Request(Chat, Messages) answers and words its errors as before.
func TestChatRequestFallback(t *testing.T) {
	for _, c := range chatRequestReaderCases {
		data := []byte(c.body)
		var got, want chatRequest
		gotErr, wantErr := decodeChatRequest(data, &got), decode(data, &want)
		if !reflect.DeepEqual(got, want) || errorText(gotErr) != errorText(wantErr) {
			t.Errorf("decodeChatRequest(%q) = %+v, %v; decode %+v, %v", data, got, gotErr, want, wantErr)
		}
		fast, fastErr := Request(Chat, Messages, data, "claude", Options{})
		general, generalErr := generalChatToMessages(data)
		if !bytes.Equal(fast, general) || errorText(fastErr) != errorText(generalErr) {
			t.Errorf("Request(Chat, Messages)(%q) = %s, %v; general %s, %v", data, fast, fastErr, general, generalErr)
		}
	}
	for _, c := range partsReaderCases {
		text, parts, isArray, err := decodeParts([]byte(c.content))
		wantText, wantParts, wantIsArray, wantErr := decodeContent[chatPart]([]byte(c.content))
		if text != wantText || isArray != wantIsArray || !reflect.DeepEqual(parts, wantParts) || errorText(err) != errorText(wantErr) {
			t.Errorf("decodeParts(%q) = %q %v %+v %v; decodeContent %q %v %+v %v", c.content, text, isArray, parts, err, wantText, wantIsArray, wantParts, wantErr)
		}
	}
}
