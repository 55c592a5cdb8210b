package handlers_test

import (
	"fmt"
	"gateway/models"
	"gateway/models/dbtest"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// bindings decodes {"bindings":[…]} into model name → binding.
func bindings(t *testing.T, rec *httptest.ResponseRecorder) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, b := range decodeJSON[map[string][]map[string]any](t, rec)["bindings"] {
		out[b["model_name"].(string)] = b
	}
	return out
}

// wantBindings checks which models are bound to which deployments.
func wantBindings(want map[string]int64) func(t *testing.T, rec *httptest.ResponseRecorder) {
	return func(t *testing.T, rec *httptest.ResponseRecorder) {
		t.Helper()
		got := bindings(t, rec)
		if len(got) != len(want) {
			t.Errorf("bindings %s, want %v", rec.Body, want)
		}
		for model, id := range want {
			if b := got[model]; b == nil || b["deployment_id"] != float64(id) {
				t.Errorf("binding of %s = %v, want deployment %d", model, b, id)
			}
		}
	}
}

func TestAPISticky(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		e := newRuntimeEnv(t, s)
		a := e.entry(t, "gpt-4o", "ok-a", nil, true)
		b := e.entry(t, "gpt-4o", "ok-b", nil, true)
		off := e.entry(t, "gpt-4o", "ok-off", nil, false)
		other := e.entry(t, "other", "ok-o", nil, true)
		wild := e.entry(t, "openai/*", "*", nil, true)
		e.reload(t)
		pin := func(model string, id int64, ttl string) string {
			return fmt.Sprintf(`{"model_name":%q,"deployment_id":%d%s}`, model, id, ttl)
		}
		runSteps(t, e.testApp, []apiStep{
			{name: "none yet", method: "GET", path: "/api/sticky", status: 200, want: map[string]any{"bindings": []any{}}},
			{name: "pin with a TTL", method: "POST", path: "/api/sticky", body: pin("gpt-4o", b, `,"ttl_ms":60000`), status: 201, runtimeOnly: true,
				check: func(t *testing.T, rec *httptest.ResponseRecorder) {
					got := bindings(t, rec)["gpt-4o"]
					want := map[string]any{"model_name": "gpt-4o", "deployment_id": float64(b), "ttl_ms": 60000.0, "manual": true,
						"expires_at": testNow.Add(time.Minute).Format(time.RFC3339)}
					if jsonOf(t, got) != jsonOf(t, want) {
						t.Errorf("binding %v, want %v", got, want)
					}
				}},
			{name: "pin with the default TTL", method: "POST", path: "/api/sticky", body: pin("other", other, ""), status: 201, runtimeOnly: true,
				check: func(t *testing.T, rec *httptest.ResponseRecorder) {
					if got := bindings(t, rec)["other"]["ttl_ms"]; got != float64(2*time.Hour/time.Millisecond) {
						t.Errorf("default ttl_ms = %v, want 2 h", got)
					}
					wantBindings(map[string]int64{"gpt-4o": b, "other": other})(t, rec)
				}},
			{name: "pin a model a wildcard serves", method: "POST", path: "/api/sticky", body: pin("openai/gpt-5", wild, ""), status: 201, runtimeOnly: true},
			{name: "re-pin replaces", method: "POST", path: "/api/sticky", body: pin("gpt-4o", a, ""), status: 201, runtimeOnly: true,
				check: wantBindings(map[string]int64{"gpt-4o": a, "other": other, "openai/gpt-5": wild})},
			{name: "list", method: "GET", path: "/api/sticky", status: 200,
				check: wantBindings(map[string]int64{"gpt-4o": a, "other": other, "openai/gpt-5": wild})},
			{name: "unknown model", method: "POST", path: "/api/sticky", body: pin("nope", a, ""), status: 404, errMsg: `model_name: no pool serves "nope"`},
			{name: "member of another pool", method: "POST", path: "/api/sticky", body: pin("gpt-4o", other, ""), status: 400,
				errMsg: fmt.Sprintf(`deployment_id: deployment %d is not an enabled member of the pool serving "gpt-4o"`, other)},
			{name: "disabled member", method: "POST", path: "/api/sticky", body: pin("gpt-4o", off, ""), status: 400, errMsg: "deployment_id:"},
			{name: "no such deployment", method: "POST", path: "/api/sticky", body: pin("gpt-4o", 99999, ""), status: 400, errMsg: "deployment_id:"},
			{name: "missing model_name", method: "POST", path: "/api/sticky", body: fmt.Sprintf(`{"deployment_id":%d}`, a), status: 400, errMsg: "model_name: is required"},
			{name: "missing deployment_id", method: "POST", path: "/api/sticky", body: `{"model_name":"gpt-4o"}`, status: 400, errMsg: "deployment_id: is required"},
			{name: "zero ttl", method: "POST", path: "/api/sticky", body: pin("gpt-4o", a, `,"ttl_ms":0`), status: 400, errMsg: "ttl_ms: must be more than 0"},
			{name: "negative ttl", method: "POST", path: "/api/sticky", body: pin("gpt-4o", a, `,"ttl_ms":-5`), status: 400, errMsg: "ttl_ms: must be more than 0"},
			{name: "ttl over a year", method: "POST", path: "/api/sticky", body: pin("gpt-4o", a, `,"ttl_ms":31536000001`), status: 400, errMsg: "ttl_ms: must be 31536000000 or less"},
			{name: "ttl of the wrong type", method: "POST", path: "/api/sticky", body: pin("gpt-4o", a, `,"ttl_ms":"1h"`), status: 400, errMsg: "ttl_ms: must be a whole number"},
			{name: "id as a string", method: "POST", path: "/api/sticky", body: `{"model_name":"gpt-4o","deployment_id":"1"}`, status: 400, errMsg: "deployment_id: must be a whole number"},
			{name: "unknown field", method: "POST", path: "/api/sticky", body: fmt.Sprintf(`{"modelName":"gpt-4o","deployment_id":%d}`, a), status: 400, errMsg: "modelName: unknown field"},
			{name: "bad model name", method: "POST", path: "/api/sticky", body: pin("a b", a, ""), status: 400, errMsg: "model_name: must have no spaces"},
			{name: "empty body", method: "POST", path: "/api/sticky", status: 400, errMsg: "request body is empty"},
			{name: "failures changed nothing", method: "GET", path: "/api/sticky", status: 200,
				check: wantBindings(map[string]int64{"gpt-4o": a, "other": other, "openai/gpt-5": wild})},

			{name: "clear by query", method: "DELETE", path: "/api/sticky?model_name=gpt-4o", status: 200, runtimeOnly: true,
				check: wantBindings(map[string]int64{"other": other, "openai/gpt-5": wild})},
			{name: "clear an unbound model", method: "DELETE", path: "/api/sticky?model_name=gpt-4o", status: 404, errMsg: `model_name: "gpt-4o" has no sticky binding`},
			{name: "clear by body", method: "DELETE", path: "/api/sticky", body: `{"model_name":"openai/gpt-5"}`, status: 200, runtimeOnly: true,
				check: wantBindings(map[string]int64{"other": other})},
			{name: "unknown body field", method: "DELETE", path: "/api/sticky", body: `{"model":"other"}`, status: 400, errMsg: "model: unknown field"},
			{name: "unknown query parameter", method: "DELETE", path: "/api/sticky?model=other", status: 400, errMsg: "model: unknown query parameter"},
			{name: "empty object", method: "DELETE", path: "/api/sticky", body: `{}`, status: 400, errMsg: "model_name: is required"},
			{name: "empty query value", method: "DELETE", path: "/api/sticky?model_name=", status: 400, errMsg: "model_name: is required"},
			{name: "query twice", method: "DELETE", path: "/api/sticky?model_name=a&model_name=b", status: 400, errMsg: "model_name: given more than once"},
			{name: "body and query differ", method: "DELETE", path: "/api/sticky?model_name=gpt-4o", body: `{"model_name":"other"}`, status: 400,
				errMsg: `model_name: the body says "other" and the query "gpt-4o"`},
			{name: "refusals cleared nothing", method: "GET", path: "/api/sticky", status: 200, check: wantBindings(map[string]int64{"other": other})},
			{name: "body and query agree", method: "DELETE", path: "/api/sticky?model_name=other", body: `{"model_name":"other"}`, status: 200, runtimeOnly: true,
				check: wantBindings(map[string]int64{})},
			{name: "pin other again", method: "POST", path: "/api/sticky", body: pin("other", other, ""), status: 201, runtimeOnly: true},
			{name: "pin again", method: "POST", path: "/api/sticky", body: pin("gpt-4o", b, ""), status: 201, runtimeOnly: true},
			{name: "clear all", method: "DELETE", path: "/api/sticky", status: 200, runtimeOnly: true, want: map[string]any{"bindings": []any{}}},
		})
	})
}

