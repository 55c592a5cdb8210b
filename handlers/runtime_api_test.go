package handlers_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
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
