package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"gateway/models"
	"gateway/models/dbtest"
)

const (
	testMasterKey   = "mk-test-master-key"
	testProviderKey = "sk-provider-SECRET-7f3a9c1e5b2d4a6f"
	testPassword    = "admin-password-for-tests"
)

// syncBuffer is a bytes.Buffer safe for the gateway's logger and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func testConfig(dsn, dataDir string) Config {
	return Config{ProxyAddr: "127.0.0.1:0", AdminAddr: "127.0.0.1:0", DatabaseURL: dsn, DataDir: dataDir,
		MasterKey: testMasterKey, AdminPassword: testPassword, LogLevel: "debug", MaxBodyMB: 1}
}

// startGateway starts a gateway and shuts it down when the test ends, unless
// the test already did.
func startGateway(t *testing.T, cfg Config) (*Gateway, *syncBuffer) {
	t.Helper()
	out := &syncBuffer{}
	g, err := Start(context.Background(), cfg, out, out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Shutdown(context.Background()) })
	return g, out
}

// api calls the management API with the master key and decodes the answer.
func api(t *testing.T, g *Gateway, method, path string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, "http://"+g.AdminAddr()+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testMasterKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func mustAPI(t *testing.T, g *Gateway, method, path string, body any, wantStatus int) map[string]any {
	t.Helper()
	status, b := api(t, g, method, path, body)
	if status != wantStatus {
		t.Fatalf("%s %s: status %d, want %d: %s", method, path, status, wantStatus, b)
	}
	var out map[string]any
	if len(b) > 0 && b[0] == '{' {
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// setupPool registers the fake upstream as a provider with one model entry
// and returns a new virtual key.
func setupPool(t *testing.T, g *Gateway, upstream string) string {
	t.Helper()
	p := mustAPI(t, g, "POST", "/api/providers", map[string]any{
		"name": "fake-openai", "api_type": "openai", "base_url": upstream + "/v1", "api_key": testProviderKey,
	}, http.StatusCreated)
	mustAPI(t, g, "POST", "/api/models", map[string]any{
		"public_name": "team-model", "provider_id": p["id"], "upstream_model": "gpt-upstream-1",
		"input_price": 2.5, "output_price": 10,
	}, http.StatusCreated)
	k := mustAPI(t, g, "POST", "/api/keys", map[string]any{"name": "e2e"}, http.StatusCreated)
	key, _ := k["key"].(string)
	if !strings.HasPrefix(key, "sk-") {
		t.Fatalf("POST /api/keys returned key %q", key)
	}
	return key
}

func sdk(g *Gateway, key string) openai.Client {
	return openai.NewClient(option.WithBaseURL("http://"+g.ProxyAddr()+"/v1/"), option.WithAPIKey(key), option.WithMaxRetries(0))
}

func chatParams() openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:    "team-model",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("say hello")},
	}
}

func TestEndToEndWithOpenAISDK(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dsn, dataDir string) {
		upstream := newFakeOpenAI(t)
		g, out := startGateway(t, testConfig(dsn, dataDir))
		key := setupPool(t, g, upstream.URL)
		client := sdk(g, key)
		ctx := context.Background()

		var resp *http.Response
		c, err := client.Chat.Completions.New(ctx, chatParams(), option.WithResponseInto(&resp))
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Choices[0].Message.Content; got != "hello from upstream" {
			t.Fatalf("content = %q", got)
		}
		if c.Usage.PromptTokens != 11 || c.Usage.CompletionTokens != 7 {
			t.Fatalf("usage = %+v", c.Usage)
		}
		if c.Model != "gpt-upstream-1" || resp.Header.Get("x-gateway-upstream-model") != "gpt-upstream-1" ||
			resp.Header.Get("x-gateway-provider") != "fake-openai" {
			t.Fatalf("model %q, headers %v", c.Model, resp.Header)
		}

		stream := client.Chat.Completions.NewStreaming(ctx, chatParams())
		acc := openai.ChatCompletionAccumulator{}
		for stream.Next() {
			acc.AddChunk(stream.Current())
		}
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
		if got, want := acc.Choices[0].Message.Content, strings.Join(streamWords, ""); got != want {
			t.Fatalf("streamed content = %q, want %q", got, want)
		}

		auths, bodies := upstream.received()
		for i, a := range auths {
			if a != "Bearer "+testProviderKey {
				t.Fatalf("upstream request %d had Authorization %q, want the provider key", i, a)
			}
		}
		if bodies[0]["model"] != "gpt-upstream-1" {
			t.Fatalf("upstream got model %v", bodies[0]["model"])
		}
		if so, _ := bodies[1]["stream_options"].(map[string]any); so["include_usage"] != true {
			t.Fatalf("stream did not ask the upstream for usage: %v", bodies[1])
		}

		// Shutdown drains the log writer: both requests are in the database with their tokens.
		if err := g.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		logs := readLogs(t, dsn, dataDir)
		if len(logs) != 2 {
			t.Fatalf("request logs = %d, want 2; gateway output:\n%s", len(logs), out)
		}
		for _, l := range logs {
			if l.Status != 200 || l.Model != "team-model" || l.UpstreamModel != "gpt-upstream-1" || l.ProviderName != "fake-openai" || l.DeploymentID == nil {
				t.Fatalf("log row %+v", l)
			}
		}
		if logs[0].InputTokens != 13 || logs[0].OutputTokens != 5 || !logs[0].Stream {
			t.Fatalf("stream log tokens in=%d out=%d stream=%v, want 13/5/true", logs[0].InputTokens, logs[0].OutputTokens, logs[0].Stream)
		}
		if logs[1].InputTokens != 11 || logs[1].OutputTokens != 7 {
			t.Fatalf("non-stream log tokens in=%d out=%d, want 11/7", logs[1].InputTokens, logs[1].OutputTokens)
		}
	})
}

