package translate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// The Anthropic answer fast paths (decodeMessagesResponse, answer_write_chat_fast.go) must give what decode
// and marshal give: the reader the same values whenever it takes a body,
// the writer the same bytes, and Answer(Messages, Chat) the same answer
// as decode and marshal alone.

// messagesResponseReaderCases are answers and whether the reader takes
// them: the common shapes and near misses.
var messagesResponseReaderCases = []struct {
	body  string
	taken bool
}{
	{`{}`, true},
	{`{"content":null,"usage":null,"stop_reason":null,"id":null}`, true},
	{`{"content":[]}`, true},
	{`{"content":[null]}`, false},
	{`{"content":{}}`, false},
	{`{"id":"a","id":"b"}`, false},
	{`{"ID":"a"}`, false},
	{`{"type":"error","error":{"type":"overloaded_error","message":"x"}}`, true},
	{`{"content":[{"type":"text","text":"a","text":"b"}]}`, false},
	{`{"content":[{"type":"text","text":"\u00e9\ud83d\ude00\"<&>\u2028","citations":null}]}`, true},
	{"{\"content\":[{\"type\":\"text\",\"text\":\"\xff\"}]}", true},
	{`{"content":[{"type":"tool_use","id":"t","name":"f","input":{ "a" : [1, "\u00e9"] }},{"type":"tool_use","input":[ 1 ]}]}`, true},
	{`{"content":[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"redacted_thinking","data":"x"}]}`, true},
	{`{"usage":{"input_tokens":1,"output_tokens":2,"cache_creation_input_tokens":3,"cache_read_input_tokens":4,"server_tool_use":{"web_search_requests":1}}}`, true},
	{`{"usage":{"input_tokens":null}}`, true},
	{`{"usage":{"input_tokens":1.5}}`, false},
	{`{"usage":{"input_tokens":-1}}`, false},
	{`{"usage":{"input_tokens":1,"input_tokens":2}}`, false},
	{`{"usage":[]}`, false},
	{`{"stop_reason":5}`, false},
	{`{"model":"m"} x`, false},
	{`null`, false},
	{``, false},
}

func TestMessagesResponseReader(t *testing.T) {
	for _, c := range messagesResponseReaderCases {
		if got := checkMessagesResponseReader(t, []byte(c.body)); got != c.taken {
			t.Errorf("readMessage took %q: %v, want %v", c.body, got, c.taken)
		}
	}
}

// TestMessagesResponseFallback: what the reader refuses, decode reads, so
// that Answer(Messages, Chat) answers and words its errors as before.
func TestMessagesResponseFallback(t *testing.T) {
	for _, c := range messagesResponseReaderCases {
		data := []byte(c.body)
		var got, want messagesResponse
		gotErr, wantErr := decodeMessagesResponse(data, &got), decode(data, &want)
		if !reflect.DeepEqual(got, want) || errorText(gotErr) != errorText(wantErr) {
			t.Errorf("decodeMessagesResponse(%q) = %+v, %v; decode %+v, %v", data, got, gotErr, want, wantErr)
		}
		compareMessagesResponseToChat(t, data)
	}
}

// TestMessagesResponseReaderTakesGoldens: the reader takes every golden
// answer that decodes, so that the common shapes stay on the fast path.
func TestMessagesResponseReaderTakesGoldens(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "response_messages_to_chat", "*.in.json"))
	if len(files) < 8 {
		t.Fatalf("%d golden answers", len(files))
	}
	for _, path := range files {
		body := readTestdata(t, path)
		var resp messagesResponse
		if decode(body, &resp) == nil && !checkMessagesResponseReader(t, body) {
			t.Errorf("%s: not taken", path)
		}
	}
}

func FuzzMessagesResponseReader(f *testing.F) {
	addMessagesAnswerSeeds(f, func(body []byte, _ int) { f.Add(body) })
	for _, c := range messagesResponseReaderCases {
		f.Add([]byte(c.body))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkMessagesResponseReader(t, data)
	})
}

// addMessagesAnswerSeeds calls add with each golden Anthropic answer.
func addMessagesAnswerSeeds(f *testing.F, add func(body []byte, i int)) {
	files, _ := filepath.Glob(filepath.Join("testdata", "response_messages_to_chat", "*.in.json"))
	for i, path := range files {
		if data, err := os.ReadFile(path); err == nil {
			add(data, i)
		}
	}
}

// checkMessagesResponseReader reports whether the reader took data, and
// if so checks that decode takes it too, to the same value, and that
// Answer(Messages, Chat) answers as decode and marshal alone do.
func checkMessagesResponseReader(t *testing.T, data []byte) bool {
	t.Helper()
	var r jsonReader
	var got messagesResponse
	r.reset(data)
	if !r.readMessage(&got) || !r.end() {
		return false
	}
	var want messagesResponse
	if err := decode(data, &want); err != nil {
		t.Fatalf("taken, but decode fails: %v\n%q", err, data)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read %+v\ndecode %+v\n%q", got, want, data)
	}
	compareMessagesResponseToChat(t, data)
	return true
}

