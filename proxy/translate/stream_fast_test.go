package translate

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// The stream fast paths (json_write.go, json_read.go, stream_read_*_fast.go,
// stream_write_*_fast.go) must give byte for byte what encoding/json gives. These
// tests hold them to it piece by piece (the string escaper, the readers, the
// writers) and whole: a converter fed a stream must write the same bytes as
// one that takes encoding/json for every event (general set).

// adversarialStrings are strings whose escaping is easy to get wrong.
var adversarialStrings = []string{
	"", "plain", `"quoted" \back\slash/`, "<script>&amp;</script>", "\x00\x01\x1f\x7f",
	"\b\f\n\r\t", "\u2028\u2029", "é ü 日本 🎉", "\xff\xfe invalid \xc3", "\xed\xa0\x80 surrogate in UTF-8",
	"\xef\xbf\xbd replacement", "tail \xe2\x80", "\u2027\u202a", "mixed <\n\"\u2028\xff>",
}

func TestAppendJSONString(t *testing.T) {
	for _, s := range adversarialStrings {
		checkJSONString(t, s)
	}
	for b := range 256 { // every single byte
		checkJSONString(t, string([]byte{byte(b)}))
		checkJSONString(t, "a"+string([]byte{byte(b)})+"z")
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range adversarialStrings {
		f.Add(s)
	}
	f.Fuzz(checkJSONString)
}

func checkJSONString(t *testing.T, s string) {
	t.Helper()
	want, _ := json.Marshal(s)
	if got := appendJSONString(nil, s, true); !bytes.Equal(got, want) {
		t.Errorf("appendJSONString(%q, html) = %s, want %s", s, got, want)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	want = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if got := appendJSONString([]byte("prefix"), s, false); !bytes.Equal(got, append([]byte("prefix"), want...)) {
		t.Errorf("appendJSONString(%q) = %s, want prefix%s", s, got, want)
	}
}

// readerSeeds are events for FuzzFastEventReaders: the common ones, and
// near misses the readers must refuse or read as encoding/json does.
var readerSeeds = []string{
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`,
	`{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{\"a\":\u00e9\ud83c\udf89\ud800"}}`,
	` { "index" : 12 , "delta" : { "type" : "thinking_delta" , "thinking" : "x\/y" , "extra" : [1] } , "type" : "content_block_delta" } `,
	`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig","text":null}}`,
	`{"type":"content_block_delta","Index":1,"delta":{"type":"text_delta","text":"a"}}`,
	`{"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"a"}}`,
	`{"type":"content_block_delta","index":1e0,"delta":{"type":"text_delta","text":"a"}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"},"delta":{"text":"b"}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","text":"b"}} x`,
	`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}`,
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Hi"},"logprobs":null,"finish_reason":null}]}`,
	`{"id":"c","model":"m","service_tier":"default","system_fingerprint":"fp","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"finish_reason":null}],"usage":null,"obfuscation":"x1"}`,
	`{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_1","type":"function","function":{"name":"f","arguments":"{\""}}]}}]}`,
	`{"id":"c","choices":[{"index":0,"delta":{"reasoning":"think","reasoning_content":""},"finish_reason":"stop","finish_reason":null}]}`,
	`{"id":"c","choices":[{"index":0,"delta":{"reasoning":null,"tool_calls":null}}],"error":null}`,
	`{"id":"c","choices":[{"index":1,"delta":{"content":"x"}}]}`,
	`{"id":5,"choices":[{"index":0,"delta":{"content":"x"}}]}`,
	`{"id":"c","choices":[{"index":0,"delta":{"content":"x"}}],"usage":{"prompt_tokens":1}}`,
	`{"id":"c","choices":[],"usage":{"prompt_tokens":25,"completion_tokens":15,"total_tokens":40,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":7,"accepted_prediction_tokens":0}}}`,
	`{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":320,"completion_tokens":20,"total_tokens":340}}`,
	`{"id":"c","choices":null,"usage":{"prompt_tokens":null,"prompt_tokens_details":null,"completion_tokens_details":null,"cost":{"usd":0.1}}}`,
	`{"usage":{"prompt_tokens_details":{"cached_tokens":5,"cache_write_tokens":2,"":1}},"choices":[]}`,
	`{"usage":{"prompt_tokens_details":{"cached_tokens":5},"prompt_tokens_details":{"cache_write_tokens":2}}}`,
	`{"usage":{"prompt_tokens_details":{"cached_tokens":5,"cached_tokens":null}}}`,
	`{"usage":{"completion_tokens_details":{"reasoning_tokens":1,"reasoning_tokens":2}}}`,
	`{"usage":{"total_tokens":1,"Total_tokens":2}}`,
	`{"usage":{"prompt_tokens":1},"usage":null}`,
	`{"usage":{"prompt_tokens":-1}}`,
	`{"usage":{"prompt_tokens":1.5}}`,
	`{"usage":{"prompt_tokens":1234567890}}`,
	`{"usage":{"prompt_tokens_details":[]}}`,
	`{"usage":{"completion_tokens_details":"x"}}`,
	`{"usage":[]}`,
	`{"choices":[],"choices":[]}`,
	`{"choices":[{"index":0,"delta":{}}, {"index":1,"delta":{}}]}`,
	`{"choices":{}}`,
	`{}`,
	`{"id":"c","choices":[{"index":0,"delta":{"content":"\u0000\u001f\t"}}]}`,
}

// FuzzFastEventReaders: whatever a reader takes, encoding/json reads
// without error and to the same values.
func FuzzFastEventReaders(f *testing.F) {
	for _, s := range readerSeeds {
		f.Add("", []byte(s))
		f.Add("content_block_delta", []byte(s))
	}
	for _, s := range takenEvents {
		f.Add("", []byte(s))
	}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		checkBlockDeltaReader(t, name, data)
		checkChunkReader(t, data)
		checkEventReader(t, data)
	})
}

