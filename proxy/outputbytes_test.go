package proxy

import (
	"encoding/json"
	"testing"
)

// TestScanChatChunk: the one-pass scan counts what a decoder would give
// (escapes decoded, every tool call's arguments, nothing for null or
// non-string values or a key that only appears inside a string) and
// spots the chunks that may end the stream.
func TestScanChatChunk(t *testing.T) {
	for _, tc := range []struct {
		data   string
		want   int
		mayEnd bool
	}{
		{`{"choices":[{"delta":{"content":"Hello"},"finish_reason":null}],"usage":null}`, 5, false},
		{`{"choices":[{"delta":{"content" :  "Hel\"lo\n"}}]}`, 7, false},
		{`{"delta":{"content":"caf\u00e9 \u4e16 \ud83d\ude00"}}`, len("café 世 😀"), false},
		{`{"delta":{"role":"assistant","content":null,"refusal":null}}`, 0, false},
		{`{"logprobs":{"content":[{"token":"a"}]}}`, 0, false},
		{`{"delta":{"content":"say \"usage\":{} and \"content\":\"x\""}}`, len(`say "usage":{} and "content":"x"`), false},
		{`{"delta":{"tool_calls":[{"function":{"arguments":"{\"a\":"}},{"function":{"arguments":"1}"}}]}}`, 7, false},
		{`{"delta":{"reasoning_content":"abc","reasoning":"abc"}}`, 3, false},
		{`{"delta":{"reasoning":"abcd"}}`, 4, false},
		{`{"choices":[{"delta":{},"finish_reason":"stop"}]}`, 0, true},
		{`{"choices":[],"usage":{"prompt_tokens":1}}`, 0, true},
		{`{"delta":{"content":"unterminated`, 12, false},
		{`{"content":`, 0, false},
	} {
		c := scanChatChunk([]byte(tc.data))
		if c.outputBytes != int64(tc.want) || c.mayEnd != tc.mayEnd {
			t.Errorf("scanChatChunk(%s) = %d bytes, may end %v; want %d, %v", tc.data, c.outputBytes, c.mayEnd, tc.want, tc.mayEnd)
		}
	}
}

func TestMessagesAndResponsesOutputBytes(t *testing.T) {
	for _, tc := range []struct {
		data string
		f    func([]byte) int64
		want int
	}{
		{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi \"you\""}}`, messagesBlockOutputBytes, 8},
		{`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\":"}}`, messagesBlockOutputBytes, 8},
		{`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}`, messagesBlockOutputBytes, 3},
		{`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}`, messagesBlockOutputBytes, 0},
		{`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`, messagesBlockOutputBytes, 0},
		{`{"type":"response.output_text.delta","item_id":"msg_1","delta":"word ","logprobs":[]}`, responsesDeltaOutputBytes, 5},
		{`{"type":"response.function_call_arguments.delta","item_id":"fc_1","delta":"{\"a\":1}"}`, responsesDeltaOutputBytes, 7},
	} {
		if got := tc.f([]byte(tc.data)); got != int64(tc.want) {
			t.Errorf("%s: %d bytes, want %d", tc.data, got, tc.want)
		}
	}
}

// TestJSONStringBytesMatchesDecoder on strings with every kind of escape.
func TestJSONStringBytesMatchesDecoder(t *testing.T) {
	for _, s := range []string{"", "plain", "tab\tand\nnewline", `quote " backslash \ slash /`, "é世😀", "\u2028\x01"} {
		quoted, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		ascii := []byte(`"`)
		for _, r := range s {
			if r < 0x80 {
				b, _ := json.Marshal(string(r))
				ascii = append(ascii, b[1:len(b)-1]...)
				continue
			}
			for _, u := range utf16Units(r) {
				ascii = append(ascii, []byte(`\u`+hex4(u))...)
			}
		}
		ascii = append(ascii, '"')
		for _, enc := range [][]byte{quoted, ascii} {
			if got := jsonStringBytes(enc, 0); got != int64(len(s)) {
				t.Errorf("jsonStringBytes(%s) = %d, want %d", enc, got, len(s))
			}
		}
	}
}

func utf16Units(r rune) []rune {
	if r < 0x10000 {
		return []rune{r}
	}
	r -= 0x10000
	return []rune{0xD800 + r>>10, 0xDC00 + r&0x3FF}
}

func hex4(r rune) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[r>>12&15], digits[r>>8&15], digits[r>>4&15], digits[r&15]})
}
