package proxy_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"gateway/models"
	"gateway/proxy"
)

// fakeAnthropic speaks Anthropic's Messages API: JSON or SSE, a tool_use when
// tools are offered and no tool result came back yet, text otherwise.
type fakeAnthropic struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []upstreamRequest
	// cut, when set, ends streams after their first content delta.
	cut bool
	// firstEventDelay, when set, holds a stream's first event back after
	// its headers, as a reasoning model thinking does.
	firstEventDelay time.Duration
}

func newFakeAnthropic(t *testing.T) *fakeAnthropic {
	t.Helper()
	f := &fakeAnthropic{}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeAnthropic) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	req := upstreamRequest{Path: r.URL.Path, Header: r.Header.Clone(), Raw: raw}
	if err := json.Unmarshal(raw, &req.Body); err != nil {
		anthropicError(w, 400, "invalid_request_error", "invalid JSON: "+err.Error())
		return
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	cut, delay := f.cut, f.firstEventDelay
	f.mu.Unlock()
	if delay > 0 {
		w = delayFirstWrite(w, r, delay)
	}
	switch {
	case r.Header.Get("X-Api-Key") != upstreamKey:
		anthropicError(w, 401, "authentication_error", "invalid x-api-key")
	case r.URL.Path == "/v1/messages/count_tokens":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"input_tokens":42}`)
	case r.URL.Path != "/v1/messages":
		anthropicError(w, 404, "not_found_error", "no such path "+r.URL.Path)
	case req.Body["model"] == "too-long":
		anthropicError(w, 400, "invalid_request_error", "prompt is too long: 250000 tokens > 200000 maximum")
	case req.Body["stream"] == true:
		f.stream(w, req, cut)
	default:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"msg_01","type":"message","role":"assistant","model":%q,"content":[%s],"stop_reason":%q,"stop_sequence":null,"usage":{"input_tokens":10,"cache_read_input_tokens":5,"cache_creation_input_tokens":2,"output_tokens":7}}`,
			req.Body["model"], anthropicBlock(req), anthropicStop(req))
	}
}

func anthropicError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":%q}}`, typ, msg)
}

// wantsTool: tools were offered and the last message brings no tool result.
func wantsTool(req upstreamRequest) bool {
	if _, ok := req.Body["tools"]; !ok {
		return false
	}
	return !strings.Contains(lastMessage(req), "tool_result") && !strings.Contains(lastMessage(req), `"role":"tool"`)
}

func lastMessage(req upstreamRequest) string {
	msgs, _ := req.Body["messages"].([]any)
	if len(msgs) == 0 {
		return ""
	}
	b, _ := json.Marshal(msgs[len(msgs)-1])
	return string(b)
}

func anthropicBlock(req upstreamRequest) string {
	if wantsTool(req) {
		return `{"type":"tool_use","id":"toolu_01","name":"get_weather","input":{"city":"Paris"}}`
	}
	return fmt.Sprintf(`{"type":"text","text":%q}`, replyText(req))
}

func anthropicStop(req upstreamRequest) string {
	if wantsTool(req) {
		return "tool_use"
	}
	return "end_turn"
}

// replyText is the fake's answer: about the weather once a tool result came.
func replyText(req upstreamRequest) string {
	if strings.Contains(lastMessage(req), "tool") {
		return "It is sunny in Paris"
	}
	return "Hello from Claude"
}

