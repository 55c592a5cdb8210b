package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"gateway/proxy/upstreamtest"
)

// Small vendor fakes for the seed config's end-to-end test: each answers in
// its vendor's wire format once the credentials, path and version it wants
// check out, records the model each call named, and can be told to fail.

// seedBedrock are the AWS credentials the Bedrock fake checks SigV4 with.
var seedBedrock = upstreamtest.AWSCredentials{AccessKeyID: "AKIASEEDFAKE00000001", SecretAccessKey: "seed/secret+key-0123456789abcdef",
	SessionToken: "seed-session-token-000000", Region: "eu-central-1", Service: "bedrock"}

// seedBedrockModel is the seed's Bedrock entry: an inference profile's ARN.
const seedBedrockModel = "arn:aws:bedrock:eu-central-1:123456789012:inference-profile/eu.anthropic.claude-sonnet-4-20250514-v1:0"

// vendorFake is one upstream of kind openai, azure, anthropic, gemini or bedrock.
type vendorFake struct {
	*httptest.Server
	name, kind, key string // key: what the fake wants as credential (not bedrock)
	mu              sync.Mutex
	models          []string                    // the model (deployment, model id) of each call
	failure         func(w http.ResponseWriter) // when set, every call gets it
}

func newVendorFake(t *testing.T, name, kind, key string) *vendorFake {
	f := &vendorFake{name: name, kind: kind, key: key}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

// reply is what the fake says: who answered.
func (f *vendorFake) reply() string { return "hello from " + f.name }

func (f *vendorFake) setFailure(fail func(w http.ResponseWriter)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failure = fail
}

// calls returns the models called so far and forgets them.
func (f *vendorFake) calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.models
	f.models = nil
	return out
}

func (f *vendorFake) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		vendorError(w, 400, "invalid JSON")
		return
	}
	model, stream, err := f.check(r, raw, body)
	if err != nil {
		vendorError(w, 401, f.kind+" fake refused the call: "+err.Error())
		return
	}
	f.mu.Lock()
	f.models = append(f.models, model)
	fail := f.failure
	f.mu.Unlock()
	if fail != nil {
		fail(w)
		return
	}
	switch f.kind {
	case "openai", "azure":
		writeChatAnswer(w, model, f.reply(), stream, f.kind == "azure")
	case "anthropic":
		writeMessagesAnswer(w, model, f.reply(), stream)
	case "gemini":
		writeGeminiAnswer(w, f.reply(), stream)
	case "bedrock":
		writeConverseAnswer(w, f.reply(), stream)
	}
}

// check is the vendor's own gate: credentials, path, version. It returns
// the model the call names and whether it asks for a stream.
func (f *vendorFake) check(r *http.Request, raw []byte, body map[string]any) (string, bool, error) {
	model, _ := body["model"].(string)
	stream, _ := body["stream"].(bool)
	switch f.kind {
	case "openai":
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+f.key {
			return "", false, fmt.Errorf("path %s, authorization %q", r.URL.Path, r.Header.Get("Authorization"))
		}
	case "azure":
		dep, ok := strings.CutPrefix(r.URL.Path, "/openai/deployments/")
		dep, ok2 := strings.CutSuffix(dep, "/chat/completions")
		if !ok || !ok2 || r.Header.Get("Api-Key") != f.key || r.URL.Query().Get("api-version") != "2024-10-21" || body["model"] != nil && model != dep {
			return "", false, fmt.Errorf("path %s, api-key %q, query %s", r.URL.Path, r.Header.Get("Api-Key"), r.URL.RawQuery)
		}
		model = dep
	case "anthropic":
		if r.URL.Path != "/v1/messages" || r.Header.Get("X-Api-Key") != f.key || r.Header.Get("Anthropic-Version") == "" {
			return "", false, fmt.Errorf("path %s, x-api-key %q", r.URL.Path, r.Header.Get("X-Api-Key"))
		}
	case "gemini":
		rest, ok := strings.CutPrefix(r.URL.Path, "/v1beta/models/")
		m, method, _ := strings.Cut(rest, ":")
		stream = method == "streamGenerateContent" && r.URL.Query().Get("alt") == "sse"
		if !ok || r.Header.Get("X-Goog-Api-Key") != f.key || (method != "generateContent" && !stream) {
			return "", false, fmt.Errorf("path %s?%s, x-goog-api-key %q", r.URL.Path, r.URL.RawQuery, r.Header.Get("X-Goog-Api-Key"))
		}
		model = m
	case "bedrock":
		if err := seedBedrock.VerifySigV4(r, raw); err != nil {
			return "", false, err
		}
		escaped := "/model/" + strings.NewReplacer(":", "%3A", "/", "%2F").Replace(seedBedrockModel)
		op, ok := strings.CutPrefix(r.URL.EscapedPath(), escaped+"/")
		if !ok || (op != "converse" && op != "converse-stream") {
			return "", false, fmt.Errorf("path %s", r.URL.EscapedPath())
		}
		model, stream = seedBedrockModel, op == "converse-stream"
	}
	return model, stream, nil
}

