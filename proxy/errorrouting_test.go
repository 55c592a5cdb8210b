package proxy_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"gateway/models"
)

// routed is where a request went after its pool's only member answered
// with an error.
type routed struct {
	fallback string        // the pool that served it; "" when the caller got the error
	status   int           // what the caller got
	hits     int           // calls to the failing member
	cooldown time.Duration // how long the member is set aside; 0 for not at all
}

// Routings of an error of each kind from a single-member pool "p" whose
// fallbacks are "cw" (context window), "cp" (content policy) and "gen"
// (general).
var (
	toContextWindow = routed{fallback: "cw", status: 200, hits: 1}
	toContentPolicy = routed{fallback: "cp", status: 200, hits: 1}
	// A 5xx may pass: the member gets its retries (num_retries 2), which
	// stay within allowed_fails, so it is not set aside.
	toGeneralAfterRetries = routed{fallback: "gen", status: 200, hits: 3}
	// 401, 403 and 404 set the member aside for the default minute; the same
	// member is not asked again.
	toGeneralCooling = routed{fallback: "gen", status: 200, hits: 1, cooldown: time.Minute}
	toGeneral        = routed{fallback: "gen", status: 200, hits: 1}
)

func toCaller(status int) routed { return routed{status: status, hits: 1} }

func coolFor(d time.Duration) routed {
	return routed{fallback: "gen", status: 200, hits: 1, cooldown: d}
}