func (f *fakeAnthropic) stream(w http.ResponseWriter, req upstreamRequest, cut bool) {
	startStream(w)
	send := func(name, data string) {
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data)
		w.(http.Flusher).Flush()
	}
	send("message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_02","type":"message","role":"assistant","model":%q,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"cache_read_input_tokens":5,"cache_creation_input_tokens":2,"output_tokens":1}}}`, req.Body["model"]))
	send("ping", `{"type":"ping"}`)
	if wantsTool(req) {
		send("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_01","name":"get_weather","input":{}}}`)
		send("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"city\":"}}`)
		send("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"\"Paris\"}"}}`)
	} else {
		text := replyText(req)
		send("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
		half := len(text) / 2
		for _, part := range []string{text[:half], text[half:]} {
			send("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%q}}`, part))
			if cut {
				panic(http.ErrAbortHandler)
			}
		}
	}
	send("content_block_stop", `{"type":"content_block_stop","index":0}`)
	send("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":7}}`, anthropicStop(req)))
	send("message_stop", `{"type":"message_stop"}`)
}

func (f *fakeAnthropic) setFirstEventDelay(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.firstEventDelay = d
}

func (f *fakeAnthropic) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reqs)
}

func (f *fakeAnthropic) last(t *testing.T) upstreamRequest {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.reqs) == 0 {
		t.Fatal("the Anthropic upstream received no request")
	}
	return f.reqs[len(f.reqs)-1]
}

// openAIWithTools makes the fake OpenAI upstream answer with a tool call when
// tools are offered and no tool result came back yet.
func openAIWithTools(w http.ResponseWriter, r *http.Request, req upstreamRequest) {
	if r.URL.Path == "/v1/embeddings" {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,0.2]}],"model":%q,"usage":{"prompt_tokens":3,"total_tokens":3}}`, req.Body["model"])
		return
	}
	model := req.Body["model"]
	if !wantsTool(req) {
		if req.Body["stream"] == true {
			startStream(w)
			for _, ev := range []string{
				streamChunk(fmt.Sprint(model), `{"role":"assistant","content":""}`, "", true),
				streamChunk(fmt.Sprint(model), fmt.Sprintf(`{"content":%q}`, replyText(req)), "", true),
				streamChunk(fmt.Sprint(model), `{}`, "stop", true),
				usageChunk(fmt.Sprint(model)), "data: [DONE]\n\n",
			} {
				io.WriteString(w, ev)
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"chatcmpl-t","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],"usage":%s}`,
			model, replyText(req), fakeUsageJSON())
		return
	}
	if req.Body["stream"] == true {
		startStream(w)
		for _, ev := range []string{
			streamChunk(fmt.Sprint(model), `{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]}`, "", true),
			streamChunk(fmt.Sprint(model), `{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]}`, "", true),
			streamChunk(fmt.Sprint(model), `{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]}`, "", true),
			streamChunk(fmt.Sprint(model), `{}`, "tool_calls", true),
			usageChunk(fmt.Sprint(model)), "data: [DONE]\n\n",
		} {
			io.WriteString(w, ev)
		}
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"chatcmpl-t","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},"finish_reason":"tool_calls"}],"usage":%s}`,
		model, fakeUsageJSON())
}

// newProtocolEnv has an openai pool "gpt" and an anthropic pool "claude".
func newProtocolEnv(t *testing.T) (*env, *fakeAnthropic) {
	t.Helper()
	return newProtocolEnvWith(t, proxy.Options{})
}

func newProtocolEnvWith(t *testing.T, opts proxy.Options) (*env, *fakeAnthropic) {
	t.Helper()
	e := newEnv(t, opts)
	an := newFakeAnthropic(t)
	anID := e.addProvider("anthropic-main", models.APITypeAnthropic, an.URL)
	e.addDeployment(models.Deployment{PublicName: "gpt", UpstreamModel: "gpt-up", Prices: models.PricesOf(1, 2)})
	e.addDeployment(models.Deployment{PublicName: "claude", UpstreamModel: "claude-up", ProviderID: anID, Prices: models.PricesOf(3, 15)})
	e.addDeployment(models.Deployment{PublicName: "claude-too-long", UpstreamModel: "too-long", ProviderID: anID})
	e.reload()
	e.up.setRespond(openAIWithTools)
	return e, an
}

func (e *env) anthropicClient() anthropic.Client {
	return anthropic.NewClient(aoption.WithBaseURL(e.gw.URL), aoption.WithAPIKey(e.key), aoption.WithMaxRetries(0),
		aoption.WithRequestTimeout(20*time.Second))
}

var weatherTool = anthropic.ToolUnionParamOfTool(anthropic.ToolInputSchemaParam{
	Properties: map[string]any{"city": map[string]any{"type": "string"}}, Required: []string{"city"}}, "get_weather")

func messageParams(model string, tools bool, msgs ...anthropic.MessageParam) anthropic.MessageNewParams {
	if len(msgs) == 0 {
		msgs = []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What is the weather in Paris?"))}
	}
	p := anthropic.MessageNewParams{Model: anthropic.Model(model), MaxTokens: 256, Messages: msgs,
		System: []anthropic.TextBlockParam{{Text: "You are terse."}}}
	if tools {
		p.Tools = []anthropic.ToolUnionParam{weatherTool}
	}
	return p
}

