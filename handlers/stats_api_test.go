package handlers_test

import (
	"fmt"
	"gateway/models"
	"gateway/models/dbtest"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

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
