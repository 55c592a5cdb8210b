package proxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"gateway/models"
	"gateway/proxy"
	"gateway/proxy/upstreamtest"
)

// Vendor fakes: httptest servers speaking Azure OpenAI's, Gemini's, Vertex
// AI's (Gemini and Claude) and Bedrock's real wire formats, each checking
// its own kind of credentials as the vendor does: Azure's api-key, Gemini's
// x-goog-api-key, Vertex's OAuth token issued by the key file's token
// endpoint for a JWT signed with its key, Bedrock's SigV4 signature
// recomputed with AWS's signer from the known secret.

const (
	vendorProject  = "test-project"
	vendorLocation = "us-central1"
	// bedrockModel is an inference profile's ARN: ':' and '/' in one path
	// segment.
	bedrockModel = "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-v1:0"
	geminiSig    = "c2lnbmF0dXJlLTE=" // the thoughtSignature the fake sends and wants back
)

var bedrockCreds = upstreamtest.AWSCredentials{AccessKeyID: "AKIAFAKEFAKEFAKE", SecretAccessKey: "fake/secret+access-key-0123456789",
	SessionToken: "fake-session-token-abc", Region: "us-east-1", Service: "bedrock"}

type fakeVendor struct {
	*httptest.Server
	t      *testing.T
	kind   string // azure, gemini, vertex, bedrock
	google *upstreamtest.GoogleTokenServer
	mu     sync.Mutex
	reqs   []upstreamRequest
	// queued answers, used once each before the normal ones
	queued []func(w http.ResponseWriter)
}

func newFakeVendor(t *testing.T, kind string) *fakeVendor {
	f := &fakeVendor{t: t, kind: kind}
	if kind == "vertex" {
		f.google = upstreamtest.NewGoogleTokenServer(t)
	}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeVendor) queue(answer func(w http.ResponseWriter)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queued = append(f.queued, answer)
}

func (f *fakeVendor) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reqs)
}