func messageText(m *anthropic.Message) string {
	var b strings.Builder
	for _, c := range m.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// TestAnthropicCallerBothUpstreams: the official Anthropic SDK, streaming and
// not, with a tool round trip, against an anthropic-type member (passed
// through) and an openai-type member (translated).
func TestAnthropicCallerBothUpstreams(t *testing.T) {
	for _, pool := range []string{"claude", "gpt"} {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s stream=%v", pool, stream), func(t *testing.T) {
				e, _ := newProtocolEnv(t)
				client := e.anthropicClient()
				ctx := context.Background()
				send := func(p anthropic.MessageNewParams) *anthropic.Message {
					t.Helper()
					if !stream {
						m, err := client.Messages.New(ctx, p)
						if err != nil {
							t.Fatal(err)
						}
						return m
					}
					s := client.Messages.NewStreaming(ctx, p)
					var m anthropic.Message
					for s.Next() {
						if err := m.Accumulate(s.Current()); err != nil {
							t.Fatal(err)
						}
					}
					if err := s.Err(); err != nil {
						t.Fatal(err)
					}
					return &m
				}
				first := send(messageParams(pool, true))
				if first.StopReason != "tool_use" || len(first.Content) == 0 {
					t.Fatalf("first answer: stop %q, content %+v", first.StopReason, first.Content)
				}
				use := first.Content[len(first.Content)-1].AsToolUse()
				if use.Name != "get_weather" || !strings.Contains(string(use.Input), "Paris") || use.ID == "" {
					t.Fatalf("tool use %+v", use)
				}
				second := send(messageParams(pool, true,
					anthropic.NewUserMessage(anthropic.NewTextBlock("What is the weather in Paris?")),
					first.ToParam(),
					anthropic.NewUserMessage(anthropic.NewToolResultBlock(use.ID, "sunny, 24 °C", false))))
				if got := messageText(second); got != "It is sunny in Paris" || second.StopReason != "end_turn" {
					t.Fatalf("second answer %q, stop %q", got, second.StopReason)
				}
				if second.Usage.OutputTokens == 0 {
					t.Fatalf("no usage in the answer: %+v", second.Usage)
				}
				if pool == "gpt" {
					// The tool result reached OpenAI as a tool message with the same id.
					msgs := e.up.last(t).Body["messages"].([]any)
					last := msgs[len(msgs)-1].(map[string]any)
					if last["role"] != "tool" || last["tool_call_id"] != use.ID {
						t.Fatalf("the tool result reached the OpenAI upstream as %v", last)
					}
				}
				logs := e.waitLogs(2)
				if logs[0].InputTokens == 0 || logs[0].OutputTokens == 0 || logs[0].CostUSD == 0 || logs[0].Endpoint != "/v1/messages" {
					t.Fatalf("log row %+v", logs[0])
				}
			})
		}
	}
}

// TestOpenAICallerToAnthropicMember: the official OpenAI SDK against an
// anthropic-type member, streaming and not, with a tool round trip.
func TestOpenAICallerToAnthropicMember(t *testing.T) {
	e, an := newProtocolEnv(t)
	client := e.client()
	ctx := context.Background()
	tool := openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "get_weather",
		Parameters: openai.FunctionParameters{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}})
	params := openai.ChatCompletionNewParams{Model: "claude", Tools: []openai.ChatCompletionToolUnionParam{tool},
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("You are terse."), openai.UserMessage("Weather in Paris?")}}

	c, err := client.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	call := c.Choices[0].Message.ToolCalls
	if c.Choices[0].FinishReason != "tool_calls" || len(call) != 1 || call[0].Function.Name != "get_weather" || call[0].Function.Arguments != `{"city":"Paris"}` {
		t.Fatalf("answer %+v", c.Choices[0])
	}
	if c.Usage.PromptTokens != 17 || c.Usage.CompletionTokens != 7 || c.Usage.PromptTokensDetails.CachedTokens != 5 {
		t.Fatalf("usage %+v, want 17 prompt (10+5 cached+2 written), 7 completion", c.Usage)
	}
	sent := an.last(t)
	if sent.Header.Get("X-Api-Key") != upstreamKey || sent.Header.Get("Anthropic-Version") == "" || sent.Body["model"] != "claude-up" {
		t.Fatalf("the Anthropic upstream got headers %v and model %v", sent.Header, sent.Body["model"])
	}
	if sys, _ := json.Marshal(sent.Body["system"]); !strings.Contains(string(sys), "You are terse.") {
		t.Fatalf("system prompt not translated: %s", sys)
	}

	params.Messages = append(params.Messages, c.Choices[0].Message.ToParam(), openai.ToolMessage("sunny", call[0].ID))
	stream := client.Chat.Completions.NewStreaming(ctx, params, option.WithJSONSet("stream_options", map[string]any{"include_usage": true}))
	acc := openai.ChatCompletionAccumulator{}
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if got := acc.Choices[0].Message.Content; got != "It is sunny in Paris" {
		t.Fatalf("streamed %q", got)
	}
	if acc.Usage.CompletionTokens != 7 {
		t.Fatalf("streamed usage %+v", acc.Usage)
	}
	if !strings.Contains(lastMessage(an.last(t)), `"tool_use_id":"`+call[0].ID+`"`) {
		t.Fatalf("the tool result reached Anthropic without its id: %s", lastMessage(an.last(t)))
	}
}