// TestUpstreamErrorsRouteAlikeTranslatedOrNot: every known wording of an
// upstream error, in OpenAI's shape, Anthropic's, other servers' or plain
// text, routes the same way (fallback taken, cooldown, calls to the member)
// whether the caller speaks the member's protocol, so that the error passes
// through, or the other one, so that it is translated: the one classifier
// reads the upstream's own bytes before they are reshaped.
func TestUpstreamErrorsRouteAlikeTranslatedOrNot(t *testing.T) {
	const (
		textPlain = "text/plain; charset=utf-8"
		textHTML  = "text/html"
	)
	for _, tc := range []struct {
		name     string
		upstream reply
		want     routed
	}{
		// Context window: OpenAI's code and the eight wordings.
		{"openai context_length_exceeded", reply{status: 400, body: `{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`}, toContextWindow},
		{"openai code alone", reply{status: 400, body: `{"error":{"message":"too long","type":"invalid_request_error","param":null,"code":"context_length_exceeded"}}`}, toContextWindow},
		{"anthropic prompt is too long", reply{status: 400, body: `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}`}, toContextWindow},
		{"code quoted in the message", reply{status: 400, body: `{"error":{"message":"Error code: 400 - context_length_exceeded","type":"BadRequestError"}}`}, toContextWindow},
		{"vllm maximum context length", reply{status: 400, body: `{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.","type":"BadRequestError","param":null,"code":400}`}, toContextWindow},
		{"context length exceeded", reply{status: 400, body: `{"error":{"message":"Context length exceeded: 40000 > 32768","type":"invalid_request_error"}}`}, toContextWindow},
		{"anthropic exceed context limit", reply{status: 400, body: `{"type":"error","error":{"type":"invalid_request_error","message":"input length and max_tokens exceed context limit: 198000 + 8192 > 200000, decrease input length or max_tokens and try again"}}`}, toContextWindow},
		{"gemini-style exceeds the context window", reply{status: 400, body: `{"error":{"code":400,"message":"The input token count (1200000) exceeds the context window of the model (1048576).","status":"INVALID_ARGUMENT"}}`}, toContextWindow},
		{"model_context_window_exceeded", reply{status: 400, body: `{"type":"error","error":{"type":"invalid_request_error","message":"model_context_window_exceeded"}}`}, toContextWindow},
		{"bedrock-style input is too long", reply{status: 400, body: `{"message":"Input is too long for the model."}`}, toContextWindow},
		{"plain text prompt is too long", reply{status: 400, contentType: textPlain, body: "prompt is too long: 300000 tokens > 200000 maximum\n"}, toContextWindow},

		// Content policy.
		{"openai content_policy_violation", reply{status: 400, body: `{"error":{"message":"Your request was rejected as a result of our safety system.","type":"invalid_request_error","param":null,"code":"content_policy_violation"}}`}, toContentPolicy},
		{"azure content_filter", reply{status: 400, body: `{"error":{"message":"The response was filtered due to the prompt triggering Azure OpenAI's content management policy.","type":null,"param":"prompt","code":"content_filter","status":400}}`}, toContentPolicy},
		{"type content_policy_violation", reply{status: 400, body: `{"error":{"message":"rejected","type":"content_policy_violation"}}`}, toContentPolicy},
		{"anthropic content filtering policy", reply{status: 400, body: `{"type":"error","error":{"type":"invalid_request_error","message":"Output blocked by content filtering policy"}}`}, toContentPolicy},
		{"plain text content management policy", reply{status: 400, contentType: textPlain, body: "The prompt triggered the content management policy."}, toContentPolicy},

		// Rate limits: set aside for as long as the upstream said.
		{"openai 429 retry-after", reply{status: 429, retryAfter: "30", body: `{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}`}, coolFor(30 * time.Second)},
		{"anthropic 429 retry-after", reply{status: 429, retryAfter: "20", body: `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`}, coolFor(20 * time.Second)},
		{"429 retry-after-ms", reply{status: 429, retryAfterMs: "1500", body: `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`}, coolFor(1500 * time.Millisecond)},
		{"429 plain text", reply{status: 429, retryAfter: "45", contentType: textPlain, body: "Too Many Requests"}, coolFor(45 * time.Second)},

		// The provider refused the gateway's key.
		{"openai 401", reply{status: 401, body: `{"error":{"message":"Incorrect API key provided: sk-abc***","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`}, toGeneralCooling},
		{"anthropic 403", reply{status: 403, body: `{"type":"error","error":{"type":"permission_error","message":"Your API key does not have permission to use the specified resource."}}`}, toGeneralCooling},
		{"403 html", reply{status: 403, contentType: textHTML, body: "<html><body><h1>403 Forbidden</h1></body></html>"}, toGeneralCooling},

		// The upstream failed.
		{"openai 500", reply{status: 500, body: `{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}`}, toGeneralAfterRetries},
		{"anthropic 529 overloaded", reply{status: 529, body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}, toGeneralAfterRetries},
		{"502 html from a load balancer", reply{status: 502, contentType: textHTML, body: "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>"}, toGeneralAfterRetries},
		{"503 plain text", reply{status: 503, contentType: textPlain, body: "upstream connect error or disconnect/reset before headers"}, toGeneralAfterRetries},
		{"500 saying prompt is too long", reply{status: 500, body: `{"error":{"message":"prompt is too long","type":"server_error"}}`}, toGeneralAfterRetries},
		{"404 model not found", reply{status: 404, body: `{"error":{"message":"The model does not exist","type":"invalid_request_error","param":null,"code":"model_not_found"}}`}, toGeneralCooling},

		// The caller's own mistakes: the same everywhere, so no fallback.
		{"openai invalid value", reply{status: 400, body: `{"error":{"message":"Invalid value for 'temperature'","type":"invalid_request_error","param":"temperature","code":"invalid_value"}}`}, toCaller(400)},
		{"anthropic max_tokens too large", reply{status: 400, body: `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens"}}`}, toCaller(400)},
		{"422 plain text", reply{status: 422, contentType: textPlain, body: "Unprocessable Entity"}, toCaller(422)},
	} {
		for _, call := range []struct {
			name      string
			anthropic bool // the member is anthropic-type
			path      string
		}{
			{"openai member, chat caller (pass-through)", false, "/v1/chat/completions"},
			{"openai member, messages caller (translated)", false, "/v1/messages"},
			{"anthropic member, messages caller (pass-through)", true, "/v1/messages"},
			{"anthropic member, chat caller (translated)", true, "/v1/chat/completions"},
		} {
			t.Run(tc.name+"/"+call.name, func(t *testing.T) {
				e, clock := newFallbackEnv(t, call.anthropic, nil, "m")
				e.script(map[string]reply{"m": tc.upstream})
				resp, body := e.postAs(call.path, requestFor(call.path, "p"))
				got := routed{fallback: resp.Header.Get("X-Gateway-Fallback"), status: resp.StatusCode, hits: e.hits("m")}
				if st := e.memberStatus("p", "m"); st.CoolingDown && st.CooldownUntil != nil {
					got.cooldown = st.CooldownUntil.Sub(clock.Now())
				}
				if got != tc.want {
					t.Fatalf("routed %+v, want %+v: %s", got, tc.want, body)
				}
			})
		}
	}
}

