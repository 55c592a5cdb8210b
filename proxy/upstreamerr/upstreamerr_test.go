package upstreamerr_test

import (
	"net/http"
	"strings"
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
		{"gemini quota", 429, geminiQuota, upstreamerr.RateLimit},
		{"gemini quota in a stream", 0, geminiQuota, upstreamerr.RateLimit},
		{"gemini invalid key", 400, geminiBadKey, upstreamerr.Auth},
		{"gemini invalid key by its words", 400, `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}`, upstreamerr.Auth},
		{"gemini permission denied", 403, `{"error":{"code":403,"message":"Method doesn't allow unregistered callers.","status":"PERMISSION_DENIED"}}`, upstreamerr.Auth},
		{"gemini permission denied in a stream", 0, `{"error":{"code":403,"message":"Permission denied on resource project p.","status":"PERMISSION_DENIED"}}`, upstreamerr.Auth},
		{"gemini prompt too long", 400, `{"error":{"code":400,"message":"The input token count (1200400) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}`, upstreamerr.ContextWindow},
		{"gemini invalid argument", 400, `{"error":{"code":400,"message":"* GenerateContentRequest.contents: contents is not specified\n","status":"INVALID_ARGUMENT"}}`, upstreamerr.Caller},
		{"gemini overloaded", 503, `{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`, upstreamerr.Upstream},
		{"vertex error as an array", 429, `[{"error":{"code":429,"message":"Resource exhausted. Please try again later.","status":"RESOURCE_EXHAUSTED"}}]`, upstreamerr.RateLimit},
		{"vertex prompt too long as an array", 400, `[{"error":{"code":400,"message":"The input token count exceeds the maximum number of tokens allowed 1048576.","status":"INVALID_ARGUMENT"}}]`, upstreamerr.ContextWindow},
		{"a status that is not google's is not read", 400, `{"error":{"message":"bad","status":"RESOURCE_EXHAUSTED_ISH"}}`, upstreamerr.Caller},
		{"a numeric status is not read", 400, `{"error":{"message":"x","status":400,"code":"context_length_exceeded"}}`, upstreamerr.ContextWindow},
		{"bedrock input too long", 400, `{"message":"Input is too long for requested model."}`, upstreamerr.ContextWindow},
		{"bedrock too many input tokens", 400, `{"message":"Too many input tokens. Max input tokens: 8192, request input token count: 9120"}`, upstreamerr.ContextWindow},
		{"bedrock claude prompt too long", 400, `{"message":"The model returned the following errors: prompt is too long: 200049 tokens > 200000 maximum"}`, upstreamerr.ContextWindow},
		{"bedrock validation", 400, `{"message":"1 validation error detected: Value '' at 'messages.1.member.content' failed to satisfy constraint"}`, upstreamerr.Caller},
		{"aws __type in the body", 400, `{"__type":"com.amazon.coral.service#ServiceQuotaExceededException","message":"Too many tokens per day"}`, upstreamerr.RateLimit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := upstreamerr.Read(tc.status, []byte(tc.body)).Kind; got != tc.want {
				t.Errorf("Read(%d, %s) = %s, want %s", tc.status, tc.body, got, tc.want)
			}
		})
	}
}

// Google's error bodies, as the Gemini API sends them.
const (
	geminiQuota = `{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED","details":[` +
		`{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}]},` +
		`{"@type":"type.googleapis.com/google.rpc.Help","links":[{"description":"Learn more about Gemini API quotas","url":"https://ai.google.dev/gemini-api/docs/rate-limits"}]},` +
		`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"30s"}]}}`
	geminiBadKey = `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[` +
		`{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com","metadata":{"service":"generativelanguage.googleapis.com"}},` +
		`{"@type":"type.googleapis.com/google.rpc.LocalizedMessage","locale":"en-US","message":"API key not valid. Please pass a valid API key."}]}}`
)