// TestStickyPinRoutes checks that the proxy follows a pin made through the
// API, and forgets it when it is cleared.
func TestStickyPinRoutes(t *testing.T) {
	e := newRuntimeEnv(t, dbtest.MustOpenStore(t, "", t.TempDir()))
	ids := []int64{e.entry(t, "gpt-4o", "ok-a", nil, true), e.entry(t, "gpt-4o", "ok-b", nil, true), e.entry(t, "gpt-4o", "ok-c", nil, true)}
	e.reload(t)
	pinned := ids[2]
	if rec := e.api(t, "POST", "/api/sticky", fmt.Sprintf(`{"model_name":"gpt-4o","deployment_id":%d}`, pinned)); rec.Code != http.StatusCreated {
		t.Fatalf("pin: %d %s", rec.Code, rec.Body)
	}
	for i := range 20 {
		if status, by := e.chat(t, "gpt-4o"); status != 200 || by != strconv.FormatInt(pinned, 10) {
			t.Fatalf("request %d: status %d served by %s, want %d", i, status, by, pinned)
		}
	}
	if rec := e.api(t, "DELETE", "/api/sticky?model_name=gpt-4o", ""); rec.Code != http.StatusOK {
		t.Fatalf("clear: %d %s", rec.Code, rec.Body)
	}
	served := map[string]bool{}
	for range 60 {
		_, by := e.chat(t, "gpt-4o")
		served[by] = true
	}
	if len(served) < 2 {
		t.Errorf("after clearing the pin, 60 requests went to %v only", served)
	}
}