func readLogs(t *testing.T, dsn, dataDir string) []models.RequestLog {
	t.Helper()
	s := dbtest.MustOpenStore(t, dsn, dataDir)
	logs, err := s.ListRequestLogs(context.Background(), models.LogFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return logs
}

func TestProxyErrorsInOpenAIShape(t *testing.T) {
	upstream := newFakeOpenAI(t)
	g, _ := startGateway(t, testConfig("", t.TempDir()))
	key := setupPool(t, g, upstream.URL)
	ctx := context.Background()

	t.Run("sdk", func(t *testing.T) {
		cases := []struct {
			name, key, model string
			status           int
			message          string
		}{
			{"wrong key", "sk-not-a-key", "team-model", 401, ""},
			{"no key", "", "team-model", 401, ""},
			{"unknown model", key, "no-such-model", 404, "no healthy deployments for this model"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				p := chatParams()
				p.Model = c.model
				client := sdk(g, c.key)
				_, err := client.Chat.Completions.New(ctx, p)
				var apiErr *openai.Error
				if !errors.As(err, &apiErr) {
					t.Fatalf("err = %v, want an *openai.Error", err)
				}
				if apiErr.StatusCode != c.status || !strings.Contains(apiErr.Message, c.message) || apiErr.Message == "" {
					t.Fatalf("status %d message %q, want %d containing %q", apiErr.StatusCode, apiErr.Message, c.status, c.message)
				}
			})
		}
	})

	t.Run("raw", func(t *testing.T) {
		cases := []struct {
			name   string
			body   string
			status int
		}{
			{"bad json", `{"model": "team-model", "messages": [`, 400},
			{"not an object", `["team-model"]`, 400},
			{"no model", `{"messages":[{"role":"user","content":"hi"}]}`, 400},
			{"invalid utf-8", "{\"model\":\"team-model\",\"messages\":[{\"role\":\"user\",\"content\":\"\xff\xfe\"}]}", 400},
			{"too large", `{"model":"team-model","messages":[{"role":"user","content":"` + strings.Repeat("a", 2<<20) + `"}]}`, 413},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				req, _ := http.NewRequest("POST", "http://"+g.ProxyAddr()+"/v1/chat/completions", strings.NewReader(c.body))
				req.Header.Set("Authorization", "Bearer "+key)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				var e struct {
					Error struct{ Message, Type string }
				}
				if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
					t.Fatalf("body is not an OpenAI error: %v", err)
				}
				if resp.StatusCode != c.status || e.Error.Message == "" {
					t.Fatalf("status %d message %q, want %d", resp.StatusCode, e.Error.Message, c.status)
				}
			})
		}
	})
	if _, bodies := upstream.received(); len(bodies) != 0 {
		t.Fatalf("%d bad requests reached the upstream", len(bodies))
	}
}