func TestReadGoogle(t *testing.T) {
	e := upstreamerr.Read(429, []byte(geminiQuota))
	if e.Type != "RESOURCE_EXHAUSTED" || e.Code != "429" || e.Anthropic || e.RetryAfter != 30*time.Second ||
		e.Message != "You exceeded your current quota, please check your plan and billing details." {
		t.Errorf("Google's shape read as %+v", e)
	}
	if e := upstreamerr.Read(400, []byte(`{"error":{"type":"invalid_request_error","message":"m","status":"INVALID_ARGUMENT"}}`)); e.Type != "invalid_request_error" {
		t.Errorf("a type of its own gave way to Google's status: %+v", e)
	}
	if e := upstreamerr.Read(429, []byte(`{"error":{"code":429,"message":"m","status":"RESOURCE_EXHAUSTED","details":"not a list"}}`)); e.Kind != upstreamerr.RateLimit || e.RetryAfter != 0 {
		t.Errorf("unreadable details: %+v", e)
	}
}

// TestGoogleRetryDelay: RetryInfo's retryDelay is the retry hint when no
// header gives one; a header wins.
func TestGoogleRetryDelay(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	withDelay := func(delay string) []byte {
		return []byte(`{"error":{"code":429,"message":"m","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"` + delay + `"}]}}`)
	}
	for _, tc := range []struct {
		name   string
		header http.Header
		body   []byte
		want   time.Duration
	}{
		{"retry delay", http.Header{}, []byte(geminiQuota), 30 * time.Second},
		{"fractional", http.Header{}, withDelay("1.5s"), 1500 * time.Millisecond},
		{"header wins", http.Header{"Retry-After": {"7"}}, []byte(geminiQuota), 7 * time.Second},
		{"useless header", http.Header{"Retry-After": {"soon"}}, []byte(geminiQuota), 30 * time.Second},
		{"nonsense delay", http.Header{}, withDelay("soon"), 0},
		{"negative delay", http.Header{}, withDelay("-3s"), 0},
		{"not google's", http.Header{}, []byte(`{"error":{"message":"m","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"30s"}]}}`), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := upstreamerr.Classify(429, tc.header, tc.body, now).RetryAfter; got != tc.want {
				t.Errorf("retry-after %v, want %v", got, tc.want)
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

// TestClassifyAWS: Bedrock's body is {"message"} and its type is in
// x-amzn-ErrorType; the type decides the kind, the default cooldown applies
// to throttling (no retry hint), and other providers' bodies are read as
// before even beside the header.
func TestClassifyAWS(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	const coral = ":http://internal.amazon.com/coral/com.amazon.bedrock/"
	for _, tc := range []struct {
		name     string
		status   int
		errType  string // x-amzn-ErrorType
		body     string
		want     upstreamerr.Kind
		wantType string
	}{
		{"throttling", 429, "ThrottlingException" + coral, `{"message":"Too many requests, please wait before trying again."}`, upstreamerr.RateLimit, "ThrottlingException"},
		{"quota is a rate limit though 400", 400, "ServiceQuotaExceededException" + coral, `{"message":"Too many tokens per day, please wait before trying again."}`, upstreamerr.RateLimit, "ServiceQuotaExceededException"},
		{"input too long", 400, "ValidationException" + coral, `{"message":"Input is too long for requested model."}`, upstreamerr.ContextWindow, "ValidationException"},
		{"too many input tokens", 400, "ValidationException" + coral, `{"message":"too many input tokens"}`, upstreamerr.ContextWindow, "ValidationException"},
		{"claude's own words", 400, "ValidationException" + coral, `{"message":"The model returned the following errors: prompt is too long: 215000 tokens > 200000 maximum"}`, upstreamerr.ContextWindow, "ValidationException"},
		{"validation", 400, "ValidationException" + coral, `{"message":"The model returned the following errors: messages: roles must alternate"}`, upstreamerr.Caller, "ValidationException"},
		{"access denied", 403, "AccessDeniedException" + coral, `{"message":"You don't have access to the model with the specified model ID."}`, upstreamerr.Auth, "AccessDeniedException"},
		{"bad key", 403, "UnrecognizedClientException" + coral, `{"message":"The security token included in the request is invalid."}`, upstreamerr.Auth, "UnrecognizedClientException"},
		{"expired token", 403, "ExpiredTokenException" + coral, `{"message":"The security token included in the request is expired"}`, upstreamerr.Auth, "ExpiredTokenException"},
		{"model not ready is no rate limit though 429", 429, "ModelNotReadyException" + coral, `{"message":"Model is not ready for inference. Wait and try your request again."}`, upstreamerr.Upstream, "ModelNotReadyException"},
		{"unavailable", 503, "ServiceUnavailableException" + coral, `{"message":"Bedrock is unable to process your request."}`, upstreamerr.Upstream, "ServiceUnavailableException"},
		{"internal", 500, "InternalServerException" + coral, `{"message":"The server encountered an internal error while processing the request."}`, upstreamerr.Upstream, "InternalServerException"},
		{"model error is the upstream's though 424", 424, "ModelErrorException" + coral, `{"message":"The model failed to process the request."}`, upstreamerr.Upstream, "ModelErrorException"},
		{"bare type", 429, "ThrottlingException", `{"message":"slow down"}`, upstreamerr.RateLimit, "ThrottlingException"},
		{"unknown type keeps the status's kind", 400, "SomeNewException" + coral, `{"message":"x"}`, upstreamerr.Caller, "SomeNewException"},
		{"no header", 429, "", `{"message":"Too many requests"}`, upstreamerr.RateLimit, ""},
		{"a body's own type wins", 400, "ThrottlingException", `{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}`, upstreamerr.Caller, "invalid_request_error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.errType != "" {
				h.Set("x-amzn-ErrorType", tc.errType)
			}
			got := upstreamerr.Classify(tc.status, h, []byte(tc.body), now)
			if got.Kind != tc.want || got.Type != tc.wantType {
				t.Errorf("Classify = kind %s type %q, want %s %q", got.Kind, got.Type, tc.want, tc.wantType)
			}
			if got.RetryAfter != 0 {
				t.Errorf("retry-after %v from a body without a hint", got.RetryAfter)
			}
			if want := strings.TrimSuffix(strings.TrimPrefix(tc.body, `{"message":"`), `"}`); !strings.HasPrefix(tc.body, `{"type"`) && got.Message != want {
				t.Errorf("message %q, want %q", got.Message, want)
			}
		})
	}
}

// TestAWSEvent: the exception events of a ConverseStream, by their
// event-type.
func TestAWSEvent(t *testing.T) {
	for _, tc := range []struct {
		eventType, message string
		want               upstreamerr.Kind
		wantType           string
	}{
		{"throttlingException", "Too many requests, please wait before trying again.", upstreamerr.RateLimit, "ThrottlingException"},
		{"validationException", "Input is too long for requested model.", upstreamerr.ContextWindow, "ValidationException"},
		{"validationException", "The model returned the following errors: bad input", upstreamerr.Caller, "ValidationException"},
		{"modelStreamErrorException", "The model stream failed.", upstreamerr.Upstream, "ModelStreamErrorException"},
		{"internalServerException", "An internal error occurred.", upstreamerr.Upstream, "InternalServerException"},
		{"serviceUnavailableException", "Service unavailable.", upstreamerr.Upstream, "ServiceUnavailableException"},
		{"someFutureException", "prompt is too long", upstreamerr.ContextWindow, "SomeFutureException"},
		{"someFutureException", "?", upstreamerr.Upstream, "SomeFutureException"},
	} {
		got := upstreamerr.AWSEvent(tc.eventType, tc.message)
		if got.Kind != tc.want || got.Type != tc.wantType || got.Message != tc.message || got.Status != 0 {
			t.Errorf("AWSEvent(%q, %q) = %+v, want kind %s type %s", tc.eventType, tc.message, got, tc.want, tc.wantType)
		}
	}
}
