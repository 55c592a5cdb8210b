package upstreamerr_test

import (
	"net/http"
	"testing"
	"time"

	"gateway/proxy/upstreamerr"
)

func TestRead(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   upstreamerr.Kind
	}{
		{"openai code", 400, `{"error":{"message":"x","code":"context_length_exceeded"}}`, upstreamerr.ContextWindow},
		{"anthropic prompt too long", 400, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}`, upstreamerr.ContextWindow},
		{"bedrock-style plain text", 400, `Input is too long for the model.`, upstreamerr.ContextWindow},
		{"stream error without status", 0, `{"error":{"message":"This model's maximum context length is 8192 tokens"}}`, upstreamerr.ContextWindow},
		{"request too large is the caller's", 413, `{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}}`, upstreamerr.Caller},
		{"max_tokens alone is the caller's", 400, `{"error":{"message":"max_tokens is too large: 100000"}}`, upstreamerr.Caller},
		{"openai content policy", 400, `{"error":{"message":"blocked","code":"content_policy_violation"}}`, upstreamerr.ContentPolicy},
		{"azure content filter", 400, `{"error":{"message":"filtered","code":"content_filter"}}`, upstreamerr.ContentPolicy},
		{"anthropic content filtering", 400, `{"type":"error","error":{"type":"invalid_request_error","message":"Output blocked by content filtering policy"}}`, upstreamerr.ContentPolicy},
		{"rate limit", 429, `{"error":{"message":"slow down","code":"rate_limit_exceeded"}}`, upstreamerr.RateLimit},
		{"key refused", 401, `{"error":{"message":"Incorrect API key provided"}}`, upstreamerr.Auth},
		{"permission", 403, `<html>Forbidden</html>`, upstreamerr.Auth},
		{"status before words", 500, `{"error":{"message":"prompt is too long"}}`, upstreamerr.Upstream},
		{"overloaded", 529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, upstreamerr.Upstream},
		{"model not found", 404, `{"error":{"message":"no such model"}}`, upstreamerr.Upstream},
		{"garbage", 502, `<html><body>Bad Gateway</body></html>`, upstreamerr.Upstream},
		{"not an error status", 200, `{"error":{"code":"context_length_exceeded"}}`, upstreamerr.Upstream},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := upstreamerr.Read(tc.status, []byte(tc.body)).Kind; got != tc.want {
				t.Errorf("Read(%d, %s) = %s, want %s", tc.status, tc.body, got, tc.want)
			}
		})
	}
}

func TestReadFields(t *testing.T) {
	e := upstreamerr.Read(400, []byte(`{"error":{"message":"m","type":"t","param":"messages","code":42}}`))
	if e.Message != "m" || e.Type != "t" || e.Param != "messages" || e.Code != "42" || e.Anthropic {
		t.Errorf("OpenAI shape read as %+v", e)
	}
	e = upstreamerr.Read(400, []byte(`{"type":"error","error":{"type":"invalid_request_error","message":"m"}}`))
	if !e.Anthropic || e.Type != "invalid_request_error" || e.Message != "m" {
		t.Errorf("Anthropic shape read as %+v", e)
	}
	for body, want := range map[string]string{`{"error":"text"}`: "text", `{"detail":"d"}`: "d", "  plain \n": "plain", "": ""} {
		if got := upstreamerr.Read(500, []byte(body)).Message; got != want {
			t.Errorf("message of %q = %q, want %q", body, got, want)
		}
	}
}

func TestRetryHint(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		header http.Header
		want   time.Duration
	}{
		{"none", http.Header{}, 0},
		{"seconds, unbounded", http.Header{"Retry-After": {"309788"}}, 309788 * time.Second},
		{"http-date", http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second},
		{"date passed", http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{"milliseconds first", http.Header{"Retry-After-Ms": {"1500"}, "Retry-After": {"2"}}, 1500 * time.Millisecond},
		{"nonsense", http.Header{"Retry-After": {"soon"}, "Retry-After-Ms": {"-3"}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := upstreamerr.Classify(429, tc.header, nil, now).RetryAfter; got != tc.want {
				t.Errorf("retry-after %v, want %v", got, tc.want)
			}
		})
	}
	for kind, want := range map[upstreamerr.Kind]bool{upstreamerr.RateLimit: true, upstreamerr.Upstream: true,
		upstreamerr.ContextWindow: false, upstreamerr.ContentPolicy: false, upstreamerr.Auth: false, upstreamerr.Caller: false} {
		if got := (upstreamerr.Error{Kind: kind}).RetrySame(); got != want {
			t.Errorf("%s: RetrySame %v, want %v", kind, got, want)
		}
	}
}

func TestAnthropicType(t *testing.T) {
	for status, want := range map[int]string{400: "invalid_request_error", 401: "authentication_error", 402: "billing_error",
		403: "permission_error", 404: "not_found_error", 413: "request_too_large", 422: "invalid_request_error",
		429: "rate_limit_error", 500: "api_error", 502: "api_error", 503: "overloaded_error", 504: "timeout_error", 529: "overloaded_error"} {
		if got := upstreamerr.AnthropicType(status); got != want {
			t.Errorf("AnthropicType(%d) = %q, want %q", status, got, want)
		}
	}
}