func TestFastEventReaders(t *testing.T) {
	taken := 0
	for _, s := range readerSeeds {
		for _, name := range []string{"", "content_block_delta", "message_delta"} {
			taken += checkBlockDeltaReader(t, name, []byte(s))
		}
		taken += checkChunkReader(t, []byte(s))
	}
	if taken < 10 {
		t.Errorf("the readers took only %d of the seeds", taken)
	}
	for _, s := range takenChunks {
		if checkChunkReader(t, []byte(s)) == 0 {
			t.Errorf("readChunk did not take %s", s)
		}
	}
	for _, s := range takenEvents {
		if checkEventReader(t, []byte(s)) == 0 {
			t.Errorf("readEvent did not take %s", s)
		}
	}
	for _, s := range refusedEvents {
		if checkEventReader(t, []byte(s)) == 1 {
			t.Errorf("readEvent took %s", s)
		}
	}
}

// takenEvents are the Anthropic events other than deltas that readEvent
// must take.
var takenEvents = []string{
	`{"type":"message_start","message":{"id":"msg_01Stream","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"cache_creation_input_tokens":300,"cache_read_input_tokens":2000,"output_tokens":1,"cache_creation":{"ephemeral_5m_input_tokens":300,"ephemeral_1h_input_tokens":0},"service_tier":"standard"}}}`,
	`{"type":"message_start","message":{"id":null,"model":"m","content":[{"type":"text","text":"pre"}],"usage":null}}`,
	`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
	`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
	`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01Paris","name":"get_weather","input":{ "city" : "Paris" }}}`,
	`{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"abc"}}`,
	`{"type":"content_block_stop","index":3}`,
	`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":12,"cache_creation_input_tokens":300,"cache_read_input_tokens":2000,"output_tokens":9}}`,
	`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":80,"input_tokens":null,"server_tool_use":{"web_search_requests":1}}}`,
	`{"type":"message_stop"}`,
	`{"type":"ping"}`,
	`{"type":"future_event","foo":[1,{"a":null}]}`,
}

// refusedEvents are near misses that readEvent leaves to encoding/json.
var refusedEvents = []string{
	`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
	`{"type":"content_block_stop","index":-1}`,
	`{"type":"content_block_stop","index":null}`,
	`{"type":"content_block_stop","index":1,"index":2}`,
	`{"type":"message_delta","Usage":{"output_tokens":1}}`,
	`{"type":"message_delta","usage":{"output_tokens":1.5}}`,
	`{"type":"message_delta","usage":{"output_tokens":1,"output_tokens":null}}`,
	`{"type":"message_start","message":{"content":[null]}}`,
	`{"type":"message_start","message":{"usage":{"input_tokens":"1"}}}`,
	`{"type":"message_stop"} {}`,
	`not json at all`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":["not","a string"]}}`,
}

// checkEventReader reports 1 if readEvent took the event.
func checkEventReader(t *testing.T, data []byte) int {
	t.Helper()
	var r jsonReader
	var got anthropicEvent
	if !r.readEvent(data, &got) {
		return 0
	}
	var want anthropicEvent
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatalf("taken, but encoding/json fails: %v\n%s", err, data)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read %+v, encoding/json %+v\n%s", got, want, data)
	}
	return 1
}

