package translate

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// The signatures of the captured answers: 96 bytes (no padding) and 64
// (padded), both with + and /.
const (
	answerSignature = "pU3KGCUwux1tEyze1iN7LtkeP3IfyxlxF0SU1kk8nVw0YL4xIB5p/tqg7ui5mX9cfCmZ/a/lkyU81lSvTfrXFCegrrP+6SMvivIhH57kkcWxC+y1Vjv8Hm+TQn7LyP4p"
	streamSignature = "VeXNjkbcjtS3wnZNKlpNdncG+F2GkAJK1r2jQBvpyMvMyTX2zR9hImrhUziuGjQATTO6DSRqwEyBsbryPjv57g=="
)

func TestGeminiCallID(t *testing.T) {
	idChars := regexp.MustCompile(`^[A-Za-z0-9_-]+$`) // what Anthropic allows in a tool_use id
	for _, tc := range []struct {
		name, signature, want string
	}{
		{"none", "", ""},
		{"unpadded", answerSignature, answerSignature},
		{"padded", streamSignature, streamSignature},
		{"short", "c2ln", "c2ln"},
		{"url-safe given, standard given back", "-_-_", "+/+/"},
		{"not base64: dropped", "not base64!", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := geminiCallID("0a1b2c3d", 7, tc.signature)
			if !strings.HasPrefix(id, "call_gemini_0a1b2c3d_7") || !idChars.MatchString(id) {
				t.Errorf("id %q", id)
			}
			if got := geminiSignature(id); got != tc.want {
				t.Errorf("signature %q, want %q", got, tc.want)
			}
		})
	}
	for _, id := range []string{"", "call_abc", "toolu_01A09q90qw90lq917835lq9", "call_gemini_", "call_gemini_0a1b2c3d_x_c2ln",
		"call_gemini_0a1b2c3d__c2ln", "call_gemini_0a1b2c3d_1_", "call_gemini_0a1b2c_1_c2ln", "call_gemini_0a1b2c3d_1_c2l@",
		"xcall_gemini_0a1b2c3d_1_c2ln"} {
		if got := geminiSignature(id); got != "" {
			t.Errorf("geminiSignature(%q) = %q, want none", id, got)
		}
	}
	if a, b := geminiTag("resp-1"), geminiTag("resp-1"); a != b || len(a) != 8 || a == geminiTag("resp-2") {
		t.Errorf("tags %q, %q, %q: want the same for the same response, another for another", a, b, geminiTag("resp-2"))
	}
	if a, b := geminiTag(""), geminiTag(""); a == b || len(a) != 8 {
		t.Errorf("tags without a response id %q, %q: want random ones", a, b)
	}
}

// TestGeminiSignatureRoundTrip: the thoughtSignature of a Gemini 3 call
// goes to the caller inside the call's id and comes back on that same
// functionCall part when the caller sends the call and its result back, in
// each caller protocol, from an answer and from a stream; the parallel call
// that had none gets none.
func TestGeminiSignatureRoundTrip(t *testing.T) {
	answer := readTestdata(t, "testdata/gemini/answer_thinking_calls.json")
	stream := readTestdata(t, "testdata/gemini/stream_tool_calls.sse")
	for _, tc := range []struct {
		name      string
		next      func(t *testing.T) []byte // the caller's next request, as a Gemini request
		signature string
		calls     []string // the functions called, whose results come back
	}{
		{"chat answer", func(t *testing.T) []byte {
			out, _, err := Answer(Gemini, Chat, answer)
			return nextGeminiRequest(t, err, requestFunc(Chat, Gemini), chatNext(t, out))
		}, answerSignature, []string{"get_weather", "get_weather"}},
		{"messages answer", func(t *testing.T) []byte {
			out, _, err := Answer(Gemini, Messages, answer)
			return nextGeminiRequest(t, err, requestFunc(Messages, Gemini), messagesNext(t, out))
		}, answerSignature, []string{"get_weather", "get_weather"}},
		{"responses answer", func(t *testing.T) []byte {
			out, _, err := Answer(Gemini, Responses, answer)
			return nextGeminiRequest(t, err, requestFunc(Responses, Gemini), responsesNext(t, out))
		}, answerSignature, []string{"get_weather", "get_weather"}},
		{"chat stream", func(t *testing.T) []byte {
			got, err := readChatStream(feedGemini(t, mustStream(Gemini, Chat, Options{}), stream, nil))
			out, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]any{
				"role": "assistant", "content": got.Content, "tool_calls": got.ToolCalls}}}})
			return nextGeminiRequest(t, err, requestFunc(Chat, Gemini), chatNext(t, out))
		}, streamSignature, []string{"get_weather", "get_time"}},
		{"messages stream", func(t *testing.T) []byte {
			got, err := readMessagesStream(feedGemini(t, mustStream(Gemini, Messages, Options{}), stream, nil))
			out, _ := json.Marshal(map[string]any{"content": got.Blocks})
			return nextGeminiRequest(t, err, requestFunc(Messages, Gemini), messagesNext(t, out))
		}, streamSignature, []string{"get_weather", "get_time"}},
		{"responses stream", func(t *testing.T) []byte {
			got, err := readResponsesStream(feedGemini(t, mustStream(Gemini, Responses, Options{}), stream, nil))
			out, _ := json.Marshal(map[string]any{"output": got.Items})
			return nextGeminiRequest(t, err, requestFunc(Responses, Gemini), responsesNext(t, out))
		}, streamSignature, []string{"get_weather", "get_time"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var req geminiRequest
			mustDecode(t, tc.next(t), &req)
			if len(req.Contents) != 3 || req.Contents[1].Role != "model" || req.Contents[2].Role != "user" {
				t.Fatalf("contents %+v, want user, model, user", req.Contents)
			}
			var signatures, called, answered []string
			for _, p := range req.Contents[1].Parts {
				if p.FunctionCall != nil {
					signatures, called = append(signatures, p.ThoughtSignature), append(called, p.FunctionCall.Name)
				}
			}
			for _, p := range req.Contents[2].Parts {
				if p.FunctionResponse != nil {
					answered = append(answered, p.FunctionResponse.Name)
				}
			}
			if len(signatures) != 2 || signatures[0] != tc.signature || signatures[1] != "" {
				t.Errorf("the calls' signatures are %q, want the first %q and none on the second", signatures, tc.signature)
			}
			if strings.Join(called, ",") != strings.Join(tc.calls, ",") || strings.Join(answered, ",") != strings.Join(tc.calls, ",") {
				t.Errorf("called %v and answered %v, want %v", called, answered, tc.calls)
			}
		})
	}
}

