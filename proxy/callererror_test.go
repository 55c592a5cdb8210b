package proxy_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"gateway/models"
	"gateway/proxy"
)

// Requests the translators refuse on their way to an openai-type member
// without the Responses API: the caller's own errors.
const (
	untranslatableItemBody = `{"model":%q,"store":false,"input":[{"role":"user","content":"hi"},` +
		`{"type":"local_shell_call","call_id":"c1","action":{"type":"exec","command":["ls"]}},{"role":"user","content":"and now?"}]}`
	untranslatableBlockBody = `{"model":%q,"max_tokens":16,"messages":[{"role":"user",` +
		`"content":[{"type":"container_upload","file_id":"file_1"}]}]}`
)

// TestTranslationRefusalIsTheCallersError: a request the translator refuses
// is answered at once with 400 in the caller's shape, after one attempt, no
// backoff and no call upstream; the member is not charged for it (no
// statistics, no cooldown, however often it comes) and serves the next
// request.
func TestTranslationRefusalIsTheCallersError(t *testing.T) {
	for _, tc := range []struct {
		name, path, body, wantMessage string
		anthropic                     bool // the caller speaks Messages
	}{
		{"responses item", "/v1/responses", untranslatableItemBody, `input item type "local_shell_call" cannot be translated`, false},
		{"responses item stream", "/v1/responses", strings.Replace(untranslatableItemBody, `"store":false`, `"store":false,"stream":true`, 1),
			`input item type "local_shell_call" cannot be translated`, false},
		{"messages block", "/v1/messages", untranslatableBlockBody, `content block type "container_upload"`, true},
	} {
		for _, members := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s %d members", tc.name, members), func(t *testing.T) {
				e, clock := newRouterEnv(t)
				var ids []int64
				for i := range members {
					ids = append(ids, e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: fmt.Sprint("m", i)}))
				}
				e.reload()
				for range 5 { // more than allowed_fails
					resp, body := e.postAs(tc.path, fmt.Sprintf(tc.body, "p"))
					wantStatus(t, resp, body, http.StatusBadRequest)
					if got := resp.Header.Get("X-Gateway-Attempts"); got != "1" {
						t.Fatalf("attempts %q, want 1", got)
					}
					mustContain(t, "message", callerErrorMessage(t, body, tc.anthropic), tc.wantMessage)
				}
				if n := e.up.count(); n != 0 {
					t.Fatalf("the upstream was called %d times", n)
				}
				if sleeps := clock.Sleeps(); len(sleeps) != 0 {
					t.Fatalf("backed off %v before answering a caller's error", sleeps)
				}
				wantUncharged(t, e, ids)

				resp, body := e.chat("p")
				wantStatus(t, resp, body, http.StatusOK)
				if got := resp.Header.Get("X-Gateway-Attempts"); got != "1" {
					t.Fatalf("the next request took %s attempts", got)
				}
			})
		}
	}
}

// TestTranslationRefusalLeavesNativeMembers: in a pool that mixes protocols,
// a member that speaks the caller's protocol can take what another's
// translator refused, without delay; the refusing member is not charged.
func TestTranslationRefusalLeavesNativeMembers(t *testing.T) {
	e, clock := newRouterEnv(t)
	native := e.addResponsesProvider()
	translated := e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: "chat-only", Weight: ptr(1.0)})
	e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: "native", ProviderID: native, Weight: ptr(0.0)})
	e.reload()
	e.up.setRespond(fakeResponsesAPI)

	resp, body := e.postAs("/v1/responses", fmt.Sprintf(untranslatableItemBody, "p"))
	wantStatus(t, resp, body, http.StatusOK)
	if got := resp.Header.Get("X-Gateway-Upstream-Model"); got != "native" {
		t.Fatalf("served by %q, want the native member", got)
	}
	if got := resp.Header.Get("X-Gateway-Attempts"); got != "2" {
		t.Fatalf("attempts %q, want 2 (refused by the translator, then the native member)", got)
	}
	if e.hits("chat-only") != 0 || e.hits("native") != 1 || len(clock.Sleeps()) != 0 {
		t.Fatalf("calls: chat-only %d, native %d; sleeps %v", e.hits("chat-only"), e.hits("native"), clock.Sleeps())
	}
	wantUncharged(t, e, []int64{translated})
}