func TestFirstStartCreatesAdminAndKey(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig("", dir)
	cfg.AdminPassword = ""
	g, out := startGateway(t, cfg)
	pw := regexp.MustCompile(`password: (\S+)`).FindStringSubmatch(out.String())
	key := regexp.MustCompile(`\s(sk-[A-Za-z0-9_-]{40,})\s`).FindStringSubmatch(out.String())
	if pw == nil || key == nil {
		t.Fatalf("first start did not print a password and a key:\n%s", out)
	}
	for _, want := range []string{"http://" + g.ProxyAddr(), "http://" + g.AdminAddr()} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("log does not show %s:\n%s", want, out)
		}
	}
	// The printed key works at once.
	resp, err := http.Get("http://" + g.ProxyAddr() + "/health/readiness")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("readiness: %v %v", resp, err)
	}
	client := sdk(g, key[1])
	if _, err := client.Models.List(context.Background()); err != nil {
		t.Fatalf("the printed key does not work: %v", err)
	}
	// The printed password logs in.
	if c := login(t, g, pw[1]); c == nil {
		t.Fatal("the printed password does not log in")
	}
	if err := g.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	// A second start creates neither again.
	_, out2 := startGateway(t, cfg)
	if strings.Contains(out2.String(), "password:") || strings.Contains(out2.String(), "sk-") {
		t.Fatalf("second start printed secrets again:\n%s", out2)
	}
}