func (f *fakeVendor) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	req := upstreamRequest{Path: r.URL.EscapedPath(), Header: r.Header.Clone(), Raw: raw}
	if err := json.Unmarshal(raw, &req.Body); err != nil {
		http.Error(w, "invalid JSON", http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	var queued func(http.ResponseWriter)
	if len(f.queued) > 0 {
		queued, f.queued = f.queued[0], f.queued[1:]
	}
	f.mu.Unlock()
	if queued != nil {
		queued(w)
		return
	}
	switch f.kind {
	case "azure":
		f.azure(w, r, req)
	case "gemini":
		if r.Header.Get("X-Goog-Api-Key") != upstreamKey {
			geminiInvalidKey(w)
			return
		}
		f.gemini(w, r, req, "/v1beta/models/")
	case "vertex":
		if !f.google.Authorized(r.Header) {
			googleError(w, 401, "UNAUTHENTICATED", "Request had invalid authentication credentials.")
			return
		}
		prefix := "/v1/projects/" + vendorProject + "/locations/" + vendorLocation + "/publishers/"
		if strings.HasPrefix(r.URL.Path, prefix+"anthropic/") {
			f.vertexClaude(w, r, req, prefix+"anthropic/models/")
			return
		}
		f.gemini(w, r, req, prefix+"google/models/")
	case "bedrock":
		if err := bedrockCreds.VerifySigV4(r, raw); err != nil {
			upstreamtest.WriteAWSError(w, 403, "InvalidSignatureException", "The request signature we calculated does not match the signature you provided.")
			return
		}
		f.bedrock(w, r, req)
	}
}

// --- Azure OpenAI

func (f *fakeVendor) azure(w http.ResponseWriter, r *http.Request, req upstreamRequest) {
	switch {
	case r.Header.Get("Api-Key") != upstreamKey:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(401)
		io.WriteString(w, `{"error":{"code":"401","message":"Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource."}}`)
		return
	case r.URL.Path != "/openai/deployments/gpt-4o-prod/chat/completions" || r.URL.Query().Get("api-version") != "2024-10-21":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(404)
		io.WriteString(w, `{"error":{"code":"DeploymentNotFound","message":"The API deployment for this resource does not exist."}}`)
		return
	}
	if strings.Contains(lastMessage(req), `"role":"tool"`) && !strings.Contains(lastMessage(req), `"tool_call_id":"call_1"`) {
		w.WriteHeader(400)
		fmt.Fprintf(w, `{"error":{"message":"tool_call_id does not match: %s","type":"invalid_request_error","code":null}}`, lastMessage(req))
		return
	}
	if req.Body["stream"] == true {
		// Azure's stream starts with a chunk without choices: the prompt's
		// content filter results, written once the stream's header is.
		w = &streamPrefix{ResponseWriter: w, prefix: `data: {"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{"hate":{"filtered":false,"severity":"safe"}}}]}` + "\n\n"}
	}
	openAIWithTools(w, r, req)
}

// streamPrefix writes prefix right after the status line.
type streamPrefix struct {
	http.ResponseWriter
	prefix string
}

func (p *streamPrefix) WriteHeader(code int) {
	p.ResponseWriter.WriteHeader(code)
	io.WriteString(p.ResponseWriter, p.prefix)
}

func (p *streamPrefix) Flush() { p.ResponseWriter.(http.Flusher).Flush() }

// --- Gemini (Gemini API and Vertex AI's Gemini models)

func geminiInvalidKey(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(400)
	io.WriteString(w, `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com","metadata":{"service":"generativelanguage.googleapis.com"}}]}}`)
}

func googleError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"code":%d,"message":%q,"status":%q}}`, status, msg, code)
}

// geminiRateLimited is Gemini's 429, its retry hint in RetryInfo.
func geminiRateLimited(delay string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(429)
		fmt.Fprintf(w, `{"error":{"code":429,"message":"You exceeded your current quota.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":%q}]}}`, delay)
	}
}

const geminiUsage = `"usageMetadata":{"promptTokenCount":12,"candidatesTokenCount":5,"totalTokenCount":17}`

func (f *fakeVendor) gemini(w http.ResponseWriter, r *http.Request, req upstreamRequest, prefix string) {
	rest, ok := strings.CutPrefix(r.URL.Path, prefix)
	model, method, _ := strings.Cut(rest, ":")
	if !ok || model != "gemini-2.5-flash" || (method != "generateContent" && method != "streamGenerateContent") {
		googleError(w, 404, "NOT_FOUND", "no such model or method: "+r.URL.Path)
		return
	}
	stream := method == "streamGenerateContent"
	if stream && r.URL.Query().Get("alt") != "sse" {
		googleError(w, 400, "INVALID_ARGUMENT", "want alt=sse")
		return
	}
	contents, _ := req.Body["contents"].([]any)
	last, _ := json.Marshal(contents[len(contents)-1])
	all, _ := json.Marshal(contents)
	_, tools := req.Body["tools"]
	var text, call string
	switch {
	case strings.Contains(string(last), "functionResponse"):
		// The model's turn must come back with its call and signature.
		if !strings.Contains(string(all), `"thoughtSignature":"`+geminiSig+`"`) || !strings.Contains(string(all), `"functionCall"`) {
			googleError(w, 400, "INVALID_ARGUMENT", "Function call is missing a thought_signature: "+string(all))
			return
		}
		text = "It is sunny in Paris"
	case tools:
		call = `{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"` + geminiSig + `"}`
	default:
		text = "Hello world"
	}
	candidate := func(parts string, final bool) string {
		if !final {
			return fmt.Sprintf(`{"candidates":[{"content":{"role":"model","parts":%s},"index":0}],"usageMetadata":{"promptTokenCount":12,"totalTokenCount":12},"modelVersion":"gemini-2.5-flash"}`, parts)
		}
		return fmt.Sprintf(`{"candidates":[{"content":{"role":"model","parts":%s},"finishReason":"STOP","index":0}],%s,"modelVersion":"gemini-2.5-flash","responseId":"resp-1"}`, parts, geminiUsage)
	}
	textPart := func(s string) string { return fmt.Sprintf(`[{"text":%q}]`, s) }
	if !stream {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		if call != "" {
			io.WriteString(w, candidate("["+call+"]", true))
		} else {
			io.WriteString(w, candidate(textPart(text), true))
		}
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(200)
	if call != "" {
		io.WriteString(w, "data: "+candidate("["+call+"]", true)+"\r\n\r\n")
		return
	}
	half := len(text) / 2
	io.WriteString(w, "data: "+candidate(textPart(text[:half]), false)+"\r\n\r\n")
	w.(http.Flusher).Flush()
	io.WriteString(w, "data: "+candidate(textPart(text[half:]), true)+"\r\n\r\n")
}

// --- Claude on Vertex AI: Anthropic's Messages in Vertex's form

func (f *fakeVendor) vertexClaude(w http.ResponseWriter, r *http.Request, req upstreamRequest, prefix string) {
	rest, _ := strings.CutPrefix(r.URL.Path, prefix)
	model, method, _ := strings.Cut(rest, ":")
	switch {
	case model != "claude-sonnet-4@20250514" || (method != "rawPredict" && method != "streamRawPredict"):
		anthropicError(w, 404, "not_found_error", "no such model or method "+r.URL.Path)
		return
	case !vertexAnthropicVersion(req.Body["anthropic_version"]) || req.Body["model"] != nil || r.Header.Get("Anthropic-Version") != "":
		anthropicError(w, 400, "invalid_request_error", "want anthropic_version in the body, no model, no header: "+string(req.Raw))
		return
	case (method == "streamRawPredict") != (req.Body["stream"] == true):
		anthropicError(w, 400, "invalid_request_error", "stream does not match the method")
		return
	case strings.Contains(lastMessage(req), "tool_result") && !strings.Contains(lastMessage(req), `"tool_use_id":"toolu_01"`):
		anthropicError(w, 400, "invalid_request_error", "unknown tool_use_id: "+lastMessage(req))
		return
	}
	req.Body["model"] = model
	if req.Body["stream"] == true {
		(&fakeAnthropic{}).stream(w, req, false)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"msg_vrtx_01","type":"message","role":"assistant","model":%q,"content":[%s],"stop_reason":%q,"stop_sequence":null,"usage":{"input_tokens":10,"cache_read_input_tokens":5,"cache_creation_input_tokens":2,"output_tokens":7}}`,
		model, anthropicBlock(req), anthropicStop(req))
}

