package translate

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// The answer fast paths (fastresponse.go) must give what decode and
// marshal give: the reader the same values whenever it takes a body, the
// writer the same bytes, and ChatResponseToMessages the same answer as
// decode and marshal alone.

// chatResponseReaderCases are answers and whether readChatResponse takes
// them: the common shapes and near misses.
var chatResponseReaderCases = []struct {
	body  string
	taken bool
}{
	{benchCompletion, true},
	{`{}`, true},
	{`{"choices":null,"usage":null}`, true},
	{`{"choices":[]}`, true},
	{`{"choices":[null]}`, false},
	{`{"choices":{}}`, false},
	{`{"choices":[{"finish_reason":"stop"}],"choices":null}`, false},
	{`{"id":"a","id":"b"}`, false},
	{`{"ID":"a"}`, false},
	{`{"choices":[{"message":null,"finish_reason":null,"logprobs":{"content":[{"token":"a","logprob":-0.5}]}}]}`, true},
	{`{"choices":[{"message":{"content":"a","content":"b"}}]}`, false},
	{`{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}]}`, true},
	{`{"choices":[{"message":{"content":{"x":1}}}]}`, true}, // decodeContent refuses it later, as before
	{`{"choices":[{"message":{"role":"assistant","content":"\u00e9\ud83d\ude00\"<&>\u2028","refusal":null,"annotations":[],"audio":null}}]}`, true},
	{"{\"choices\":[{\"message\":{\"content\":\"\xff\"}}]}", false}, // raw: invalid UTF-8 is left to decode
	{`{"choices":[{"message":{"content":null,"refusal":"no","tool_calls":null}}]}`, true},
	{`{"choices":[{"message":{"tool_calls":[]}}]}`, true},
	{`{"choices":[{"message":{"tool_calls":[null]}}]}`, false},
	{`{"choices":[{"message":{"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\": 1}"}},{"id":null,"function":null}]}}]}`, true},
	{`{"choices":[{"message":{"tool_calls":[{"function":{"name":"f","name":"g"}}]}}]}`, false},
	{`{"choices":[{"message":{"tool_calls":[{"function":{"arguments":{"a":1}}}]}}]}`, false},
	{`{"choices":[{"index":0},{"index":1,"message":{"content":"second"}}]}`, true},
	{`{"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3,"prompt_tokens_details":{"cached_tokens":1,"cache_write_tokens":0},"completion_tokens_details":{"reasoning_tokens":5}}}`, true},
	{`{"usage":{"prompt_tokens":1.5}}`, false},
	{`{"usage":{"prompt_tokens":-1}}`, false},
	{`{"usage":{"prompt_tokens_details":{"cached_tokens":1},"prompt_tokens_details":null}}`, false},
	{`{"usage":[]}`, false},
	{`{"model":"m"} x`, false},
	{`null`, false},
	{``, false},
}

func TestChatResponseReader(t *testing.T) {
	for _, c := range chatResponseReaderCases {
		if got := checkChatResponseReader(t, []byte(c.body)); got != c.taken {
			t.Errorf("readChatResponse took %q: %v, want %v", c.body, got, c.taken)
		}
	}
}

// TestChatResponseReaderTakesGoldens: the reader takes every golden
// answer that decodes, so that the common shapes stay on the fast path.
func TestChatResponseReaderTakesGoldens(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "response_chat_to_messages", "*.in.json"))
	if len(files) < 8 {
		t.Fatalf("%d golden answers", len(files))
	}
	for _, path := range files {
		body := readTestdata(t, path)
		var resp chatResponse
		if decode(body, &resp) == nil && !checkChatResponseReader(t, body) {
			t.Errorf("%s: not taken", path)
		}
	}
}

func FuzzChatResponseReader(f *testing.F) {
	addAnswerSeeds(f, func(body []byte, _ int) { f.Add(body) })
	for _, c := range chatResponseReaderCases {
		f.Add([]byte(c.body))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkChatResponseReader(t, data)
	})
}

// addAnswerSeeds calls add with each golden answer.
func addAnswerSeeds(f *testing.F, add func(body []byte, i int)) {
	files, _ := filepath.Glob(filepath.Join("testdata", "response_chat_to_messages", "*.in.json"))
	for i, path := range files {
		if data, err := os.ReadFile(path); err == nil {
			add(data, i)
		}
	}
	add([]byte(benchCompletion), len(files))
}