// login signs in to the admin web app and returns a client holding the session.
func login(t *testing.T, g *Gateway, password string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	base := "http://" + g.AdminAddr()
	resp, err := c.Get(base + "/login")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	token, _ := doc.Find(`input[name="csrf_token"]`).Attr("value")
	resp, err = c.PostForm(base+"/login", url.Values{"username": {"admin"}, "password": {password}, "csrf_token": {token}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		return nil
	}
	return c
}

func TestProviderKeyNeverLeaves(t *testing.T) {
	upstream := newFakeOpenAI(t)
	g, out := startGateway(t, testConfig("", t.TempDir()))
	key := setupPool(t, g, upstream.URL)
	dead := mustAPI(t, g, "POST", "/api/providers", map[string]any{
		"name": "dead", "api_type": "openai", "base_url": "http://127.0.0.1:1/v1", "api_key": testProviderKey,
	}, http.StatusCreated)
	mustAPI(t, g, "POST", "/api/models", map[string]any{
		"public_name": "dead-model", "provider_id": dead["id"], "upstream_model": "x",
	}, http.StatusCreated)

	var bodies []string
	for _, path := range []string{"/api/providers", "/api/models", "/api/keys", "/api/fallbacks"} {
		_, b := api(t, g, "GET", path, nil)
		bodies = append(bodies, string(b))
	}
	admin := login(t, g, testPassword)
	if admin == nil {
		t.Fatal("login failed")
	}
	for _, path := range []string{"/", "/models", "/login"} {
		resp, err := admin.Get("http://" + g.AdminAddr() + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 400 {
			t.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
		bodies = append(bodies, string(b))
	}
	// Proxy answers, including a failed upstream call.
	client := sdk(g, key)
	_, err := client.Chat.Completions.New(context.Background(), chatParams())
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/v1/models", "/v1/chat/completions"} {
		req, _ := http.NewRequest("GET", "http://"+g.ProxyAddr()+path, nil)
		if path != "/v1/models" {
			req, _ = http.NewRequest("POST", "http://"+g.ProxyAddr()+path,
				strings.NewReader(`{"model":"dead-model","messages":[{"role":"user","content":"hi"}]}`))
		}
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 && resp.StatusCode != http.StatusBadGateway {
			t.Fatalf("%s: status %d: %s", path, resp.StatusCode, b)
		}
		bodies = append(bodies, fmt.Sprint(resp.Header), string(b))
	}
	bodies = append(bodies, out.String())
	for i, b := range bodies {
		if strings.Contains(b, testProviderKey[:12]) || strings.Contains(b, testProviderKey) {
			t.Fatalf("response %d contains the provider key:\n%s", i, b)
		}
	}
}

func TestShutdownFinishesStreams(t *testing.T) {
	upstream := newFakeOpenAI(t)
	upstream.chunkGap = 150 * time.Millisecond
	dir := t.TempDir()
	g, _ := startGateway(t, testConfig("", dir))
	key := setupPool(t, g, upstream.URL)

	client := sdk(g, key)
	stream := client.Chat.Completions.NewStreaming(context.Background(), chatParams())
	if !stream.Next() { // the first chunk is here: the request is in flight
		t.Fatal(stream.Err())
	}
	done := make(chan error, 1)
	go func() { done <- g.Shutdown(context.Background()) }()
	var content strings.Builder
	for stream.Next() {
		if len(stream.Current().Choices) > 0 {
			content.WriteString(stream.Current().Choices[0].Delta.Content)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("stream broken by shutdown: %v", err)
	}
	if got, want := content.String(), strings.Join(streamWords, ""); got != want {
		t.Fatalf("content = %q, want %q", got, want)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// New connections are refused after shutdown.
	if _, err := http.Get("http://" + g.ProxyAddr() + "/health/liveliness"); err == nil {
		t.Fatal("proxy still answers after shutdown")
	}
	if logs := readLogs(t, "", dir); len(logs) != 1 || logs[0].OutputTokens != 5 {
		t.Fatalf("the stream's log row was not drained: %+v", logs)
	}
}

// TestSecureCookies: behind TLS the session cookie is marked Secure, and
// only then (on plain http a browser would not send it back).
func TestSecureCookies(t *testing.T) {
	for _, secure := range []bool{false, true} {
		cfg := testConfig("", t.TempDir())
		cfg.SecureCookies = secure
		g, _ := startGateway(t, cfg)
		resp, err := http.Get("http://" + g.AdminAddr() + "/login")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		cookies := resp.Cookies()
		if len(cookies) != 1 || cookies[0].Secure != secure || !cookies[0].HttpOnly {
			t.Errorf("secure-cookies %v: the login page set %v", secure, resp.Header["Set-Cookie"])
		}
	}
}

func TestConfigFromFlagsAndEnv(t *testing.T) {
	env := map[string]string{"GATEWAY_PROXY_ADDR": "127.0.0.1:5000", "GATEWAY_MAX_BODY_MB": "8", "GATEWAY_LOG_LEVEL": "warn",
		"GATEWAY_MASTER_KEY": "mk-from-env-SECRET", "GATEWAY_DATABASE_URL": "postgres://u:PASSWORD@h/db"}
	getenv := func(k string) string { return env[k] }
	cfg, err := parseConfig([]string{"--proxy-addr", "127.0.0.1:6000"}, getenv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ProxyAddr != "127.0.0.1:6000" || cfg.AdminAddr != "127.0.0.1:8080" || cfg.MaxBodyMB != 8 || cfg.LogLevel != "warn" || cfg.DataDir != "./data" {
		t.Fatalf("config = %+v", cfg)
	}
	if cfg.MasterKey != "mk-from-env-SECRET" || cfg.DatabaseURL != "postgres://u:PASSWORD@h/db" {
		t.Fatalf("secret settings from the environment were lost: %+v", cfg)
	}
	if over, _ := parseConfig([]string{"--master-key", "mk-from-flag"}, getenv, io.Discard); over.MasterKey != "mk-from-flag" {
		t.Fatalf("the flag did not win over the environment: %q", over.MasterKey)
	}
	def, _ := parseConfig(nil, func(string) string { return "" }, io.Discard)
	if def.ProxyAddr != "127.0.0.1:4000" || def.MaxBodyMB != 32 || def.DatabaseURL != "" {
		t.Fatalf("defaults = %+v", def)
	}
	if def.SecureCookies {
		t.Fatal("cookies are Secure by default: the admin app on plain http could not sign in")
	}
	if secure, _ := parseConfig([]string{"--secure-cookies=true"}, getenv, io.Discard); !secure.SecureCookies {
		t.Fatal("--secure-cookies=true did not set SecureCookies")
	}
	for _, bad := range [][]string{{"--max-body-mb", "0"}, {"--log-level", "loud"}, {"extra"}, {"--secure-cookies", "maybe"}} {
		if _, err := parseConfig(bad, getenv, io.Discard); err == nil {
			t.Fatalf("%v accepted", bad)
		}
	}
	var help bytes.Buffer
	err = run(context.Background(), []string{"--help"}, getenv, &help, &help)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("--help: err = %v", err)
	}
	if strings.Contains(help.String(), "mk-from-env-SECRET") || strings.Contains(help.String(), "PASSWORD@") {
		t.Errorf("--help shows secrets from the environment:\n%s", help.String())
	}
	for _, v := range []string{"GATEWAY_PROXY_ADDR", "GATEWAY_ADMIN_ADDR", "GATEWAY_DATABASE_URL", "GATEWAY_DATA_DIR",
		"GATEWAY_MASTER_KEY", "GATEWAY_SECRET", "GATEWAY_ADMIN_PASSWORD", "GATEWAY_LOG_LEVEL", "GATEWAY_MAX_BODY_MB", "GATEWAY_REDIS_URL", "GATEWAY_SECURE_COOKIES"} {
		if !strings.Contains(help.String(), v) {
			t.Errorf("--help does not list %s", v)
		}
	}
}