// vertexAnthropicVersion: the body's anthropic_version is Vertex's
// documented vertex-2023-10-16 or, as anthropic-sdk-go's Vertex option
// sends it, the Messages API's dated version moved from the header.
func vertexAnthropicVersion(v any) bool {
	s, _ := v.(string)
	if s == "vertex-2023-10-16" {
		return true
	}
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

// --- Bedrock Converse and ConverseStream

func (f *fakeVendor) bedrock(w http.ResponseWriter, r *http.Request, req upstreamRequest) {
	escaped := "/model/" + strings.NewReplacer(":", "%3A", "/", "%2F").Replace(bedrockModel)
	op, ok := strings.CutPrefix(r.URL.EscapedPath(), escaped+"/")
	if !ok || (op != "converse" && op != "converse-stream") {
		upstreamtest.WriteAWSError(w, 404, "ResourceNotFoundException", "no such model or operation: "+r.URL.EscapedPath())
		return
	}
	msgs, _ := req.Body["messages"].([]any)
	last, _ := json.Marshal(msgs[len(msgs)-1])
	all, _ := json.Marshal(msgs)
	_, tools := req.Body["toolConfig"]
	result := strings.Contains(string(last), "toolResult")
	if result && (!strings.Contains(string(last), `"toolUseId":"tooluse_fake1"`) || !strings.Contains(string(all), `"toolUse":{"input":{"city":"Paris"},"name":"get_weather","toolUseId":"tooluse_fake1"}`)) {
		upstreamtest.WriteAWSError(w, 400, "ValidationException", "toolUseId mismatch: "+string(all))
		return
	}
	wantTool := tools && !result
	text := "Hello world"
	if result {
		text = "It is sunny in Paris"
	}
	usage := `{"inputTokens":12,"outputTokens":5,"totalTokens":17}`
	if op == "converse" {
		content, stop := fmt.Sprintf(`[{"text":%q}]`, text), "end_turn"
		if wantTool {
			content, stop = `[{"toolUse":{"toolUseId":"tooluse_fake1","name":"get_weather","input":{"city":"Paris"}}}]`, "tool_use"
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"output":{"message":{"role":"assistant","content":%s}},"stopReason":%q,"usage":%s,"metrics":{"latencyMs":42}}`, content, stop, usage)
		return
	}
	s := upstreamtest.NewEventStreamWriter(w)
	send := func(name, payload string) {
		if err := s.Event(name, payload); err != nil {
			f.t.Errorf("write event: %v", err)
		}
	}
	send("messageStart", `{"role":"assistant","p":"abcd"}`)
	stop := "end_turn"
	if wantTool {
		send("contentBlockStart", `{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"tooluse_fake1","name":"get_weather"}},"p":"ab"}`)
		send("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{\"city\":"}},"p":"abc"}`)
		send("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"toolUse":{"input":"\"Paris\"}"}},"p":"abc"}`)
		stop = "tool_use"
	} else {
		half := len(text) / 2
		send("contentBlockDelta", fmt.Sprintf(`{"contentBlockIndex":0,"delta":{"text":%q},"p":"ab"}`, text[:half]))
		send("contentBlockDelta", fmt.Sprintf(`{"contentBlockIndex":0,"delta":{"text":%q},"p":"abcdef"}`, text[half:]))
	}
	send("contentBlockStop", `{"contentBlockIndex":0,"p":"abc"}`)
	send("messageStop", fmt.Sprintf(`{"stopReason":%q,"p":"ab"}`, stop))
	send("metadata", `{"usage":`+usage+`,"metrics":{"latencyMs":42},"p":"abcdefgh"}`)
}

// vendorEnv is a gateway with one provider of the kind, its pool "m".
func newVendorEnv(t *testing.T, kind string) (*env, *fakeVendor) {
	t.Helper()
	return newVendorEnvWith(t, kind, proxy.Options{}, false)
}

// newVendorEnvWith: wrongCreds gives the provider credentials its fake
// refuses (another key, another AWS secret, a key file whose token
// endpoint refuses it).
func newVendorEnvWith(t *testing.T, kind string, opts proxy.Options, wrongCreds bool) (*env, *fakeVendor) {
	t.Helper()
	e := newEnv(t, opts)
	f := newFakeVendor(t, kind)
	p := &models.Provider{Name: kind + "-main", APIType: kind, BaseURL: f.URL}
	secrets := models.ProviderSecrets{APIKey: upstreamKey}
	upstream := map[string]string{"azure": "gpt-4o-prod", "gemini": "gemini-2.5-flash", "vertex": "gemini-2.5-flash", "bedrock": bedrockModel}[kind]
	switch kind {
	case "vertex":
		p.Project, p.Location = vendorProject, vendorLocation
		secrets = models.ProviderSecrets{CredentialsJSON: f.google.KeyFile()}
	case "bedrock":
		p.Region, p.AWSAccessKeyID = bedrockCreds.Region, bedrockCreds.AccessKeyID
		secrets = models.ProviderSecrets{AWSSecretAccessKey: bedrockCreds.SecretAccessKey, AWSSessionToken: bedrockCreds.SessionToken}
	}
	if wrongCreds {
		switch kind {
		case "vertex":
			f.google.Refuse()
		case "bedrock":
			secrets.AWSSecretAccessKey = "another/secret+key"
		default:
			secrets.APIKey = "sk-wrong-key-0123456789"
		}
	}
	if err := e.store.CreateProvider(context.Background(), p, secrets); err != nil {
		t.Fatal(err)
	}
	e.addDeployment(models.Deployment{PublicName: "m", UpstreamModel: upstream, ProviderID: p.ID, Prices: models.PricesOf(1, 2)})
	if kind == "vertex" {
		e.addDeployment(models.Deployment{PublicName: "vertex-claude", UpstreamModel: "claude-sonnet-4@20250514", ProviderID: p.ID, Prices: models.PricesOf(1, 2)})
	}
	e.reload()
	return e, f
}

// toolRoundTrip asks pool for the weather with a tool offered, then sends
// the tool's result back under the call's id, through the official SDK of
// the caller's protocol, streamed or not; it returns the second answer's
// text and output tokens.
type toolRoundTrip func(t *testing.T, e *env, pool string, stream bool) (text string, outputTokens int64)

var callers = []struct {
	name string
	run  toolRoundTrip
}{
	{"chat", chatRoundTrip},
	{"messages", messagesRoundTrip},
	{"responses", responsesRoundTrip},
}

func chatRoundTrip(t *testing.T, e *env, pool string, stream bool) (string, int64) {
	t.Helper()
	ctx := context.Background()
	client := e.client()
	tool := openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "get_weather",
		Parameters: openai.FunctionParameters{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}})
	params := openai.ChatCompletionNewParams{Model: pool, Tools: []openai.ChatCompletionToolUnionParam{tool},
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("You are terse."), openai.UserMessage("Weather in Paris?")}}
	send := func() *openai.ChatCompletion {
		t.Helper()
		if !stream {
			c, err := client.Chat.Completions.New(ctx, params)
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		s := client.Chat.Completions.NewStreaming(ctx, params, option.WithJSONSet("stream_options", map[string]any{"include_usage": true}))
		acc := openai.ChatCompletionAccumulator{}
		for s.Next() {
			acc.AddChunk(s.Current())
		}
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		return &acc.ChatCompletion
	}
	first := send()
	calls := first.Choices[0].Message.ToolCalls
	if len(calls) != 1 || calls[0].Function.Name != "get_weather" || calls[0].ID == "" || !strings.Contains(calls[0].Function.Arguments, "Paris") {
		t.Fatalf("no tool call: %+v", first.Choices)
	}
	params.Messages = append(params.Messages, first.Choices[0].Message.ToParam(), openai.ToolMessage("sunny", calls[0].ID))
	second := send()
	return second.Choices[0].Message.Content, second.Usage.CompletionTokens
}

func messagesRoundTrip(t *testing.T, e *env, pool string, stream bool) (string, int64) {
	t.Helper()
	ctx := context.Background()
	client := e.anthropicClient()
	params := messageParams(pool, true)
	send := func() *anthropic.Message {
		t.Helper()
		if !stream {
			m, err := client.Messages.New(ctx, params)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		s := client.Messages.NewStreaming(ctx, params)
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
	first := send()
	var id string
	for _, b := range first.Content {
		if b.Type == "tool_use" && b.Name == "get_weather" && strings.Contains(string(b.Input), "Paris") {
			id = b.ID
		}
	}
	if id == "" || first.StopReason != "tool_use" {
		t.Fatalf("no tool call: %+v", first)
	}
	params.Messages = append(params.Messages, first.ToParam(),
		anthropic.NewUserMessage(anthropic.NewToolResultBlock(id, "sunny", false)))
	second := send()
	return messageText(second), second.Usage.OutputTokens
}

func responsesRoundTrip(t *testing.T, e *env, pool string, stream bool) (string, int64) {
	t.Helper()
	ctx := context.Background()
	client := e.client()
	send := func(p responses.ResponseNewParams) *responses.Response {
		t.Helper()
		if !stream {
			r, err := client.Responses.New(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		r, err := streamResponse(client, p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	first := send(responseParams(pool))
	var call responses.ResponseFunctionToolCall
	for _, item := range first.Output {
		if item.Type == "function_call" {
			call = item.AsFunctionCall()
		}
	}
	if call.Name != "get_weather" || call.CallID == "" || !strings.Contains(call.Arguments, "Paris") {
		t.Fatalf("no tool call in %+v", first.Output)
	}
	out := responses.ResponseInputItemParamOfFunctionCallOutput("sunny")
	out.OfFunctionCallOutput.CallID = param.NewOpt(call.CallID)
	second := send(responseParams(pool,
		responses.ResponseInputItemParamOfMessage("What is the weather in Paris?", responses.EasyInputMessageRoleUser),
		responses.ResponseInputItemParamOfFunctionCall(call.Arguments, call.CallID, call.Name), out))
	return second.OutputText(), second.Usage.OutputTokens
}

// TestVendorsEndToEnd: every new provider type, from the three front doors
// through their official SDKs, streamed and not: a tool call whose id
// comes back in the next request (the fakes refuse a wrong one), the
// answer after it, usage and cost on the log row.
func TestVendorsEndToEnd(t *testing.T) {
	for _, v := range []struct{ kind, pool string }{
		{"azure", "m"}, {"gemini", "m"}, {"vertex", "m"}, {"vertex", "vertex-claude"}, {"bedrock", "m"},
	} {
		t.Run(v.kind+" "+v.pool, func(t *testing.T) {
			e, f := newVendorEnv(t, v.kind)
			logs := 0
			for _, c := range callers {
				for _, stream := range []bool{false, true} {
					t.Run(fmt.Sprintf("%s stream=%v", c.name, stream), func(t *testing.T) {
						text, out := c.run(t, e, v.pool, stream)
						logs += 2
						if text != "It is sunny in Paris" {
							t.Errorf("answer %q", text)
						}
						if out == 0 {
							t.Errorf("no output tokens reported to the caller")
						}
						row := e.waitLogs(logs)[0]
						if row.Status != 200 || row.InputTokens == 0 || row.OutputTokens == 0 || row.CostUSD <= 0 || row.UsageEstimated {
							t.Errorf("log row: status %d, tokens %d/%d, cost %v, estimated %v", row.Status, row.InputTokens, row.OutputTokens, row.CostUSD, row.UsageEstimated)
						}
					})
				}
			}
			if v.kind == "vertex" && f.google.Fetches() != 1 {
				t.Errorf("the OAuth token was fetched %d times for %d calls, want once", f.google.Fetches(), f.count())
			}
		})
	}
}

// TestVendorErrors: a vendor's rate limit cools the member down for as long
// as its own retry hint says (Gemini's RetryInfo, Azure's retry-after;
// Bedrock's throttling has none: the default), its refusal of the
// credentials (Azure's 401, Gemini's invalid-key 400, Bedrock's signature
// 403, Vertex's token endpoint refusing the key) cools it at once, and the
// caller gets the error in its own protocol's shape.
func TestVendorErrors(t *testing.T) {
	const defaultCooldown = time.Minute
	for _, tc := range []struct {
		name, kind string
		wrongCreds bool
		queue      func(http.ResponseWriter)
		stream     bool
		wantStatus int
		wantCool   time.Duration
		wantCalls  int // calls that reached the vendor
	}{
		{"gemini 429 RetryInfo", "gemini", false, geminiRateLimited("37s"), false, 429, 37 * time.Second, 1},
		{"gemini 429 RetryInfo stream", "gemini", false, geminiRateLimited("37s"), true, 429, 37 * time.Second, 1},
		{"vertex 429 RetryInfo", "vertex", false, geminiRateLimited("20.5s"), false, 429, 20500 * time.Millisecond, 1},
		{"azure 429 retry-after", "azure", false, func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "12")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(429)
			io.WriteString(w, `{"error":{"code":"429","message":"Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-10-21 have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 12 seconds."}}`)
		}, false, 429, 12 * time.Second, 1},
		{"bedrock throttling", "bedrock", false, func(w http.ResponseWriter) {
			upstreamtest.WriteAWSError(w, 429, "ThrottlingException", "Too many requests, please wait before trying again.")
		}, false, 429, defaultCooldown, 1},
		{"bedrock throttling in the stream", "bedrock", false, func(w http.ResponseWriter) {
			upstreamtest.NewEventStreamWriter(w).Exception("throttlingException", "Too many requests, please wait before trying again.") //nolint:errcheck // the test sees it
		}, true, 429, defaultCooldown, 1},
		{"azure wrong key", "azure", true, nil, false, 502, defaultCooldown, 1},
		{"gemini invalid key 400", "gemini", true, nil, false, 502, defaultCooldown, 1},
		{"bedrock wrong secret 403", "bedrock", true, nil, true, 502, defaultCooldown, 1},
		{"vertex key refused", "vertex", true, nil, false, 502, defaultCooldown, 0},
	} {
		for _, caller := range []string{"/v1/chat/completions", "/v1/messages"} {
			t.Run(tc.name+" "+caller, func(t *testing.T) {
				clock := &fakeClock{now: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
				e, f := newVendorEnvWith(t, tc.kind, proxy.Options{Now: clock.Now, Sleep: clock.Sleep, DefaultCooldown: defaultCooldown}, tc.wrongCreds)
				if tc.queue != nil {
					f.queue(tc.queue)
				}
				body := fmt.Sprintf(`{"model":"m","max_tokens":16,"stream":%t,"messages":[{"role":"user","content":"hi"}]}`, tc.stream)
				resp, got := e.post(caller, e.key, strings.NewReader(body))
				if resp.StatusCode != tc.wantStatus {
					t.Errorf("status %d, want %d: %s", resp.StatusCode, tc.wantStatus, got)
				}
				checkErrorShape(t, caller, got)
				if strings.Contains(string(got), upstreamKey) || strings.Contains(string(got), "sk-wrong-key") {
					t.Errorf("a key reached the caller: %s", got)
				}
				if n := f.count(); n != tc.wantCalls {
					t.Errorf("the vendor got %d calls, want %d", n, tc.wantCalls)
				}
				st := e.memberStatus("m", map[string]string{"azure": "gpt-4o-prod", "gemini": "gemini-2.5-flash", "vertex": "gemini-2.5-flash", "bedrock": bedrockModel}[tc.kind])
				if !st.CoolingDown || st.CooldownUntil == nil {
					t.Fatalf("not cooling down: %+v", st)
				}
				if d := st.CooldownUntil.Sub(clock.Now()); d != tc.wantCool {
					t.Errorf("cooling down for %v, want %v (%s)", d, tc.wantCool, st.CooldownReason)
				}
			})
		}
	}
}

// checkErrorShape: an error answer in the caller's protocol's shape.
func checkErrorShape(t *testing.T, caller string, body []byte) {
	t.Helper()
	if caller == "/v1/chat/completions" {
		decodeError(t, body)
		return
	}
	var e struct {
		Type  string `json:"type"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Type != "error" || e.Error.Type == "" || e.Error.Message == "" {
		t.Errorf("not Anthropic's error shape: %s", body)
	}
}

