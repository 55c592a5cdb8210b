package handlers_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gateway/models"
	"gateway/models/dbtest"
)

// keysOf returns the sorted keys of a JSON object.
func keysOf(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestAPIStats(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		e := newRuntimeEnv(t, s)
		ok := e.entry(t, "gpt-4o", "gpt-4o-2024", ptr(1.0), true)
		limited := e.entry(t, "limited", rateLimitedModel, nil, true)
		e.entry(t, "off", "x", nil, false)
		e.reload(t)

		rec := e.api(t, "GET", "/api/stats", "")
		if rec.Code != http.StatusOK {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		first := decodeJSON[statsAnswer](t, rec)
		before := first.Deployments
		for _, k := range []string{"from", "to", "keys", "users", "teams", "models", "deployments"} {
			if _, ok := first.Usage[k]; !ok {
				t.Errorf("usage lacks %q: %s", k, rec.Body)
			}
		}
		if len(before) != 2 {
			t.Fatalf("%d deployments before any request, want the 2 enabled ones: %s", len(before), rec.Body)
		}
		if before[0]["requests"] != 0.0 || before[0]["last_error_at"] != nil {
			t.Errorf("fresh statistics: %v", before[0])
		}

		if status, _ := e.chat(t, "gpt-4o"); status != http.StatusOK {
			t.Fatalf("chat gpt-4o: status %d", status)
		}
		if status, _ := e.chat(t, "limited"); status != http.StatusTooManyRequests {
			t.Fatalf("chat limited: status %d, want 429", status)
		}
		rec = e.api(t, "GET", "/api/stats", "")
		byID := map[string]map[string]any{}
		for _, d := range decodeJSON[statsAnswer](t, rec).Deployments {
			byID[fmt.Sprint(d["id"])] = d
		}
		want := []string{"id", "public_name", "provider", "requests", "successes", "success_rate", "avg_latency_ms",
			"p95_latency_ms", "tokens_in", "tokens_out", "cost_usd", "last_error", "last_error_at"}
		got := byID[strconv.FormatInt(ok, 10)]
		if g, w := keysOf(got), sortedCopy(want); !slices.Equal(g, w) {
			t.Errorf("fields %v, want %v", g, w)
		}
		for k, v := range map[string]any{"public_name": "gpt-4o", "provider": "fake-openai", "requests": 1.0,
			"successes": 1.0, "success_rate": 1.0, "tokens_in": 3.0, "tokens_out": 2.0, "last_error": "", "last_error_at": nil} {
			if got[k] != v {
				t.Errorf("gpt-4o %s = %v, want %v", k, got[k], v)
			}
		}
		bad := byID[strconv.FormatInt(limited, 10)]
		if bad["requests"] != 1.0 || bad["successes"] != 0.0 || bad["success_rate"] != 0.0 {
			t.Errorf("limited: %v", bad)
		}
		if msg, _ := bad["last_error"].(string); !strings.Contains(msg, "Rate limit") {
			t.Errorf("limited last_error = %q", msg)
		}
		if at, _ := bad["last_error_at"].(string); at != testNow.Format(time.RFC3339) {
			t.Errorf("limited last_error_at = %v, want %s", bad["last_error_at"], testNow.Format(time.RFC3339))
		}
	})
}

// statsAnswer is GET /api/stats, decoded.
type statsAnswer struct {
	Deployments []map[string]any `json:"deployments"`
	Usage       map[string]any   `json:"usage"`
}

// poolStatus is GET /api/pools/{name}/status, decoded.
type poolStatus struct {
	PublicName string `json:"public_name"`
	Members    []struct {
		ID             int64      `json:"id"`
		Provider       string     `json:"provider"`
		UpstreamModel  string     `json:"upstream_model"`
		Weight         *float64   `json:"weight"`
		Enabled        bool       `json:"enabled"`
		Share          float64    `json:"share"`
		PlannedShare   float64    `json:"planned_share"`
		CoolingDown    bool       `json:"cooling_down"`
		CooldownUntil  *time.Time `json:"cooldown_until"`
		CooldownReason string     `json:"cooldown_reason"`
		LastCheck      *struct {
			At        time.Time `json:"at"`
			OK        bool      `json:"ok"`
			LatencyMS int64     `json:"latency_ms"`
			Error     string    `json:"error"`
		} `json:"last_check"`
	} `json:"members"`
}

func getPoolStatus(t *testing.T, ta *testApp, escapedName string) poolStatus {
	t.Helper()
	rec := ta.api(t, "GET", "/api/pools/"+escapedName+"/status", "")
	if rec.Code != http.StatusOK {
		t.Fatalf("status of %s: %d: %s", escapedName, rec.Code, rec.Body)
	}
	return decodeJSON[poolStatus](t, rec)
}