// TestFailuresThatCannotPassGoToFallbacksAtOnce: a prompt too long for a
// member, or its provider refusing the gateway's key, cannot change on a
// retry: a single-member pool sends the request to its fallbacks after one
// call and no backoff, even when the member never cools down; another
// member of a larger pool (with a larger window, another key) is still
// tried.
func TestFailuresThatCannotPassGoToFallbacksAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name, fallback string
		upstream       reply
	}{
		{"context window", "cw", reply{status: 400, body: `{"error":{"message":"Input is too long for the model.","type":"invalid_request_error"}}`}},
		{"key refused", "gen", reply{status: 401, body: `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`}},
	} {
		for _, call := range []struct{ name, path string }{
			{"pass-through", "/v1/chat/completions"},
			{"translated", "/v1/messages"},
		} {
			for _, cooldown := range []struct {
				name    string
				seconds *int
			}{{"default cooldown", nil}, {"no cooldown", ptr(0)}} {
				t.Run(tc.name+"/single member/"+call.name+"/"+cooldown.name, func(t *testing.T) {
					e, clock := newFallbackEnv(t, false, cooldown.seconds, "m")
					e.script(map[string]reply{"m": tc.upstream})
					resp, body := e.postAs(call.path, requestFor(call.path, "p"))
					wantStatus(t, resp, body, http.StatusOK)
					if got := resp.Header.Get("X-Gateway-Fallback"); got != tc.fallback || e.hits("m") != 1 || len(clock.Sleeps()) != 0 {
						t.Fatalf("fallback %q, member called %d times, sleeps %v: want %s, 1 and none",
							got, e.hits("m"), clock.Sleeps(), tc.fallback)
					}
					if got := resp.Header.Get("X-Gateway-Attempts"); got != "2" {
						t.Fatalf("attempts %s, want 2 (the member, then the fallback)", got)
					}
				})
			}
			t.Run(tc.name+"/two members/"+call.name, func(t *testing.T) {
				e, _ := newFallbackEnv(t, false, ptr(0), "failing", "other")
				e.script(map[string]reply{"failing": tc.upstream})
				for range 10 { // whichever member is picked first
					resp, body := e.postAs(call.path, requestFor(call.path, "p"))
					wantStatus(t, resp, body, http.StatusOK)
					if got := resp.Header.Get("X-Gateway-Upstream-Model"); got != "other" || resp.Header.Get("X-Gateway-Fallback") != "" {
						t.Fatalf("served by %q (fallback %q), want the pool's other member", got, resp.Header.Get("X-Gateway-Fallback"))
					}
				}
				if e.hits(tc.fallback) != 0 || e.hits("other") != 10 {
					t.Fatalf("calls: other %d, %s %d", e.hits("other"), tc.fallback, e.hits(tc.fallback))
				}
			})
		}
	}
}

// newFallbackEnv is a router env with pool "p" of the given members (on an
// anthropic-type provider if anthropic is set, else openai-type; with
// cooldownSeconds), and its three fallbacks: "cw", "cp" and "gen", each one
// healthy openai-type member of the same name.
func newFallbackEnv(t *testing.T, anthropic bool, cooldownSeconds *int, members ...string) (*env, *fakeClock) {
	t.Helper()
	e, clock := newRouterEnv(t)
	provider := e.providerID
	if anthropic {
		provider = e.addProvider("anthropic-main", models.APITypeAnthropic, e.up.URL)
	}
	for _, m := range members {
		e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: m, ProviderID: provider, CooldownSeconds: cooldownSeconds})
	}
	for kind, name := range map[string]string{models.FallbackContextWindow: "cw",
		models.FallbackContentPolicy: "cp", models.FallbackGeneral: "gen"} {
		e.addDeployment(models.Deployment{PublicName: name, UpstreamModel: name})
		e.setFallbacks("p", kind, name)
	}
	e.reload()
	return e, clock
}

// requestFor is a one-message request for model in the protocol of path.
func requestFor(path, model string) string {
	if strings.HasPrefix(path, "/v1/messages") {
		return fmt.Sprintf(`{"model":%q,"max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`, model)
	}
	return chatBody(model, false)
}

// TestFirstStreamErrorEventRoutesAlike: an Anthropic stream may answer 200
// and then an error as its first event, before anything reached the caller;
// the classifier reads it as it reads an error answer, so a refusal goes to
// the content-policy fallbacks at once and an overload gets the member's
// retries, passed through or translated.
func TestFirstStreamErrorEventRoutesAlike(t *testing.T) {
	event := func(typ, message string) reply {
		return reply{status: 200, contentType: "text/event-stream", body: fmt.Sprintf(
			"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":%q,\"message\":%q}}\n\n", typ, message)}
	}
	for _, tc := range []struct {
		name     string
		upstream reply
		want     routed
	}{
		{"content filtering", event("invalid_request_error", "Output blocked by content filtering policy"), toContentPolicy},
		{"prompt too long", event("invalid_request_error", "prompt is too long: 208310 tokens > 200000 maximum"), toContextWindow},
		{"overloaded", event("overloaded_error", "Overloaded"), toGeneralAfterRetries},
	} {
		for _, call := range []struct{ name, path, body string }{
			{"pass-through", "/v1/messages", messagesBody("p")},
			{"translated", "/v1/chat/completions", chatBody("p", true)},
		} {
			t.Run(tc.name+"/"+call.name, func(t *testing.T) {
				e, _ := newFallbackEnv(t, true, nil, "m")
				e.script(map[string]reply{"m": tc.upstream})
				resp, body := e.postAs(call.path, call.body)
				got := routed{fallback: resp.Header.Get("X-Gateway-Fallback"), status: resp.StatusCode, hits: e.hits("m")}
				if got != tc.want {
					t.Fatalf("routed %+v, want %+v: %s", got, tc.want, body)
				}
			})
		}
	}
}