// takenChunks are the ends of streams that readChunk must take: the
// finish chunk, with the usage or without, and the usage chunk.
var takenChunks = []string{
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":320,"completion_tokens":20,"total_tokens":340}}`,
	`{"id":"chatcmpl-Str3am","object":"chat.completion.chunk","created":1700000001,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}`,
	`{"id":"chatcmpl-Str3am","object":"chat.completion.chunk","created":1700000001,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_1","choices":[],"usage":{"prompt_tokens":2312,"completion_tokens":3,"total_tokens":2315,"prompt_tokens_details":{"cached_tokens":2000,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}`,
	`{"id":"c","choices":[],"usage":{"prompt_tokens":25,"completion_tokens":15,"total_tokens":40,"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":3},"completion_tokens_details":{"reasoning_tokens":7,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}`,
}

// checkBlockDeltaReader reports 1 if the reader took the event.
func checkBlockDeltaReader(t *testing.T, name string, data []byte) int {
	t.Helper()
	var r jsonReader
	var d anthropicDelta
	index, ok := r.readBlockDelta(name, data, &d)
	if !ok {
		return 0
	}
	var ev anthropicEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatalf("taken, but encoding/json fails: %v\n%s", err, data)
	}
	if ev.Delta == nil || ev.Index != index || *ev.Delta != d || cmpOr(name, ev.Type) != "content_block_delta" {
		t.Fatalf("read %d %+v, encoding/json %d %+v\n%s", index, d, ev.Index, ev.Delta, data)
	}
	return 1
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// checkChunkReader reports 1 if the reader took the chunk.
func checkChunkReader(t *testing.T, data []byte) int {
	t.Helper()
	var r jsonReader
	var c, noIDs fastChunk
	if !r.readChunk(data, true, &c) {
		if r.readChunk(data, false, &noIDs) {
			t.Fatalf("taken only without ids\n%s", data)
		}
		return 0
	}
	if !r.readChunk(data, false, &noIDs) || !reflect.DeepEqual(noIDs.choice, c.choice) {
		t.Fatalf("without ids: %+v, with: %+v\n%s", noIDs.choice, c.choice, data)
	}
	var want chatStreamChunk
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatalf("taken, but encoding/json fails: %v\n%s", err, data)
	}
	if len(want.Choices) > 1 || len(want.Choices) == 1 != c.hasChoice || !isNull(want.Error) || want.ID != c.id || want.Model != c.model {
		t.Fatalf("taken, but encoding/json reads %+v\n%s", want, data)
	}
	if c.hasChoice && !reflect.DeepEqual(normalChoice(want.Choices[0]), normalChoice(c.choice)) {
		t.Fatalf("read %+v, encoding/json %+v\n%s", c.choice, want.Choices[0], data)
	}
	if (want.Usage != nil) != c.hasUsage || c.hasUsage && (!reflect.DeepEqual(*want.Usage, c.usage.chatUsage)) {
		t.Fatalf("read usage %v %+v, encoding/json %+v\n%s", c.hasUsage, c.usage, want.Usage, data)
	}
	return 1
}

// normalChoice sets what the converters do not tell apart to one value:
// reasoning as reasoningText reads it.
func normalChoice(c chatStreamChoice) chatStreamChoice {
	c.Delta.ReasoningContent = reasoningText(c.Delta.ReasoningContent, c.Delta.Reasoning)
	c.Delta.Reasoning = nil
	if len(c.Delta.ToolCalls) == 0 {
		c.Delta.ToolCalls = nil
	}
	return c
}

func TestFastEventWriters(t *testing.T) {
	for i, s := range adversarialStrings {
		checkFastWriters(t, s, i*7, adversarialStrings[len(adversarialStrings)-1-i])
	}
}

func FuzzFastEventWriters(f *testing.F) {
	for i, s := range adversarialStrings {
		f.Add(s, i, adversarialStrings[len(adversarialStrings)-1-i])
	}
	f.Fuzz(checkFastWriters)
}

