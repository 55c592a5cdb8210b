package proxy_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"gateway/models"
	"gateway/proxy"
)

// TestRequestErrors: every bad request gets a 4xx in OpenAI's shape, and none
// reaches the upstream.
func TestRequestErrors(t *testing.T) {
	e := newEnv(t, proxy.Options{MaxBodyBytes: 4 << 10})
	e.addDeployment(models.Deployment{PublicName: "gpt-test", UpstreamModel: "u"})
	e.addDeployment(models.Deployment{PublicName: "secret-model", UpstreamModel: "u"})
	limited := e.addKey("gpt-*")
	e.reload()
	big := `{"model":"gpt-test","messages":[{"role":"user","content":"` + strings.Repeat("x", 5<<10) + `"}]}`
	for _, tc := range []struct {
		name     string
		key      string
		body     string
		chunked  bool // no Content-Length: the limit must hold while reading
		want     int
		wantCode string
		wantMsg  string
	}{
		{name: "no key", body: chatBody("gpt-test", false), want: 401, wantCode: "missing_api_key"},
		{name: "wrong key", key: "sk-not-a-key", body: chatBody("gpt-test", false), want: 401, wantCode: "invalid_api_key"},
		{name: "bad JSON", body: `{"model":"gpt-test",`, want: 400, wantCode: "invalid_json"},
		{name: "empty body", body: ``, want: 400, wantCode: "invalid_json"},
		{name: "invalid UTF-8", body: "{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"user\",\"content\":\"\xff\xfe\"}]}", want: 400, wantCode: "invalid_encoding"},
		{name: "not an object", body: `["gpt-test"]`, want: 400, wantCode: "invalid_body"},
		{name: "missing model", body: `{"messages":[]}`, want: 400, wantCode: "missing_model"},
		{name: "empty model", body: `{"model":"","messages":[]}`, want: 400, wantCode: "missing_model"},
		{name: "model not a string", body: `{"model":42,"messages":[]}`, want: 400, wantCode: "invalid_type"},
		{name: "stream not a boolean", body: `{"model":"gpt-test","stream":"yes","messages":[]}`, want: 400, wantCode: "invalid_type"},
		{name: "messages not an array", body: `{"model":"gpt-test","messages":"hi"}`, want: 400, wantCode: "invalid_type"},
		{name: "missing messages", body: `{"model":"gpt-test"}`, want: 400, wantCode: "missing_messages"},
		{name: "duplicate model", body: `{"model":"gpt-test","model":"secret-model","messages":[]}`, want: 400, wantCode: "duplicate_field"},
		{name: "body too large", body: big, want: 413, wantCode: "request_too_large"},
		{name: "body too large, chunked", body: big, chunked: true, want: 413, wantCode: "request_too_large"},
		{name: "unknown model", body: chatBody("no-such-model", false), want: 404, wantCode: "model_not_found", wantMsg: "no healthy deployments for this model"},
		{name: "model outside the key's allow-list", key: limited, body: chatBody("secret-model", false), want: 403, wantCode: "model_not_allowed", wantMsg: "secret-model"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := tc.key
			if key == "" && tc.name != "no key" {
				key = e.key
			}
			var body io.Reader = strings.NewReader(tc.body)
			if tc.chunked {
				body = io.MultiReader(body) // hides the length from net/http
			}
			resp, got := e.post("/v1/chat/completions", key, body)
			if resp.StatusCode != tc.want {
				t.Fatalf("status: got %d, want %d: %s", resp.StatusCode, tc.want, got)
			}
			apiErr := decodeError(t, got)
			if apiErr.Error.Code != tc.wantCode {
				t.Errorf("code: got %q, want %q", apiErr.Error.Code, tc.wantCode)
			}
			mustContain(t, "message", apiErr.Error.Message, tc.wantMsg)
			if resp.Header.Get("X-Request-Id") == "" {
				t.Error("no x-request-id")
			}
		})
	}
	if n := e.up.count(); n != 0 {
		t.Errorf("the upstream received %d bad requests", n)
	}
}

func TestTooManyMessages(t *testing.T) {
	e := newEnv(t, proxy.Options{})
	e.addDeployment(models.Deployment{PublicName: "gpt-test", UpstreamModel: "u"})
	e.reload()
	body := `{"model":"gpt-test","messages":[` + strings.Repeat(`{},`, 100_000) + `{}]}`
	resp, got := e.post("/v1/chat/completions", e.key, strings.NewReader(body))
	if resp.StatusCode != http.StatusBadRequest || decodeError(t, got).Error.Code != "too_many_messages" {
		t.Fatalf("got %d: %s", resp.StatusCode, got)
	}
}