func nextGeminiRequest(t *testing.T, err error, translate func([]byte) ([]byte, error), next []byte) []byte {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	out, err := translate(next)
	if err != nil {
		t.Fatalf("%v\n%s", err, next)
	}
	return out
}

// chatNext is the chat request a client sends after a chat answer (or an
// assembled stream): the question, the answer's message, a result per call.
func chatNext(t *testing.T, answer []byte) []byte {
	t.Helper()
	var a struct {
		Choices []struct {
			Message json.RawMessage `json:"message"`
		} `json:"choices"`
	}
	mustDecode(t, answer, &a)
	var calls struct {
		ToolCalls []chatToolCall `json:"tool_calls"`
	}
	mustDecode(t, a.Choices[0].Message, &calls)
	msgs := []any{map[string]any{"role": "user", "content": "Weather in Paris and Rome?"}, a.Choices[0].Message}
	for _, c := range calls.ToolCalls {
		msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": c.ID, "content": `{"temperature":20}`})
	}
	b, _ := json.Marshal(map[string]any{"model": "m", "messages": msgs})
	return b
}

// messagesNext is the Anthropic request a client sends after an answer.
func messagesNext(t *testing.T, answer []byte) []byte {
	t.Helper()
	var a struct {
		Content []json.RawMessage `json:"content"`
	}
	mustDecode(t, answer, &a)
	var results []any
	for _, raw := range a.Content {
		var b anthropicBlock
		mustDecode(t, raw, &b)
		if b.Type == "tool_use" {
			results = append(results, map[string]any{"type": "tool_result", "tool_use_id": b.ID, "content": "20 degrees"})
		}
	}
	b, _ := json.Marshal(map[string]any{"model": "m", "max_tokens": 100, "messages": []any{
		map[string]any{"role": "user", "content": "Weather in Paris and Rome?"},
		map[string]any{"role": "assistant", "content": a.Content},
		map[string]any{"role": "user", "content": results}}})
	return b
}

// responsesNext is the Responses request Codex sends after a response: its
// output items as they came, and an output per call.
func responsesNext(t *testing.T, answer []byte) []byte {
	t.Helper()
	var a struct {
		Output []json.RawMessage `json:"output"`
	}
	mustDecode(t, answer, &a)
	input := []any{map[string]any{"type": "message", "role": "user", "content": "Weather in Paris and Rome?"}}
	var outputs []any
	for _, raw := range a.Output {
		input = append(input, raw)
		var it responsesItemIn
		mustDecode(t, raw, &it)
		if it.Type == "function_call" {
			outputs = append(outputs, map[string]any{"type": "function_call_output", "call_id": it.CallID, "output": "20 degrees"})
		}
	}
	input = append(input, outputs...)
	b, _ := json.Marshal(map[string]any{"model": "m", "store": false, "input": input})
	return b
}