// TestPassThroughKeepsBytesAndHeaders: an Anthropic caller at an anthropic
// member gets its body through untouched but for the model, its version and
// beta headers forwarded, and the provider's key instead of its own.
func TestPassThroughKeepsBytesAndHeaders(t *testing.T) {
	e, an := newProtocolEnv(t)
	body := `{ "model" : "claude", "max_tokens": 64, "messages": [{"role":"user","content":"hi \u00e9"}], "top_k": 5 }`
	req, _ := http.NewRequest("POST", e.gw.URL+"/v1/messages?beta=true", strings.NewReader(body))
	req.Header.Set("x-api-key", e.key)
	req.Header.Set("anthropic-version", "2023-06-01")
	req.Header.Set("anthropic-beta", "context-management-2025-06-27")
	resp, got := e.do(req)
	if resp.StatusCode != 200 || !strings.Contains(string(got), "Hello from Claude") {
		t.Fatalf("%d %s", resp.StatusCode, got)
	}
	sent := an.last(t)
	if want := strings.Replace(body, `"claude"`, `"claude-up"`, 1); string(sent.Raw) != want {
		t.Fatalf("upstream body\n%s\nwant\n%s", sent.Raw, want)
	}
	if sent.Header.Get("Anthropic-Beta") != "context-management-2025-06-27" || sent.Header.Get("X-Api-Key") != upstreamKey {
		t.Fatalf("upstream headers %v", sent.Header)
	}
	if strings.Contains(fmt.Sprint(sent.Header), e.key) {
		t.Fatal("the caller's key reached the upstream")
	}
}

// TestCountTokensAndEmbeddings: count_tokens forwarded to an anthropic
// member and estimated for an openai one; embeddings passed through.
func TestCountTokensAndEmbeddings(t *testing.T) {
	e, _ := newProtocolEnv(t)
	client := e.anthropicClient()
	ctx := context.Background()
	count := func(model string) (int64, http.Header) {
		t.Helper()
		var resp *http.Response
		n, err := client.Messages.CountTokens(ctx, anthropic.MessageCountTokensParams{Model: anthropic.Model(model),
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(strings.Repeat("word ", 100)))}},
			aoption.WithResponseInto(&resp))
		if err != nil {
			t.Fatal(err)
		}
		return n.InputTokens, resp.Header
	}
	if n, _ := count("claude"); n != 42 {
		t.Fatalf("forwarded count %d, want the upstream's 42", n)
	}
	n, h := count("gpt")
	if h.Get("X-Gateway-Token-Count") != "estimate" || n < 125 || n > 200 {
		t.Fatalf("estimate %d (%v), want about 500 bytes / 4", n, h)
	}
	emb, err := e.client().Embeddings.New(ctx, openai.EmbeddingNewParams{Model: "gpt",
		Input: openai.EmbeddingNewParamsInputUnion{OfString: openai.String("hello")}})
	if err != nil || len(emb.Data) != 1 || emb.Model != "gpt-up" {
		t.Fatalf("embeddings %+v, %v", emb, err)
	}
}

// TestErrorsInTheCallersShape: an upstream's error reaches the caller in the
// caller's protocol, and a stream cut mid-way ends with an error event.
func TestErrorsInTheCallersShape(t *testing.T) {
	e, an := newProtocolEnv(t)
	ctx := context.Background()
	_, err := e.client().Chat.Completions.New(ctx, userMessage("claude-too-long"))
	var oerr *openai.Error
	if !errors.As(err, &oerr) || oerr.StatusCode != 400 || oerr.Code != "context_length_exceeded" || !strings.Contains(oerr.Message, "prompt is too long") {
		t.Fatalf("OpenAI caller got %v", err)
	}
	client := e.anthropicClient()
	_, err = client.Messages.New(ctx, messageParams("no-such-model", false))
	var aerr *anthropic.Error
	if !errors.As(err, &aerr) || aerr.StatusCode != 404 || !strings.Contains(aerr.RawJSON(), `"not_found_error"`) ||
		!strings.Contains(aerr.RawJSON(), "no healthy deployments for this model") {
		t.Fatalf("Anthropic caller got %v", err)
	}
	wrong := anthropic.NewClient(aoption.WithBaseURL(e.gw.URL), aoption.WithAPIKey("sk-wrong"), aoption.WithMaxRetries(0))
	_, err = wrong.Messages.New(ctx, messageParams("claude", false))
	if !errors.As(err, &aerr) || aerr.StatusCode != 401 || !strings.Contains(aerr.RawJSON(), `"authentication_error"`) {
		t.Fatalf("Anthropic caller with a wrong key got %v", err)
	}

	an.mu.Lock()
	an.cut = true
	an.mu.Unlock()
	s := client.Messages.NewStreaming(ctx, messageParams("claude", false))
	for s.Next() {
	}
	if s.Err() == nil {
		t.Fatal("a cut stream ended without an error for the Anthropic caller")
	}
	stream := e.client().Chat.Completions.NewStreaming(ctx, userMessage("claude"))
	for stream.Next() {
	}
	if stream.Err() == nil {
		t.Fatal("a cut stream ended without an error for the OpenAI caller")
	}
}