// TestSDKReadsAuthErrors: the SDK parses the gateway's errors as *openai.Error
// with the status, as a real user's tool would.
func TestSDKReadsAuthErrors(t *testing.T) {
	e := newEnv(t, proxy.Options{})
	e.addDeployment(models.Deployment{PublicName: "gpt-test", UpstreamModel: "u"})
	e.addDeployment(models.Deployment{PublicName: "other", UpstreamModel: "u"})
	revoked, expired, limited := e.addKey(), e.addKey(), e.addKey("gpt-test")
	setKey(t, e, revoked, func(k *models.VirtualKey) { k.RevokedAt = ptr(time.Now()) })
	setKey(t, e, expired, func(k *models.VirtualKey) { k.ExpiresAt = ptr(time.Now().Add(-time.Minute)) })
	e.reload()
	for _, tc := range []struct {
		name, key, model string
		want             int
		wantMsg          string
	}{
		{"wrong key", "sk-wrong", "gpt-test", 401, "invalid API key"},
		{"revoked key", revoked, "gpt-test", 401, "revoked"},
		{"expired key", expired, "gpt-test", 401, "expired"},
		{"model not allowed", limited, "other", 403, `"other"`},
		{"unknown model", e.key, "nope", 404, "no healthy deployments for this model"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.client(option.WithAPIKey(tc.key)).Chat.Completions.New(context.Background(), userMessage(tc.model))
			var apiErr *openai.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("got %v, want *openai.Error", err)
			}
			if apiErr.StatusCode != tc.want {
				t.Errorf("status: got %d, want %d", apiErr.StatusCode, tc.want)
			}
			mustContain(t, "message", apiErr.Message, tc.wantMsg)
		})
	}
	t.Run("no key", func(t *testing.T) {
		dropAuth := option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			r.Header.Del("Authorization")
			return next(r)
		})
		_, err := e.client(dropAuth).Chat.Completions.New(context.Background(), userMessage("gpt-test"))
		var apiErr *openai.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 401 {
			t.Fatalf("got %v, want a 401 *openai.Error", err)
		}
	})
}

func setKey(t *testing.T, e *env, secret string, apply func(*models.VirtualKey)) {
	t.Helper()
	keys, err := e.store.ListKeys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if k.KeyHash == models.HashKey(secret) {
			if _, err := e.store.UpdateKey(context.Background(), k.ID, func(k *models.VirtualKey) error { apply(k); return nil }); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatal("key not found")
}

func TestUpstreamErrorRelayed(t *testing.T) {
	e := newEnv(t, proxy.Options{})
	e.addDeployment(models.Deployment{PublicName: "gpt-test", UpstreamModel: "u"})
	e.reload()
	e.up.setRespond(func(w http.ResponseWriter, r *http.Request, _ upstreamRequest) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"error":{"message":"upstream exploded","type":"server_error","param":null,"code":null}}`)
	})
	var resp *http.Response
	_, err := e.client().Chat.Completions.New(context.Background(), userMessage("gpt-test"), option.WithResponseInto(&resp))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("got %v, want *openai.Error", err)
	}
	if apiErr.StatusCode != 500 || apiErr.Message != "upstream exploded" {
		t.Errorf("got %d %q, want the upstream's 500 and message", apiErr.StatusCode, apiErr.Message)
	}
	if apiErr.Response.Header.Get("X-Gateway-Provider") != "openai-main" {
		t.Errorf("no gateway headers on a relayed error: %v", apiErr.Response.Header)
	}
	row := e.waitLogs(1)[0]
	if row.Status != 500 || !strings.Contains(row.Error, "upstream exploded") {
		t.Errorf("log row: status %d, error %q", row.Status, row.Error)
	}
	mustContain(t, "error line", e.logs.String(), row.RequestID)
}

// TestDeadUpstream: an upstream that refuses connections is a 502 naming the
// provider, with its key nowhere in the answer.
func TestDeadUpstream(t *testing.T) {
	e := newEnv(t, proxy.Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	pid := e.addProvider("dead-provider", models.APITypeOpenAI, dead)
	// No cooldown: the stream request must meet the dead upstream too.
	e.addDeployment(models.Deployment{PublicName: "gpt-dead", UpstreamModel: "u", ProviderID: pid, CooldownSeconds: ptr(0)})
	e.reload()
	for _, stream := range []bool{false, true} {
		resp, body := e.post("/v1/chat/completions", e.key, strings.NewReader(chatBody("gpt-dead", stream)))
		if resp.StatusCode != http.StatusBadGateway {
			t.Fatalf("stream %v: status %d, want 502: %s", stream, resp.StatusCode, body)
		}
		got := decodeError(t, body)
		mustContain(t, "message", got.Error.Message, "dead-provider")
		if strings.Contains(string(body), upstreamKey) || strings.Contains(strings.Join(flatten(resp.Header), " "), upstreamKey) {
			t.Errorf("the provider key leaked into the answer: %s", body)
		}
	}
	if strings.Contains(e.logs.String(), upstreamKey) {
		t.Error("the provider key leaked into the log")
	}
}

func flatten(h http.Header) []string {
	var out []string
	for k, vs := range h {
		out = append(out, k+": "+strings.Join(vs, ","))
	}
	return out
}

func TestUpstreamTimeout(t *testing.T) {
	e := newEnv(t, proxy.Options{})
	e.addDeployment(models.Deployment{PublicName: "slow", UpstreamModel: "u", TimeoutSeconds: ptr(1), CooldownSeconds: ptr(0)})
	if err := e.store.PutPoolSetting(context.Background(), &models.PoolSetting{PublicName: "slow", NumRetries: ptr(0)}); err != nil {
		t.Fatal(err)
	}
	e.reload()
	e.up.setRespond(func(w http.ResponseWriter, r *http.Request, req upstreamRequest) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	for _, stream := range []bool{false, true} {
		start := time.Now()
		resp, body := e.post("/v1/chat/completions", e.key, strings.NewReader(chatBody("slow", stream)))
		if resp.StatusCode != http.StatusGatewayTimeout {
			t.Fatalf("stream %v: status %d, want 504: %s", stream, resp.StatusCode, body)
		}
		if elapsed := time.Since(start); elapsed > 8*time.Second {
			t.Errorf("stream %v: the timeout of 1 s took %s", stream, elapsed)
		}
		mustContain(t, "message", decodeError(t, body).Error.Message, "openai-main")
	}
}