// vendorError is an error in OpenAI's shape; the gateway reads its status.
func vendorError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"message":%q,"type":"upstream_error","code":null}}`, msg)
}

// rateLimited is a 429 with a retry-after of seconds.
func rateLimited(seconds string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Retry-After", seconds)
		vendorError(w, http.StatusTooManyRequests, "rate limit reached, retry after "+seconds+" s")
	}
}

func serverError(w http.ResponseWriter) {
	vendorError(w, http.StatusInternalServerError, "upstream is down")
}

func sseStart(w http.ResponseWriter) func(string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	return func(s string) {
		io.WriteString(w, s) //nolint:errcheck // the caller sees a cut stream
		w.(http.Flusher).Flush()
	}
}

// writeChatAnswer answers a chat completion; Azure's stream starts with a
// chunk without choices, and its answers name the base model.
func writeChatAnswer(w http.ResponseWriter, model, text string, stream, azure bool) {
	if azure {
		model = "gpt-4o-2024-11-20"
	}
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1760000000,"model":%q,`+
			`"choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],`+
			`"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}}`, model, text)
		return
	}
	send := sseStart(w)
	if azure {
		send(`data: {"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{"hate":{"filtered":false,"severity":"safe"}}}]}` + "\n\n")
	}
	chunk := func(delta, finish string) {
		send(fmt.Sprintf("data: {\"id\":\"chatcmpl-2\",\"object\":\"chat.completion.chunk\",\"created\":1760000000,\"model\":%q,\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n", model, delta, finish))
	}
	chunk(`{"role":"assistant","content":""}`, "null")
	half := len(text) / 2
	chunk(fmt.Sprintf(`{"content":%q}`, text[:half]), "null")
	chunk(fmt.Sprintf(`{"content":%q}`, text[half:]), "null")
	chunk(`{}`, `"stop"`)
	send(fmt.Sprintf("data: {\"id\":\"chatcmpl-2\",\"object\":\"chat.completion.chunk\",\"created\":1760000000,\"model\":%q,\"choices\":[],\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":7,\"total_tokens\":18}}\n\ndata: [DONE]\n\n", model))
}

func writeMessagesAnswer(w http.ResponseWriter, model, text string, stream bool) {
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"msg_01","type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":%q}],`+
			`"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":7}}`, model, text)
		return
	}
	send := sseStart(w)
	event := func(name, data string) { send(fmt.Sprintf("event: %s\ndata: %s\n\n", name, data)) }
	event("message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_02","type":"message","role":"assistant","model":%q,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1}}}`, model))
	event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
	half := len(text) / 2
	for _, part := range []string{text[:half], text[half:]} {
		event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%q}}`, part))
	}
	event("content_block_stop", `{"type":"content_block_stop","index":0}`)
	event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":7}}`)
	event("message_stop", `{"type":"message_stop"}`)
}

func writeGeminiAnswer(w http.ResponseWriter, text string, stream bool) {
	candidate := func(part string, final bool) string {
		if !final {
			return fmt.Sprintf(`{"candidates":[{"content":{"role":"model","parts":[{"text":%q}]},"index":0}],"modelVersion":"gemini-2.5-flash"}`, part)
		}
		return fmt.Sprintf(`{"candidates":[{"content":{"role":"model","parts":[{"text":%q}]},"finishReason":"STOP","index":0}],`+
			`"usageMetadata":{"promptTokenCount":12,"candidatesTokenCount":5,"totalTokenCount":17},"modelVersion":"gemini-2.5-flash","responseId":"resp-1"}`, part)
	}
	if !stream {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		io.WriteString(w, candidate(text, true)) //nolint:errcheck // the caller sees a cut body
		return
	}
	send := sseStart(w)
	half := len(text) / 2
	send("data: " + candidate(text[:half], false) + "\r\n\r\n")
	send("data: " + candidate(text[half:], true) + "\r\n\r\n")
}

func writeConverseAnswer(w http.ResponseWriter, text string, stream bool) {
	usage := `{"inputTokens":12,"outputTokens":5,"totalTokens":17}`
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"output":{"message":{"role":"assistant","content":[{"text":%q}]}},"stopReason":"end_turn","usage":%s,"metrics":{"latencyMs":42}}`, text, usage)
		return
	}
	s := upstreamtest.NewEventStreamWriter(w)
	half := len(text) / 2
	for _, e := range [][2]string{
		{"messageStart", `{"role":"assistant"}`},
		{"contentBlockDelta", fmt.Sprintf(`{"contentBlockIndex":0,"delta":{"text":%q}}`, text[:half])},
		{"contentBlockDelta", fmt.Sprintf(`{"contentBlockIndex":0,"delta":{"text":%q}}`, text[half:])},
		{"contentBlockStop", `{"contentBlockIndex":0}`},
		{"messageStop", `{"stopReason":"end_turn"}`},
		{"metadata", `{"usage":` + usage + `,"metrics":{"latencyMs":42}}`},
	} {
		if s.Event(e[0], e[1]) != nil {
			return // the caller sees a cut stream
		}
	}
}