// TestVendorCheckNow: Check now calls each new type's member with a
// 1-token request in its own protocol and credentials; a member whose
// credentials are refused fails its check with the vendor's words, no
// secret in them.
func TestVendorCheckNow(t *testing.T) {
	for _, v := range []struct{ kind, pool string }{
		{"azure", "m"}, {"gemini", "m"}, {"vertex", "m"}, {"vertex", "vertex-claude"}, {"bedrock", "m"},
	} {
		for _, wrong := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s %s wrong credentials=%v", v.kind, v.pool, wrong), func(t *testing.T) {
				e, f := newVendorEnvWith(t, v.kind, proxy.Options{}, wrong)
				results, ok := e.proxy.CheckPool(context.Background(), v.pool)
				if !ok || len(results) != 1 {
					t.Fatalf("CheckPool: %v %v", results, ok)
				}
				r := results[0]
				if r.OK == wrong {
					t.Errorf("check OK=%v with wrong credentials=%v: %s", r.OK, wrong, r.Err)
				}
				if wrong && (r.Err == "" || strings.Contains(r.Err, upstreamKey) || strings.Contains(r.Err, "sk-wrong-key-0123456789")) {
					t.Errorf("check error %q", r.Err)
				}
				if !wrong {
					f.mu.Lock()
					last := f.reqs[len(f.reqs)-1]
					f.mu.Unlock()
					if !strings.Contains(string(last.Raw), "ping") || !strings.Contains(string(last.Raw), "1") {
						t.Errorf("check request %s", last.Raw)
					}
				}
			})
		}
	}
}