// claudeCodeRequest is the shape of a real Claude Code request
// (testdata/claude-code-request.json, copied from the shared fixtures).
type claudeCodeRequest struct {
	Path    string            `json:"path"`
	Query   string            `json:"query"`
	Headers map[string]string `json:"headers"`
	Body    map[string]any    `json:"body"`
}

// TestClaudeCode replays what Claude Code does: HEAD / without a key, then
// its streaming request to /v1/messages?beta=true with its headers, then the
// same without streaming, as after a broken stream; against both kinds of
// member.
func TestClaudeCode(t *testing.T) {
	raw, err := os.ReadFile("testdata/claude-code-request.json")
	if err != nil {
		t.Fatal(err)
	}
	var cc claudeCodeRequest
	if err := json.Unmarshal(raw, &cc); err != nil {
		t.Fatal(err)
	}
	if len(cc.Body["tools"].([]any)) != 24 {
		t.Fatal("the fixture is not the 24-tool request")
	}
	for _, pool := range []string{"claude", "gpt"} {
		t.Run(pool, func(t *testing.T) {
			e, an := newProtocolEnv(t)
			head, _ := http.NewRequest("HEAD", e.gw.URL+"/", nil)
			if resp, _ := e.do(head); resp.StatusCode >= 500 {
				t.Fatalf("HEAD / answered %d", resp.StatusCode)
			}
			for _, stream := range []bool{true, false} {
				cc.Body["model"], cc.Body["stream"] = pool, stream
				body, _ := json.Marshal(cc.Body)
				req, _ := http.NewRequest("POST", e.gw.URL+cc.Path+"?"+cc.Query, bytes.NewReader(body))
				for k, v := range cc.Headers {
					req.Header.Set(k, v)
				}
				req.Header.Set("x-api-key", e.key)
				resp, got := e.do(req)
				if resp.StatusCode != 200 {
					t.Fatalf("stream=%v: %d %s", stream, resp.StatusCode, got)
				}
				if stream {
					checkAnthropicStream(t, got)
				} else if !strings.Contains(string(got), `"type":"message"`) {
					t.Fatalf("not an Anthropic message: %s", got)
				}
			}
			if pool == "claude" {
				sent := an.last(t)
				if !strings.Contains(sent.Header.Get("Anthropic-Beta"), "claude-code-20250219") {
					t.Fatalf("anthropic-beta not forwarded: %v", sent.Header)
				}
				if _, ok := sent.Body["context_management"]; !ok {
					t.Fatal("a pass-through lost context_management")
				}
				return
			}
			sent := e.up.last(t).Body
			msgs := sent["messages"].([]any)
			if len(sent["tools"].([]any)) != 24 || msgs[0].(map[string]any)["role"] != "system" {
				t.Fatalf("translated request: %d tools, first message %v", len(sent["tools"].([]any)), msgs[0])
			}
			if _, ok := sent["context_management"]; ok {
				t.Fatal("context_management was sent to an OpenAI upstream")
			}
		})
	}
}

// checkAnthropicStream checks a raw SSE body is a well-formed Anthropic stream:
// message_start first, message_stop last, every data line valid JSON.
func checkAnthropicStream(t *testing.T, body []byte) {
	t.Helper()
	var names []string
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "event: "); ok {
			names = append(names, name)
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok && !json.Valid([]byte(data)) {
			t.Fatalf("invalid JSON in %q", line)
		}
	}
	if len(names) < 3 || names[0] != "message_start" || names[len(names)-1] != "message_stop" {
		t.Fatalf("events %v", names)
	}
}