// checkFastWriters compares every hand writer with encoding/json, for text
// as the delta, index as the indexes and id as the ids and the model.
func checkFastWriters(t *testing.T, text string, index int, id string) {
	t.Helper()
	same := func(what string, got, want []byte) {
		t.Helper()
		if !bytes.Equal(got, want) {
			t.Fatalf("%s\n--- got\n%s\n--- want\n%s", what, got, want)
		}
	}
	for _, typ := range []string{"text_delta", "input_json_delta"} {
		fast := &messagesWriter{openIndex: index}
		general := &messagesWriter{openIndex: index, general: true}
		same(typ, fast.appendDelta(nil, typ, text), general.appendDelta(nil, typ, text))
	}
	checkEndWriters(t, text, index, id)
	fast := &chatWriter{id: id, model: text + id, created: int64(index), started: true}
	general := *fast
	general.general = true
	empty := ""
	for _, d := range []chatDelta{{Content: &text}, {ReasoningContent: text},
		{ToolCalls: []chatToolDelta{{Index: index, Function: chatFunctionDelta{Arguments: text}}}},
		{}, {Role: "assistant", Content: &empty}, {Role: text, Content: &id, ReasoningContent: text},
		{ToolCalls: []chatToolDelta{{Index: index, ID: id, Type: "function", Function: chatFunctionDelta{Name: text}},
			{Index: -index, Type: text, Function: chatFunctionDelta{Name: id, Arguments: text}}}}} {
		for _, finish := range []string{"", "stop", text} {
			same("chunk", fast.chunk([]byte("before"), d, finish), general.chunk([]byte("before"), d, finish))
		}
	}
	n := int64(index)
	for _, u := range []anthropicUsage{{}, {InputTokens: n, CacheCreationInputTokens: n / 3, CacheReadInputTokens: -n, OutputTokens: n * n},
		{InputTokens: 1 << 62, CacheCreationInputTokens: 0, CacheReadInputTokens: 1, OutputTokens: -1 << 63}} {
		for _, stop := range []stopKind{stopEnd, stopLength, stopTool, stopRefusal} {
			f, g := *fast, general
			f.includeUsage, g.includeUsage = true, true
			st := streamState{usage: u.usage(), stop: stop}
			same("finish", f.finish(nil, &st), g.finish(nil, &st))
		}
	}
	h := eventHeader{Type: "response.output_text.delta", SequenceNumber: int64(index)}
	for _, ev := range []interface {
		streamEvent
		append([]byte) []byte
	}{
		textDeltaEvent{h, id, index, index + 1, text, []struct{}{}},
		refusalDeltaEvent{h, id, index, index + 1, text},
		summaryDeltaEvent{h, id, index, 0, text},
		argumentsDeltaEvent{h, id, index, text},
	} {
		same("responses", ev.append([]byte("x")), appendResponsesEvent([]byte("x"), ev))
	}
}

// checkEndWriters compares the hand writers of the start and the end of
// ChatToMessagesStream's output with encoding/json: text and id as the
// strings, index as the block index and the source of the counts.
func checkEndWriters(t *testing.T, text string, index int, id string) {
	t.Helper()
	n := int64(index)
	for _, usage := range []Usage{{}, {InputTokens: n, OutputTokens: n * 3, CacheReadTokens: n / 2, CacheWriteTokens: -n},
		{InputTokens: 1 << 62, OutputTokens: -1 << 63, CacheReadTokens: n, CacheWriteTokens: 1}} {
		for _, final := range []bool{false, true} { // the upstream's usage, or the estimate
			var outs [2][]byte
			for i, general := range []bool{false, true} {
				s := &messagesWriter{general: general, next: index, estimate: n * 7}
				st := &streamState{usage: usage, finalUsage: final, stop: stopKind(index & 3)}
				out := s.start(nil, "chatcmpl-"+id+"x", text, st)
				out = s.openBlock(out, blockText, "", "")
				out = s.openBlock(out, blockTool, id, text)
				out = s.closeBlock(out)
				out = s.closeBlock(out)
				s.open = blockTool
				outs[i] = s.finish(out, st)
			}
			if !bytes.Equal(outs[0], outs[1]) {
				t.Fatalf("start and end\n--- fast\n%s\n--- general\n%s", outs[0], outs[1])
			}
		}
	}
}

// TestFastPathStreams feeds every golden stream to converters on the fast
// path and on encoding/json alone.
func TestFastPathStreams(t *testing.T) {
	for dir, newConv := range streamConverters {
		files, _ := filepath.Glob(filepath.Join("testdata", dir, "*.in.sse"))
		if len(files) == 0 {
			t.Fatalf("no streams in testdata/%s", dir)
		}
		for _, path := range files {
			checkFastPath(t, newConv, readTestdata(t, path))
		}
	}
	// The event's name, not its type, says what it is.
	checkFastPath(t, streamConverters["stream_messages_to_chat"], []byte(
		"event: message_start\ndata: {\"message\":{\"id\":\"msg_1\",\"model\":\"m\",\"content\":[],\"usage\":{\"input_tokens\":3}}}\n\n"+
			"event: content_block_start\ndata: {\"type\":\"ping\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"a\"}}\n\n"+
			"event: content_block_stop\ndata: {\"index\":0}\n\n"+
			"event: message_delta\ndata: {\"delta\":{\"stop_reason\":\"max_tokens\"},\"usage\":{\"output_tokens\":2}}\n\n"+
			"event: message_stop\ndata: {}\n\n"))
}