// TestAPIStickyWithSession: a signed-in admin pins with the CSRF header.
func TestAPIStickyWithSession(t *testing.T) {
	e := newRuntimeEnv(t, dbtest.MustOpenStore(t, "", t.TempDir()))
	id := e.entry(t, "gpt-4o", "ok-a", nil, true)
	e.reload(t)
	b := e.browser(t)
	tok := b.signIn()
	body := fmt.Sprintf(`{"model_name":"gpt-4o","deployment_id":%d}`, id)
	h := http.Header{"Content-Type": {"application/json"}}
	if rec := b.do("POST", "/api/sticky", strings.NewReader(body), h); rec.Code != http.StatusForbidden {
		t.Fatalf("without the CSRF header: status %d, want 403", rec.Code)
	}
	h.Set("X-Csrf-Token", tok)
	if rec := b.do("POST", "/api/sticky", strings.NewReader(body), h); rec.Code != http.StatusCreated {
		t.Fatalf("with the CSRF header: status %d, want 201: %s", rec.Code, rec.Body)
	}
	if rec := b.do("GET", "/api/sticky", nil, nil); rec.Code != http.StatusOK || len(bindings(t, rec)) != 1 {
		t.Fatalf("GET with a session: %d %s", rec.Code, rec.Body)
	}
}