// wantShares compares each member's current and planned shares.
func wantShares(t *testing.T, ps poolStatus, share, planned []float64) {
	t.Helper()
	for i, m := range ps.Members {
		if !near(m.Share, share[i]) || !near(m.PlannedShare, planned[i]) {
			t.Errorf("member %d (%s): share %.4f planned %.4f, want %.4f and %.4f",
				i, m.UpstreamModel, m.Share, m.PlannedShare, share[i], planned[i])
		}
	}
}

func TestAPIPoolStatus(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		e := newRuntimeEnv(t, s)
		ctx := context.Background()
		a := e.entry(t, "gpt-4o", "ok-a", ptr(1.0), true)
		b := e.entry(t, "gpt-4o", rateLimitedModel, ptr(3.0), true)
		c := e.entry(t, "gpt-4o", "ok-c", ptr(1.0), true)
		d := e.entry(t, "gpt-4o", "ok-d", ptr(5.0), false)
		wild := e.entry(t, "openai/*", "*", nil, true)
		e.entry(t, "retired", "old", ptr(1.0), false)
		e.reload(t)

		// Everything healthy: the planned shares are the current ones.
		ps := getPoolStatus(t, e.testApp, "gpt-4o")
		if ps.PublicName != "gpt-4o" || len(ps.Members) != 4 {
			t.Fatalf("status = %+v", ps)
		}
		if got := []int64{ps.Members[0].ID, ps.Members[1].ID, ps.Members[2].ID, ps.Members[3].ID}; !slices.Equal(got, []int64{a, b, c, d}) {
			t.Errorf("member ids %v, want %v", got, []int64{a, b, c, d})
		}
		wantShares(t, ps, []float64{0.2, 0.6, 0.2, 0}, []float64{0.2, 0.6, 0.2, 0})
		m := ps.Members[3]
		if m.Enabled || m.Weight == nil || *m.Weight != 5 || m.Provider != "fake-openai" || m.UpstreamModel != "ok-d" ||
			m.CoolingDown || m.CooldownUntil != nil || m.LastCheck != nil {
			t.Errorf("disabled member = %+v", m)
		}
		if !ps.Members[0].Enabled {
			t.Error("enabled member listed as disabled")
		}
		rec := e.api(t, "GET", "/api/pools/gpt-4o/status", "")
		member := decodeJSON[struct {
			Members []map[string]any `json:"members"`
		}](t, rec).Members[0]
		wantFields := []string{"id", "provider", "upstream_model", "weight", "enabled", "share", "planned_share",
			"cooling_down", "cooldown_until", "cooldown_reason", "last_check",
			// what the pool's strategy decides on
			"priority", "rpm_limit", "tpm_limit", "requests_this_minute", "tokens_this_minute", "at_limit", "in_flight",
			"latency_ms", "price_per_million"}
		if g, w := keysOf(member), sortedCopy(wantFields); !slices.Equal(g, w) {
			t.Errorf("member fields %v, want %v", g, w)
		}
		if n := e.up.calls.Load(); n != 0 {
			t.Fatalf("loading the status called the upstream %d times", n)
		}

		// b is pinned, answers 429 with retry-after 3600, and cools down; the
		// retry goes to a or c, who share b's traffic by their weights.
		pin := fmt.Sprintf(`{"model_name":"gpt-4o","deployment_id":%d}`, b)
		if rec := e.api(t, "POST", "/api/sticky", pin); rec.Code != http.StatusCreated {
			t.Fatalf("pin: %d %s", rec.Code, rec.Body)
		}
		status, servedBy := e.chat(t, "gpt-4o")
		if status != http.StatusOK || servedBy == strconv.FormatInt(b, 10) || servedBy == "" {
			t.Fatalf("chat: status %d served by %q, want 200 from a or c", status, servedBy)
		}
		ps = getPoolStatus(t, e.testApp, "gpt-4o")
		wantShares(t, ps, []float64{0.5, 0, 0.5, 0}, []float64{0.2, 0.6, 0.2, 0})
		cooled := ps.Members[1]
		if !cooled.CoolingDown || cooled.CooldownUntil == nil || !cooled.CooldownUntil.Equal(testNow.Add(time.Hour)) {
			t.Errorf("b cooling_down %v until %v, want until %v", cooled.CoolingDown, cooled.CooldownUntil, testNow.Add(time.Hour))
		}
		if !strings.HasPrefix(cooled.CooldownReason, "429, retry-after 3600s: ") || !strings.Contains(cooled.CooldownReason, "Rate limit") {
			t.Errorf("cooldown_reason = %q, want the upstream's status, retry-after and message", cooled.CooldownReason)
		}
		if rec := e.api(t, "GET", "/api/sticky", ""); !strings.Contains(rec.Body.String(), `"bindings":[]`) {
			t.Errorf("b's failure did not clear its pin: %s", rec.Body)
		}

		// c failed its last live check: a takes everything that is left.
		checkedAt := testNow.Add(-time.Minute)
		for _, h := range []models.HealthCheck{
			{DeploymentID: a, CheckedAt: checkedAt, OK: true, LatencyMS: 120},
			{DeploymentID: c, CheckedAt: checkedAt, OK: false, LatencyMS: 30, Error: "connection refused"},
		} {
			if err := s.SaveHealthCheck(ctx, &h); err != nil {
				t.Fatal(err)
			}
		}
		ps = getPoolStatus(t, e.testApp, "gpt-4o")
		wantShares(t, ps, []float64{1, 0, 0, 0}, []float64{0.2, 0.6, 0.2, 0})
		if lc := ps.Members[0].LastCheck; lc == nil || !lc.OK || lc.LatencyMS != 120 || !lc.At.Equal(checkedAt) || lc.Error != "" {
			t.Errorf("a's last_check = %+v", lc)
		}
		if lc := ps.Members[2].LastCheck; lc == nil || lc.OK || lc.Error != "connection refused" {
			t.Errorf("c's last_check = %+v", lc)
		}

		// A wildcard route by its escaped pattern; an unset weight stays null.
		for _, escaped := range []string{"openai%2F*", "openai%2F%2A"} {
			ps = getPoolStatus(t, e.testApp, escaped)
			if ps.PublicName != "openai/*" || len(ps.Members) != 1 || ps.Members[0].ID != wild || ps.Members[0].Weight != nil {
				t.Errorf("%s: %+v", escaped, ps)
			}
			wantShares(t, ps, []float64{1}, []float64{1})
		}
		// Only disabled entries: listed, served by no one.
		ps = getPoolStatus(t, e.testApp, "retired")
		if len(ps.Members) != 1 || ps.Members[0].Enabled {
			t.Errorf("retired: %+v", ps)
		}
		wantShares(t, ps, []float64{0}, []float64{0})

		for _, c := range []struct {
			path   string
			status int
			msg    string
		}{
			{"/api/pools/nope/status", 404, `no model entries with public name "nope"`},
			{"/api/pools/openai%2Fgpt-4o/status", 404, `no model entries with public name "openai/gpt-4o"`},
			{"/api/pools/a%2A-b/status", 400, "public_name:"},
		} {
			rec := e.api(t, "GET", c.path, "")
			if rec.Code != c.status {
				t.Errorf("%s: status %d, want %d: %s", c.path, rec.Code, c.status, rec.Body)
				continue
			}
			if msg := errorMessage(t, rec); !strings.Contains(msg, c.msg) {
				t.Errorf("%s: message %q, want it to contain %q", c.path, msg, c.msg)
			}
		}
		if n := e.up.calls.Load(); n != 2 {
			t.Errorf("the upstream got %d calls, want the 2 of the one chat request", n)
		}
	})
}

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

// TestAPIRuntimeWithoutProxy: an admin listener without a proxy says so.
func TestAPIRuntimeWithoutProxy(t *testing.T) {
	ta := newTestApp(t, dbtest.MustOpenStore(t, "", t.TempDir()))
	p := mustProvider(t, ta.store, "openai", "sk-provider-0000000000")
	mustDeployment(t, ta.store, &models.Deployment{PublicName: "gpt-4o", ProviderID: p.ID, UpstreamModel: "a"})
	for _, rt := range []struct{ method, path, body string }{
		{"GET", "/api/stats", ""},
		{"GET", "/api/pools/gpt-4o/status", ""},
		{"GET", "/api/sticky", ""},
		{"POST", "/api/sticky", `{"model_name":"gpt-4o","deployment_id":1}`},
		{"DELETE", "/api/sticky", ""},
	} {
		rec := ta.api(t, rt.method, rt.path, rt.body)
		if rec.Code != http.StatusServiceUnavailable {
			t.Errorf("%s %s: status %d, want 503", rt.method, rt.path, rec.Code)
			continue
		}
		if msg := errorMessage(t, rec); !strings.Contains(msg, "no proxy attached") {
			t.Errorf("%s %s: message %q", rt.method, rt.path, msg)
		}
	}
}
