package proxy_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"gateway/models"
	"gateway/models/dbtest"
	"gateway/proxy"
)

// The benchmarks below are one whole proxied request through Server.ServeHTTP,
// on a real SQLite store and a loopback upstream: what a request costs the
// gateway's process, the upstream's HTTP handling included (the upstream only
// writes a canned answer). -memprofile shows where the allocations are.

const benchCompletion = `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-2024-08-06",` +
	`"choices":[{"index":0,"message":{"role":"assistant","content":"Here is the shorter function, with a test."},` +
	`"finish_reason":"stop"}],"usage":{"prompt_tokens":320,"completion_tokens":12,"total_tokens":332}}`

func benchStreamEvents() string {
	var b strings.Builder
	for i := range 20 {
		b.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o",` +
			`"choices":[{"index":0,"delta":{"content":"word `)
		b.WriteByte(byte('a' + i))
		b.WriteString(` "},"finish_reason":null}]}` + "\n\n")
	}
	b.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o",` +
		`"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":320,"completion_tokens":20,"total_tokens":340}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// benchUpstream is an OpenAI upstream that answers at once.
func benchUpstream(b *testing.B) *httptest.Server {
	stream := benchStreamEvents()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"stream":true`)) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, stream)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, benchCompletion)
	}))
	b.Cleanup(up.Close)
	return up
}

// benchGateway is a gateway with one OpenAI pool of three weighted members
// and prices, in front of an upstream that answers at once.
func benchGateway(b *testing.B) (*proxy.Server, string) {
	up := benchUpstream(b)
	ctx := context.Background()
	store := dbtest.MustOpenStore(b, "", b.TempDir())
	p := &models.Provider{Name: "openai", APIType: models.APITypeOpenAI, BaseURL: up.URL + "/v1"}
	if err := store.CreateProvider(ctx, p, models.ProviderSecrets{APIKey: "sk-upstream"}); err != nil {
		b.Fatal(err)
	}
	for _, w := range []float64{5, 3, 2} {
		d := &models.Deployment{PublicName: "gpt-4o", ProviderID: p.ID, UpstreamModel: "gpt-4o-2024-08-06",
			Weight: &w, Enabled: true, Prices: models.PricesOf(2.5, 10)}
		if err := store.CreateDeployment(ctx, d); err != nil {
			b.Fatal(err)
		}
	}
	key, err := store.CreateKey(ctx, &models.VirtualKey{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	s := proxy.New(store, proxy.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	b.Cleanup(func() { s.Close(context.Background()) })
	if err := s.Reload(ctx); err != nil {
		b.Fatal(err)
	}
	return s, key
}

func benchServe(b *testing.B, path, body string, want string) {
	s, key := benchGateway(b)
	benchHandler(b, s, key, path, body, want)
}

func benchHandler(b *testing.B, s http.Handler, key, path, body string, want string) {
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+key)
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), want) {
			b.Fatalf("%d %s", w.Code, w.Body.String())
		}
	}
	b.StopTimer()
	time.Sleep(10 * time.Millisecond)
}

const benchChatRequest = `{"model":"gpt-4o","temperature":0.2,"messages":[` +
	`{"role":"system","content":"You are a coding agent. Follow the repository's conventions and explain briefly."},` +
	`{"role":"user","content":"Please refactor the function below so that it is shorter and says why in comments.\n\nfunc f() {}"},` +
	`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"main.go\"}"}}]},` +
	`{"role":"tool","tool_call_id":"call_1","content":"package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n"},` +
	`{"role":"user","content":"Now also add a test."}],` +
	`"tools":[{"type":"function","function":{"name":"read_file","description":"Read a file","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}]}`

const benchMessagesRequest = `{"model":"gpt-4o","max_tokens":1024,"system":"You are a coding agent. Follow the repository's conventions.",` +
	`"messages":[{"role":"user","content":"Please refactor the function below.\n\nfunc f() {}"},` +
	`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path":"main.go"}}]},` +
	`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"package main\n"}]},` +
	`{"role":"user","content":"Now also add a test."}],` +
	`"tools":[{"name":"read_file","description":"Read a file","input_schema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]`

func BenchmarkServeChat(b *testing.B) {
	benchServe(b, "/v1/chat/completions", benchChatRequest, `"total_tokens":332`)
}

func BenchmarkServeChatStream(b *testing.B) {
	benchServe(b, "/v1/chat/completions", strings.Replace(benchChatRequest, `{"model":"gpt-4o",`, `{"model":"gpt-4o","stream":true,`, 1), "[DONE]")
}

func BenchmarkServeMessagesToChat(b *testing.B) {
	benchServe(b, "/v1/messages", benchMessagesRequest+`}`, `"end_turn"`)
}

func BenchmarkServeMessagesToChatStream(b *testing.B) {
	benchServe(b, "/v1/messages", benchMessagesRequest+`,"stream":true}`, "message_stop")
}

// BenchmarkServePlainProxy is the floor the gateway is measured against: an
// httputil.ReverseProxy hop to the same upstream, in the same harness as
// BenchmarkServeChat and BenchmarkServeChatStream.
func BenchmarkServePlainProxy(b *testing.B) {
	for _, stream := range []bool{false, true} {
		name, body, want := "json", benchChatRequest, `"total_tokens":332`
		if stream {
			name, body, want = "stream", strings.Replace(benchChatRequest, `{"model":"gpt-4o",`, `{"model":"gpt-4o","stream":true,`, 1), "[DONE]"
		}
		b.Run(name, func(b *testing.B) {
			u, err := url.Parse(benchUpstream(b).URL)
			if err != nil {
				b.Fatal(err)
			}
			rp := httputil.NewSingleHostReverseProxy(u)
			transport := &http.Transport{MaxIdleConnsPerHost: 64}
			b.Cleanup(transport.CloseIdleConnections)
			rp.Transport = transport
			benchHandler(b, rp, "unused", "/v1/chat/completions", body, want)
		})
	}
}