// TestVendorContentFilterFallsBack: an answer the vendor cut for its
// content (Azure's finish_reason content_filter, a Gemini prompt blocked
// for safety, a Bedrock guardrail) goes to the pool's content-policy
// fallbacks, from either caller, as an OpenAI one does.
func TestVendorContentFilterFallsBack(t *testing.T) {
	filtered := map[string]func(http.ResponseWriter){
		"azure": func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-2024-11-20","choices":[{"index":0,"message":{"role":"assistant","content":null},"finish_reason":"content_filter","content_filter_results":{"hate":{"filtered":true,"severity":"high"}}}],"usage":{"prompt_tokens":9,"completion_tokens":0,"total_tokens":9}}`)
		},
		"gemini": func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"promptFeedback":{"blockReason":"SAFETY","safetyRatings":[{"category":"HARM_CATEGORY_DANGEROUS_CONTENT","probability":"HIGH"}]},"usageMetadata":{"promptTokenCount":9,"totalTokenCount":9},"modelVersion":"gemini-2.5-flash","responseId":"blocked-1"}`)
		},
		"bedrock": func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"output":{"message":{"role":"assistant","content":[{"text":"Sorry, the model cannot answer this question."}]}},"stopReason":"guardrail_intervened","usage":{"inputTokens":9,"outputTokens":9,"totalTokens":18}}`)
		},
	}
	for _, kind := range []string{"azure", "gemini", "bedrock"} {
		for _, caller := range []string{"/v1/chat/completions", "/v1/messages"} {
			t.Run(kind+" "+caller, func(t *testing.T) {
				e, f := newVendorEnvWith(t, kind, proxy.Options{}, false)
				ps, err := e.store.ListProviders(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				i := slices.IndexFunc(ps, func(p models.Provider) bool { return p.Name == kind+"-main" })
				if i < 0 {
					t.Fatalf("no %s provider among %d", kind, len(ps))
				}
				// The fake serves one model: the fallback pool is the same model, asked again.
				upstream := map[string]string{"azure": "gpt-4o-prod", "gemini": "gemini-2.5-flash", "bedrock": bedrockModel}[kind]
				e.addDeployment(models.Deployment{PublicName: "lenient", UpstreamModel: upstream, ProviderID: ps[i].ID})
				e.setFallbacks("m", models.FallbackContentPolicy, "lenient")
				e.reload()
				f.queue(filtered[kind])
				resp, got := e.post(caller, e.key, strings.NewReader(`{"model":"m","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`))
				if resp.StatusCode != http.StatusOK || resp.Header.Get("X-Gateway-Fallback") != "lenient" {
					t.Errorf("status %d, fallback %q, want 200 from lenient: %s", resp.StatusCode, resp.Header.Get("X-Gateway-Fallback"), got)
				}
				if n := f.count(); n != 2 {
					t.Errorf("the vendor got %d calls, want the filtered one and the fallback's", n)
				}
			})
		}
	}
}
