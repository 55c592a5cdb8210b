package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"gateway/models"
	"gateway/models/dbtest"
	"gateway/proxy"
)

// upstreamKey is the provider's secret; tests assert it never reaches a caller.
const upstreamKey = "sk-upstream-provider-secret-0123456789"

// Usage the fake upstream reports: 12 prompt tokens of which 4 cached, 5 out.
const (
	fakePromptTokens     = 12
	fakeCachedTokens     = 4
	fakeCompletionTokens = 5
)

// upstreamRequest is what the fake upstream received.
type upstreamRequest struct {
	Path   string
	Header http.Header
	Raw    []byte
	Body   map[string]any
}

// fakeUpstream is an OpenAI chat completions endpoint speaking the real wire
// format: JSON with usage, or SSE chunks ending with a usage chunk (when
// include_usage is asked for) and data: [DONE].
type fakeUpstream struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []upstreamRequest
	// respond, when set, replaces the default answer.
	respond func(w http.ResponseWriter, r *http.Request, req upstreamRequest)
}

func newFakeUpstream(t *testing.T) *fakeUpstream {
	t.Helper()
	f := &fakeUpstream{}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeUpstream) serve(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := upstreamRequest{Path: r.URL.Path, Header: r.Header.Clone(), Raw: raw}
	if err := json.Unmarshal(raw, &req.Body); err != nil {
		http.Error(w, "upstream got invalid JSON: "+err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	respond := f.respond
	f.mu.Unlock()
	if respond != nil {
		respond(w, r, req)
		return
	}
	if req.Body["stream"] == true {
		writeFakeStream(w, req)
		return
	}
	writeFakeCompletion(w, req)
}

func (f *fakeUpstream) setRespond(fn func(w http.ResponseWriter, r *http.Request, req upstreamRequest)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.respond = fn
}

// last returns the last request received, failing the test if there was none.
func (f *fakeUpstream) last(t *testing.T) upstreamRequest {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.reqs) == 0 {
		t.Fatal("upstream received no request")
	}
	return f.reqs[len(f.reqs)-1]
}

func (f *fakeUpstream) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reqs)
}

func fakeUsageJSON() string {
	return fmt.Sprintf(`{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d,"prompt_tokens_details":{"cached_tokens":%d,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}`,
		fakePromptTokens, fakeCompletionTokens, fakePromptTokens+fakeCompletionTokens, fakeCachedTokens)
}