// compareMessagesResponseToChat checks that answerAt(Messages, Chat)
// answers data as decode and marshal alone do.
func compareMessagesResponseToChat(t *testing.T, data []byte) {
	t.Helper()
	fast, fastUsage, fastErr := answerAt(Messages, Chat, data, 1)
	general, generalUsage, generalErr := generalMessagesResponseToChat(data)
	fast, general = madeUpInStream.ReplaceAll(fast, []byte("MADE-UP")), madeUpInStream.ReplaceAll(general, []byte("MADE-UP"))
	if !bytes.Equal(fast, general) || fastUsage != generalUsage || errorText(fastErr) != errorText(generalErr) {
		t.Fatalf("Answer(Messages, Chat) differs (%v, %v)\n--- fast\n%s\n--- general\n%s", fastErr, generalErr, fast, general)
	}
}

// generalMessagesResponseToChat is answerAt(Messages, Chat) on decode and
// marshal alone.
func generalMessagesResponseToChat(body []byte) ([]byte, Usage, error) {
	var resp messagesResponse
	if err := decode(body, &resp); err != nil {
		return nil, Usage{}, fmt.Errorf("translate: anthropic answer: %w", err)
	}
	out, usage, err := chatCompletionOf(&resp, 1)
	if err != nil {
		return nil, Usage{}, err
	}
	b, err := marshal(out)
	return b, usage, err
}

// chatCompletionOf is the chat completion that Answer(Messages, Chat, …)
// marshals.
func chatCompletionOf(resp *messagesResponse, created int64) (chatResponseOut, Usage, error) {
	var room answerParts
	a, parts, err := readMessagesAnswer(resp, room[:0])
	if err != nil {
		return chatResponseOut{}, Usage{}, err
	}
	return writeChatAnswer(&a, parts, created), a.usage, nil
}

func TestChatResponseWriter(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "response_messages_to_chat", "*.in.json"))
	for i, path := range files {
		for _, text := range adversarialStrings {
			checkChatResponseWriter(t, readTestdata(t, path), text, int64(i)*1000-3)
		}
	}
	empty := ""
	for _, out := range []*chatResponseOut{
		{}, // choices nil: null
		{Choices: []chatChoiceOut{}},
		{Choices: []chatChoiceOut{{Message: chatResponseMessage{Content: &empty, Refusal: &empty, ToolCalls: []chatToolCall{}}}, {Index: -1}},
			Usage: chatUsage{PromptTokensDetails: &chatPromptDetails{CacheWriteTokens: -1}}},
		// What the writer leaves to marshal: these must come out the same.
		{Choices: []chatChoiceOut{{Logprobs: &struct{}{}}}},
	} {
		compareChatResponseWriter(t, out)
	}
}

// FuzzChatResponseWriter writes the answer to the fuzzer's body, with
// text added to its strings and n to its counts, and compares it with
// marshal.
func FuzzChatResponseWriter(f *testing.F) {
	addMessagesAnswerSeeds(f, func(body []byte, i int) {
		f.Add(body, adversarialStrings[i%len(adversarialStrings)], int64(i)-2)
	})
	f.Fuzz(checkChatResponseWriter)
}

func checkChatResponseWriter(t *testing.T, body []byte, text string, n int64) {
	t.Helper()
	var resp messagesResponse
	if decode(body, &resp) != nil {
		return
	}
	out, _, err := chatCompletionOf(&resp, n)
	if err != nil {
		return
	}
	out.ID += text
	out.Model += text
	for i := range out.Choices {
		m := &out.Choices[i].Message
		if m.Content != nil {
			*m.Content += text
		}
		m.ReasoningContent += text
		for j := range m.ToolCalls {
			m.ToolCalls[j].ID += text
			m.ToolCalls[j].Function.Arguments += text
		}
		out.Choices[i].FinishReason += text
	}
	out.Usage.PromptTokens += n
	out.Usage.PromptTokensDetails.CacheWriteTokens -= n
	compareChatResponseWriter(t, &out)
}

// compareChatResponseWriter checks that marshalChatResponse writes out as
// marshal does, and that appendChatResponse, when it takes out, writes
// the same after what the buffer held.
func compareChatResponseWriter(t *testing.T, out *chatResponseOut) {
	t.Helper()
	want, wantErr := marshal(out)
	got, gotErr := marshalChatResponse(out)
	if !bytes.Equal(got, want) || (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("marshalChatResponse differs from marshal (%v, %v)\n--- got\n%s\n--- want\n%s", gotErr, wantErr, got, want)
	}
	if b, ok := appendChatResponse([]byte("x"), out); ok && (wantErr != nil || string(b) != "x"+string(want)) {
		t.Fatalf("appendChatResponse differs from marshal (%v)\n--- got\n%s\n--- want\nx%s", wantErr, b, want)
	}
}