// checkChatResponseReader reports whether readChatResponse took data,
// and if so checks that decode takes it too, to the same value, that
// responseText reads its contents as decodeContent does, and that
// ChatResponseToMessages answers as decode and marshal alone do.
func checkChatResponseReader(t *testing.T, data []byte) bool {
	t.Helper()
	var r jsonReader
	var got chatResponse
	if !r.readChatResponse(data, &got) {
		return false
	}
	var want chatResponse
	if err := decode(data, &want); err != nil {
		t.Fatalf("taken, but decode fails: %v\n%q", err, data)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read %+v\ndecode %+v\n%q", got, want, data)
	}
	for _, c := range got.Choices {
		text, parts, _, _ := decodeContent[chatPart](c.Message.Content)
		for _, p := range parts {
			text += p.Text
		}
		if got := responseText(c.Message.Content); got != text {
			t.Fatalf("responseText(%s) = %q, decodeContent %q", c.Message.Content, got, text)
		}
	}
	fast, fastUsage, fastErr := ChatResponseToMessages(data)
	general, generalUsage, generalErr := generalChatResponseToMessages(data)
	fast, general = madeUpInStream.ReplaceAll(fast, []byte("MADE-UP")), madeUpInStream.ReplaceAll(general, []byte("MADE-UP"))
	if !bytes.Equal(fast, general) || fastUsage != generalUsage || errorText(fastErr) != errorText(generalErr) {
		t.Fatalf("ChatResponseToMessages differs (%v, %v)\n--- fast\n%s\n--- general\n%s", fastErr, generalErr, fast, general)
	}
	return true
}

// generalChatResponseToMessages is ChatResponseToMessages on decode and
// marshal alone.
func generalChatResponseToMessages(body []byte) ([]byte, Usage, error) {
	var resp chatResponse
	if err := decode(body, &resp); err != nil {
		return nil, Usage{}, err
	}
	out, usage, err := anthropicAnswer(&resp)
	if err != nil {
		return nil, Usage{}, err
	}
	b, err := marshal(out)
	return b, usage, err
}

func TestMessagesResponseWriter(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "response_chat_to_messages", "*.in.json"))
	for i, path := range files {
		for _, text := range adversarialStrings {
			checkMessagesResponseWriter(t, readTestdata(t, path), text, int64(i)*1000-3)
		}
	}
	for _, out := range []*messagesResponseOut{
		{}, // content nil: null, stop reasons null
		{Content: []any{toolUseBlock{Type: "tool_use"}, textBlock{}}},
		{Content: []any{toolUseBlock{Input: []byte(` { "a" : [ 1 , "\u2028<>" ] } `)}}},
		// What the writer leaves to marshal: these must come out the same.
		{Content: []any{map[string]string{"type": "text"}}},
		{Content: []any{&textBlock{Type: "text"}}},
	} {
		compareMessagesResponseWriter(t, out)
	}
}

// FuzzMessagesResponseWriter writes the answer to the fuzzer's body, with
// text added to its strings and n to its counts, and compares it with
// marshal.
func FuzzMessagesResponseWriter(f *testing.F) {
	addAnswerSeeds(f, func(body []byte, i int) {
		f.Add(body, adversarialStrings[i%len(adversarialStrings)], int64(i)-2)
	})
	f.Fuzz(checkMessagesResponseWriter)
}

func checkMessagesResponseWriter(t *testing.T, body []byte, text string, n int64) {
	t.Helper()
	var resp chatResponse
	if decode(body, &resp) != nil {
		return
	}
	out, _, err := anthropicAnswer(&resp)
	if err != nil {
		return
	}
	out.ID += text
	out.Model += text
	for i, block := range out.Content {
		switch b := block.(type) {
		case textBlock:
			b.Text += text
			out.Content[i] = b
		case toolUseBlock:
			b.ID += text
			b.Name += text
			out.Content[i] = b
		}
	}
	*out.StopReason += text
	out.Usage.InputTokens += n
	out.Usage.CacheReadInputTokens -= n
	out.Usage.OutputTokens *= n
	compareMessagesResponseWriter(t, &out)
}

// compareMessagesResponseWriter checks that marshalMessagesResponse
// writes out as marshal does, and that appendMessagesResponse, when it
// takes out, writes the same after what the buffer held.
func compareMessagesResponseWriter(t *testing.T, out *messagesResponseOut) {
	t.Helper()
	want, wantErr := marshal(out)
	got, gotErr := marshalMessagesResponse(out)
	if !bytes.Equal(got, want) || (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("marshalMessagesResponse differs from marshal (%v, %v)\n--- got\n%s\n--- want\n%s", gotErr, wantErr, got, want)
	}
	if b, ok := appendMessagesResponse([]byte("x"), out); ok && (wantErr != nil || string(b) != "x"+string(want)) {
		t.Fatalf("appendMessagesResponse differs from marshal (%v)\n--- got\n%s\n--- want\nx%s", wantErr, b, want)
	}
}