func writeFakeCompletion(w http.ResponseWriter, req upstreamRequest) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"chatcmpl-fake1","object":"chat.completion","created":1700000000,"model":%q,`+
		`"choices":[{"index":0,"message":{"role":"assistant","content":"Hello world","refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"stop"}],`+
		`"usage":%s,"service_tier":"default","system_fingerprint":"fp_fake"}`, req.Body["model"], fakeUsageJSON())
}

// streamChunk is one chat.completion.chunk event; usage is "null" on ordinary
// chunks when include_usage was asked for, as OpenAI does, and absent otherwise.
func streamChunk(model, delta, finish string, withUsageField bool) string {
	fin := "null"
	if finish != "" {
		fin = fmt.Sprintf("%q", finish)
	}
	u := ""
	if withUsageField {
		u = `,"usage":null`
	}
	return fmt.Sprintf(`data: {"id":"chatcmpl-fake2","object":"chat.completion.chunk","created":1700000000,"model":%q,"system_fingerprint":"fp_fake","choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}]%s}`+"\n\n",
		model, delta, fin, u)
}

func usageChunk(model string) string {
	return fmt.Sprintf(`data: {"id":"chatcmpl-fake2","object":"chat.completion.chunk","created":1700000000,"model":%q,"system_fingerprint":"fp_fake","choices":[],"usage":%s}`+"\n\n",
		model, fakeUsageJSON())
}

func wantsUsage(req upstreamRequest) bool {
	so, _ := req.Body["stream_options"].(map[string]any)
	return so["include_usage"] == true
}

// fakeStreamEvents are the events of the default stream: "Hello world" in two
// deltas, a finish chunk, the usage chunk when asked for, and [DONE].
func fakeStreamEvents(req upstreamRequest) []string {
	model, _ := req.Body["model"].(string)
	u := wantsUsage(req)
	events := []string{
		streamChunk(model, `{"role":"assistant","content":"","refusal":null}`, "", u),
		streamChunk(model, `{"content":"Hello"}`, "", u),
		streamChunk(model, `{"content":" world"}`, "", u),
		streamChunk(model, `{}`, "stop", u),
	}
	if u {
		events = append(events, usageChunk(model))
	}
	return append(events, "data: [DONE]\n\n")
}

func writeFakeStream(w http.ResponseWriter, req upstreamRequest) {
	startStream(w)
	for _, ev := range fakeStreamEvents(req) {
		io.WriteString(w, ev)
		w.(http.Flusher).Flush()
	}
}

func startStream(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
}

// syncBuffer collects log output from several goroutines. While held, a
// write waits for release: a log sink that has stalled.
type syncBuffer struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	gate chan struct{}
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	gate := b.gate
	b.mu.Unlock()
	if gate != nil {
		<-gate
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// hold makes writes wait until the returned release is called.
func (b *syncBuffer) hold() (release func()) {
	gate := make(chan struct{})
	b.mu.Lock()
	b.gate = gate
	b.mu.Unlock()
	return sync.OnceFunc(func() {
		b.mu.Lock()
		b.gate = nil
		b.mu.Unlock()
		close(gate)
	})
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// env is a gateway on a real SQLite store in front of a fake upstream, with
// one provider and one key.
type env struct {
	t          *testing.T
	store      *models.Store
	proxy      *proxy.Server
	gw         *httptest.Server
	up         *fakeUpstream
	logs       *syncBuffer
	providerID int64
	key        string
}

func newEnv(t *testing.T, opts proxy.Options) *env {
	t.Helper()
	e := &env{t: t, store: dbtest.MustOpenStore(t, "", t.TempDir()), up: newFakeUpstream(t), logs: &syncBuffer{}}
	opts.Logger = slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if opts.Sleep == nil {
		// Backoffs between retries pass at once: no test waits for them.
		opts.Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	}
	e.proxy = proxy.New(e.store, opts)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := e.proxy.Close(ctx); err != nil {
			t.Errorf("close proxy: %v", err)
		}
	})
	// The HTTP server's own log must stay empty: it is where a handler panic
	// (golang/go#68560) or a superfluous WriteHeader would show.
	serverLog := &syncBuffer{}
	t.Cleanup(func() {
		if s := serverLog.String(); s != "" {
			t.Errorf("the gateway's http.Server logged:\n%s", s)
		}
	})
	e.gw = httptest.NewUnstartedServer(e.proxy)
	e.gw.Config.ErrorLog = log.New(serverLog, "", 0)
	e.gw.Start()
	t.Cleanup(e.gw.Close)
	e.providerID = e.addProvider("openai-main", models.APITypeOpenAI, e.up.URL+"/v1")
	e.key = e.addKey()
	return e
}

func (e *env) addProvider(name, apiType, baseURL string) int64 {
	e.t.Helper()
	p := &models.Provider{Name: name, APIType: apiType, BaseURL: baseURL}
	if err := e.store.CreateProvider(context.Background(), p, models.ProviderSecrets{APIKey: upstreamKey}); err != nil {
		e.t.Fatal(err)
	}
	return p.ID
}

// addDeployment stores d, on the env's provider unless d names another.
func (e *env) addDeployment(d models.Deployment) int64 {
	e.t.Helper()
	if d.ProviderID == 0 {
		d.ProviderID = e.providerID
	}
	d.Enabled = true
	if err := e.store.CreateDeployment(context.Background(), &d); err != nil {
		e.t.Fatal(err)
	}
	return d.ID
}

// addKey creates a virtual key allowed the given models (all when none).
func (e *env) addKey(allowed ...string) string {
	e.t.Helper()
	key, err := e.store.CreateKey(context.Background(), &models.VirtualKey{Name: "test key", Models: allowed})
	if err != nil {
		e.t.Fatal(err)
	}
	return key
}

func (e *env) reload() {
	e.t.Helper()
	if err := e.proxy.Reload(context.Background()); err != nil {
		e.t.Fatal(err)
	}
}

// client is the official SDK pointed at the gateway; retries are off so that
// every error test sees the gateway's first answer.
func (e *env) client(opts ...option.RequestOption) *openai.Client {
	base := []option.RequestOption{
		option.WithBaseURL(e.gw.URL + "/v1/"),
		option.WithAPIKey(e.key),
		option.WithMaxRetries(0),
		option.WithRequestTimeout(20 * time.Second),
	}
	c := openai.NewClient(append(base, opts...)...)
	return &c
}

// post sends a raw request to the gateway.
func (e *env) post(path, key string, body io.Reader) (*http.Response, []byte) {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.gw.URL+path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	return e.do(req)
}

func (e *env) do(req *http.Request) (*http.Response, []byte) {
	e.t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp, b
}

// waitLogs polls the store until n request logs exist (the writer flushes
// every 200 ms) and returns them, newest first.
func (e *env) waitLogs(n int) []models.RequestLog {
	e.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		logs, err := e.store.ListRequestLogs(context.Background(), models.LogFilter{})
		if err != nil {
			e.t.Fatal(err)
		}
		if len(logs) >= n || time.Now().After(deadline) {
			if len(logs) != n {
				e.t.Fatalf("request logs: got %d, want %d", len(logs), n)
			}
			return logs
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// openAIError is the OpenAI error shape as a caller decodes it.
type openAIError struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    string  `json:"code"`
	} `json:"error"`
}

// decodeError checks that body is in OpenAI's error shape and returns it.
func decodeError(t *testing.T, body []byte) openAIError {
	t.Helper()
	var e openAIError
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("error body is not JSON: %v: %s", err, body)
	}
	if e.Error.Message == "" || e.Error.Type == "" || e.Error.Code == "" {
		t.Fatalf("error body lacks message, type or code: %s", body)
	}
	return e
}

func chatBody(model string, stream bool) string {
	return fmt.Sprintf(`{"model":%q,"stream":%t,"messages":[{"role":"user","content":"hi"}]}`, model, stream)
}

func userMessage(model string) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:    model,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	}
}

func ptr[T any](v T) *T { return &v }

func mustContain(t *testing.T, what, s, sub string) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Errorf("%s: %q does not contain %q", what, s, sub)
	}
}
