package translate

import (
	"strings"
	"testing"

	"gateway/proxy/upstreamerr"
)

// TestGeminiErrorBodies: Google's error bodies, classified by the one
// classifier and reshaped for each caller.
func TestGeminiErrorBodies(t *testing.T) {
	for _, tc := range []struct {
		name       string
		status     int
		body       string
		kind       upstreamerr.Kind
		toChat     string // fragments of the reshaped bodies
		toMessages string
	}{
		{"quota", 429, `{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED",` +
			`"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"12s"}]}}`, upstreamerr.RateLimit,
			`{"error":{"message":"Resource has been exhausted (e.g. check quota).","type":"rate_limit_error","param":null,"code":"rate_limit_exceeded"}}`,
			`{"type":"error","error":{"type":"rate_limit_error","message":"Resource has been exhausted (e.g. check quota)."}}`},
		{"prompt too long", 400, `{"error":{"code":400,"message":"The input token count (1200400) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}`,
			upstreamerr.ContextWindow, `"code":"context_length_exceeded"`,
			`{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: The input token count (1200400) exceeds the maximum number of tokens allowed (1048576)."}}`},
		{"invalid key", 400, `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT",` +
			`"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}`,
			upstreamerr.Auth, `"message":"API key not valid. Please pass a valid API key."`, `"type":"invalid_request_error"`},
		{"overloaded", 503, `{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`,
			upstreamerr.Upstream, `"type":"server_error","param":null,"code":"overloaded"`, `"type":"overloaded_error"`},
		{"vertex's list", 429, `[{"error":{"code":429,"message":"Resource exhausted. Please try again later.","status":"RESOURCE_EXHAUSTED"}}]`,
			upstreamerr.RateLimit, `"message":"Resource exhausted. Please try again later.","type":"rate_limit_error"`, `"type":"rate_limit_error"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte(tc.body)
			if got := upstreamerr.Read(tc.status, body).Kind; got != tc.kind {
				t.Errorf("kind %s, want %s", got, tc.kind)
			}
			if got := string(Error(Chat, tc.status, body)); !strings.Contains(got, tc.toChat) {
				t.Errorf("to chat: %s\nwant it to hold %s", got, tc.toChat)
			}
			if got := string(Error(Responses, tc.status, body)); !strings.Contains(got, tc.toChat) {
				t.Errorf("to responses: %s\nwant it to hold %s", got, tc.toChat)
			}
			if got := string(Error(Messages, tc.status, body)); !strings.Contains(got, tc.toMessages) {
				t.Errorf("to messages: %s\nwant it to hold %s", got, tc.toMessages)
			}
		})
	}
}

// TestGeminiStreamErrors: an error chunk ends each caller's stream with the
// caller's error of the same meaning.
func TestGeminiStreamErrors(t *testing.T) {
	for _, tc := range []struct {
		name, chunk                    string
		kind                           upstreamerr.Kind
		chat, messages, responses, typ string
	}{
		{"quota", `{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED"}}`, upstreamerr.RateLimit,
			`"type":"rate_limit_error","param":null,"code":"rate_limit_exceeded"`, `"type":"rate_limit_error"`, `"code":"rate_limit_exceeded"`, "RESOURCE_EXHAUSTED"},
		{"too long", `{"error":{"code":400,"message":"The input token count (2000000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}`,
			upstreamerr.ContextWindow, `"code":"context_length_exceeded"`, `"message":"prompt is too long: The input token count`, `"code":"context_length_exceeded"`, "INVALID_ARGUMENT"},
		{"internal", `{"error":{"code":500,"message":"An internal error has occurred.","status":"INTERNAL"}}`, upstreamerr.Upstream,
			`"type":"server_error"`, `"type":"api_error"`, `"code":"server_error"`, "INTERNAL"},
		{"overloaded", `{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}`, upstreamerr.Upstream,
			`"type":"server_error","param":null,"code":"overloaded"`, `"type":"overloaded_error"`, `"code":"server_error"`, "UNAVAILABLE"},
		{"denied", `{"error":{"code":403,"message":"Permission denied.","status":"PERMISSION_DENIED"}}`, upstreamerr.Auth,
			`"type":"permission_error"`, `"type":"permission_error"`, `"code":"server_error"`, "PERMISSION_DENIED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for protocol, c := range map[string]struct {
				s    *Stream
				want string
			}{"chat": {mustStream(Gemini, Chat, Options{IncludeUsage: true}), tc.chat}, "messages": {mustStream(Gemini, Messages, Options{InputEstimate: 5}), tc.messages},
				"responses": {mustStream(Gemini, Responses, Options{}), tc.responses}} {
				out, err := c.s.Event("", []byte(tc.chunk))
				se, ok := err.(*StreamError)
				switch {
				case !ok || se.Type != tc.typ:
					t.Errorf("%s: error %v, want a StreamError of type %s", protocol, err, tc.typ)
				case !strings.Contains(lastEvent(out), c.want):
					t.Errorf("%s: %s\nwant it to hold %s", protocol, out, c.want)
				}
				if more, _ := c.s.Event("", []byte(`{"candidates":[{"content":{"parts":[{"text":"x"}]}}]}`)); more != nil {
					t.Errorf("%s: events after the error: %s", protocol, more)
				}
			}
			if f := geminiStreamFailure([]byte(tc.chunk[len(`{"error":`) : len(tc.chunk)-1])); f.failure.detail.Kind != tc.kind {
				t.Errorf("kind %s, want %s", f.failure.detail.Kind, tc.kind)
			}
		})
	}
}