// TestNoBackoffWhenWaitingCannotHelp: an upstream's "prompt too long" or
// its refusal of the gateway's credentials goes to another member or to the
// fallbacks, never back to the same member after a backoff: it would only
// answer the same.
func TestNoBackoffWhenWaitingCannotHelp(t *testing.T) {
	for _, tc := range []struct {
		name       string
		upstream   reply
		wantStatus int
		wantCode   string
	}{
		{"context window", reply{status: 400, body: `{"error":{"message":"This model's maximum context length is 8192 tokens","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`},
			http.StatusBadRequest, "context_length_exceeded"},
		{"provider key refused", reply{status: 403}, http.StatusBadGateway, "provider_auth_failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, clock := newRouterEnv(t)
			e.addDeployment(models.Deployment{PublicName: "solo", UpstreamModel: "s"})
			e.reload()
			e.script(map[string]reply{"s": tc.upstream})
			resp, body := e.chat("solo")
			wantStatus(t, resp, body, tc.wantStatus)
			if got := resp.Header.Get("X-Gateway-Attempts"); got != "1" || e.hits("s") != 1 || len(clock.Sleeps()) != 0 {
				t.Fatalf("attempts %s, %d calls, sleeps %v: want 1, 1 and none", got, e.hits("s"), clock.Sleeps())
			}
			if got := decodeError(t, body).Error.Code; got != tc.wantCode {
				t.Fatalf("code %q, want %q: %s", got, tc.wantCode, body)
			}
		})
	}
}

// postAs sends body to path with the env's key, as an Anthropic client
// would (x-api-key and anthropic-version) on /v1/messages.
func (e *env) postAs(path, body string) (*http.Response, []byte) {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.gw.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if strings.HasPrefix(path, "/v1/messages") {
		req.Header.Set("X-Api-Key", e.key)
		req.Header.Set("Anthropic-Version", "2023-06-01")
	} else {
		req.Header.Set("Authorization", "Bearer "+e.key)
	}
	return e.do(req)
}

// callerErrorMessage checks that body is in the caller's error shape,
// Anthropic's or OpenAI's, and returns its message.
func callerErrorMessage(t *testing.T, body []byte, anthropic bool) string {
	t.Helper()
	if !anthropic {
		e := decodeError(t, body)
		if e.Error.Type != "invalid_request_error" {
			t.Fatalf("error type %q, want invalid_request_error: %s", e.Error.Type, body)
		}
		return e.Error.Message
	}
	var e struct {
		Type  string `json:"type"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Type != "error" || e.Error.Type != "invalid_request_error" {
		t.Fatalf("not Anthropic's invalid_request_error shape (%v): %s", err, body)
	}
	return e.Error.Message
}

// wantUncharged fails unless the members have no attempt on their record
// and are not cooling down.
func wantUncharged(t *testing.T, e *env, ids []int64) {
	t.Helper()
	stats := map[int64]proxy.DeploymentStats{}
	for _, s := range e.proxy.Stats() {
		stats[s.ID] = s
	}
	st, _ := e.proxy.PoolStatus("p", nil)
	ms := st.Members
	cooling := map[int64]bool{}
	for _, m := range ms {
		cooling[m.ID] = m.CoolingDown
	}
	for _, id := range ids {
		if s := stats[id]; s.Requests != 0 || s.LastError != "" || s.LastErrorAt != nil {
			t.Errorf("member %d charged with the caller's error: %+v", id, s)
		}
		if cooling[id] {
			t.Errorf("member %d cooling down after the caller's error", id)
		}
	}
}
