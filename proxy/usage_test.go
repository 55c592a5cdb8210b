package proxy

import "testing"

func TestUsageFromBody(t *testing.T) {
	for _, tc := range []struct {
		name   string
		body   string
		p      protocol
		wantIn int64
		wantOK bool
	}{
		{"openai", `{"id":"x","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":2}}`, protoOpenAI, 7, true},
		{"anthropic", `{"id":"x","content":[],"usage":{"input_tokens":5,"output_tokens":1}}`, protoAnthropic, 5, true},
		{"usage first, spaces", ` { "usage" : {"prompt_tokens":3} , "choices":[] } `, protoOpenAI, 3, true},
		{"only inside the content", `{"choices":[{"message":{"content":"{\"usage\":{\"prompt_tokens\":9}}"}}],"x":{"usage":{"prompt_tokens":8}}}`, protoOpenAI, 0, false},
		{"escaped key", `{"us\u0061ge":{"prompt_tokens":4}}`, protoOpenAI, 4, true},
		{"the last of two", `{"usage":{"prompt_tokens":1},"usage":{"prompt_tokens":2}}`, protoOpenAI, 2, true},
		{"null", `{"usage":null}`, protoOpenAI, 0, false},
		{"none", `{"choices":[]}`, protoOpenAI, 0, false},
		{"not an object", `[{"usage":{"prompt_tokens":1}}]`, protoOpenAI, 0, false},
		{"truncated", `{"usage":{"prompt_tokens":1}`, protoOpenAI, 0, false},
		{"empty", ``, protoOpenAI, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := usageFromBody([]byte(tc.body), tc.p)
			if ok != tc.wantOK || got.InputTokens != tc.wantIn {
				t.Errorf("usageFromBody = %+v, %v; want input %d, %v", got, ok, tc.wantIn, tc.wantOK)
			}
		})
	}
}