// streamConverters makes the converter of each golden stream directory.
var streamConverters = map[string]func() streamConverter{
	"stream_messages_to_chat":   func() streamConverter { return mustStream(Messages, Chat, Options{IncludeUsage: true}) },
	"stream_chat_to_messages":   func() streamConverter { return mustStream(Chat, Messages, Options{InputEstimate: goldenEstimate}) },
	"responses_stream_chat":     func() streamConverter { return mustStream(Chat, Responses, Options{}) },
	"responses_stream_messages": func() streamConverter { return mustStream(Messages, Responses, Options{}) },
}

// madeUpInStream matches the ids made up from rand.Text.
var madeUpInStream = regexp.MustCompile(`[A-Z2-7]{26}`)

// checkFastPath feeds stream, ended each way, to a converter from newConv
// and to one on encoding/json alone, and compares what they write.
func checkFastPath(t *testing.T, newConv func() streamConverter, stream []byte) {
	t.Helper()
	for _, end := range []func(s streamConverter) []byte{finish, fail} {
		var outs [2][]byte
		for i, general := range []bool{false, true} {
			s := newConv()
			setGeneral(s, general)
			for _, ev := range parseSSE(stream) {
				out, err := s.Event(ev.name, ev.data)
				outs[i] = append(outs[i], out...)
				outs[i] = append(outs[i], errorText(err)...)
			}
			outs[i] = append(outs[i], end(s)...)
			outs[i] = madeUpInStream.ReplaceAll(outs[i], []byte("MADE-UP"))
		}
		if !bytes.Equal(outs[0], outs[1]) {
			t.Fatalf("the fast path differs\n--- input\n%s\n--- fast\n%s\n--- general\n%s", stream, outs[0], outs[1])
		}
	}
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	var se *StreamError
	if errors.As(err, &se) {
		return "\n!stream error: " + se.Type + " " + se.Message + "\n"
	}
	return "\n!error: " + strings.ReplaceAll(err.Error(), "\n", " ") + "\n"
}

// setGeneral sets a converter on encoding/json alone, or not, and fixes
// its created time so that two converters write the same.
func setGeneral(s streamConverter, general bool) {
	st := s.(*Stream)
	switch r := st.reader.(type) {
	case *chatReader:
		r.general = general
	case *messagesReader:
		r.general = general
	}
	switch w := st.writer.(type) {
	case *chatWriter:
		w.general = general
	case *messagesWriter:
		w.general = general
	case *responsesWriter:
		w.general = general
	}
	setCreated(st, goldenCreated)
}

// TestMarshalChatRequest: marshalChatRequest writes what marshal does, for
// every golden request.
func TestMarshalChatRequest(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*", "*.in.json"))
	for _, path := range files {
		checkMarshalChatRequest(t, readTestdata(t, path))
	}
	checkMarshalChatRequest(t, []byte(`{"messages":[],"tools":[{"name":"<a&b>","description":"\u2028","input_schema":{ "a" : [ 1 , "x \" y\\\\" , { } ] ,"b\\\\":"\" \" "}},{"name":"n","input_schema":"not an object"}]}`))
	for _, src := range []string{`{}`, ` [ 1 , 2 ] `, `"a \" b"`, `{"k\\\\":"v \\\\\" w", "x" : null}`, "{\t\"a\"\r\n:\n1}"} {
		var want bytes.Buffer
		_ = json.Compact(&want, []byte(src))
		if got := appendCompactValid(nil, []byte(src)); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("appendCompactValid(%s) = %s, want %s", src, got, want.Bytes())
		}
	}
}

// chatRequestOutOf is the chat request that Request(Messages, Chat, …)
// marshals.
func chatRequestOutOf(body []byte, upstreamModel string, includeUsage bool) (*chatRequestOut, error) {
	req, err := readMessagesRequest(body)
	if err != nil {
		return nil, err
	}
	return writeChatRequest(&req, upstreamModel, includeUsage), nil
}

func checkMarshalChatRequest(t *testing.T, body []byte) {
	t.Helper()
	req, err := chatRequestOutOf(body, goldenGPT, true)
	if err != nil {
		return
	}
	want, wantErr := marshal(req)
	got, gotErr := marshalChatRequest(req)
	if !bytes.Equal(got, want) || (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("marshalChatRequest differs from marshal (%v, %v)\n--- got\n%s\n--- want\n%s", gotErr, wantErr, got, want)
	}
}
