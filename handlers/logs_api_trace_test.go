package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"gateway/models"
	"gateway/models/dbtest"
)

// traceRows are a request served at its first attempt, one that a 429 sent
// to a second member, and one that failed in a fallback pool, a minute apart.
func traceRows(t0 time.Time) []models.RequestLog {
	dep1, dep2 := int64(1), int64(2)
	return []models.RequestLog{
		{CreatedAt: t0, RequestID: "req-ok", Model: "pool", DeploymentID: &dep1, ProviderName: "p", UpstreamModel: "a",
			Status: 200, LatencyMS: 30, Attempts: 1},
		{CreatedAt: t0.Add(time.Minute), RequestID: "req-retried", Model: "pool", DeploymentID: &dep2, ProviderName: "p",
			UpstreamModel: "b", Status: 200, LatencyMS: 90, Attempts: 2, Trace: models.Trace{
				{DeploymentID: 1, Provider: "p", UpstreamModel: "a", Status: 429, LatencyMS: 20,
					Reason: "429, cooling down until 2026-12-05T00:00:00Z", Error: "slow down"},
				{DeploymentID: 2, Provider: "p", UpstreamModel: "b", Status: 200, StartMS: 21, LatencyMS: 60}}},
		{CreatedAt: t0.Add(2 * time.Minute), RequestID: "req-failed", Model: "pool", DeploymentID: &dep2, ProviderName: "p",
			UpstreamModel: "b", Status: 503, Error: "upstream 503", Fallback: "backup", Attempts: 2, Trace: models.Trace{
				{DeploymentID: 1, Provider: "p", UpstreamModel: "a", Status: 500, Reason: "5xx"},
				{DeploymentID: 2, Provider: "p", UpstreamModel: "b", Status: 503, Reason: "5xx", Fallback: "backup"}}},
	}
}

// TestAPILogsTraceFilters: request_id, from/to (RFC 3339, to exclusive),
// errors=1, each alone and together; bad values are a 400 naming the filter.
func TestAPILogsTraceFilters(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
		mustLogs(t, s, traceRows(t0)...)
		at := func(m int) string { return t0.Add(time.Duration(m) * time.Minute).Format(time.RFC3339) }
		for _, tc := range []struct {
			query string
			want  string // request ids, newest first
		}{
			{"request_id=req-retried", "req-retried"},
			{"request_id=none", ""},
			{"errors=1", "req-failed"},
			{"errors=0", "req-failed req-retried req-ok"},
			{"from=" + at(1), "req-failed req-retried"},
			{"to=" + at(1), "req-ok"},
			{"from=" + at(1) + "&to=" + at(2), "req-retried"},
			{"from=" + strings.ReplaceAll(t0.Add(time.Minute).In(time.FixedZone("", 3600)).Format(time.RFC3339), "+", "%2B"), "req-failed req-retried"},
			{"errors=1&from=" + at(0) + "&model=pool", "req-failed"},
		} {
			rec := ta.api(t, "GET", "/api/logs?"+tc.query, "")
			var ids []string
			for _, l := range decodeJSON[[]map[string]any](t, rec) {
				ids = append(ids, fmt.Sprint(l["request_id"]))
			}
			if got := strings.Join(ids, " "); rec.Code != http.StatusOK || got != tc.want {
				t.Errorf("?%s: %d %q, want %q", tc.query, rec.Code, got, tc.want)
			}
		}
		for _, tc := range []struct{ query, field string }{
			{"from=yesterday", "from"}, {"to=2026-12-01", "to"}, {"errors=yes", "errors"},
			{"from=" + at(2) + "&to=" + at(1), "to"},
		} {
			rec := ta.api(t, "GET", "/api/logs?"+tc.query, "")
			if msg := errorMessage(t, rec); rec.Code != http.StatusBadRequest || !strings.HasPrefix(msg, tc.field+": ") {
				t.Errorf("?%s: %d %q, want 400 naming %s", tc.query, rec.Code, msg, tc.field)
			}
		}
	})
}

// TestAPILogDetail: GET /api/logs/{id} is one row with its attempts, a
// first-attempt success as its row tells it; a missing row is a 404 in the
// API's error shape.
func TestAPILogDetail(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		mustLogs(t, s, traceRows(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))...)
		ids := map[string]float64{}
		for _, l := range decodeJSON[[]map[string]any](t, ta.api(t, "GET", "/api/logs", "")) {
			ids[l["request_id"].(string)] = l["id"].(float64)
			if _, ok := l["trace"].([]any); !ok {
				t.Errorf("%v: trace %v, want an array", l["request_id"], l["trace"])
			}
		}
		type attempt struct {
			DeploymentID int64  `json:"deployment_id"`
			Status       int    `json:"status"`
			Reason       string `json:"reason"`
			Fallback     string `json:"fallback"`
		}
		type row struct {
			RequestID string    `json:"request_id"`
			Attempts  int       `json:"attempts"`
			Trace     []attempt `json:"trace"`
		}
		for _, tc := range []struct {
			id   string
			want []attempt
		}{
			{"req-retried", []attempt{{1, 429, "429, cooling down until 2026-12-05T00:00:00Z", ""}, {2, 200, "", ""}}},
			{"req-failed", []attempt{{1, 500, "5xx", ""}, {2, 503, "5xx", "backup"}}},
			{"req-ok", []attempt{{1, 200, "", ""}}},
		} {
			rec := ta.api(t, "GET", fmt.Sprintf("/api/logs/%.0f", ids[tc.id]), "")
			got := decodeJSON[row](t, rec)
			if rec.Code != http.StatusOK || got.RequestID != tc.id || fmt.Sprint(got.Trace) != fmt.Sprint(tc.want) {
				t.Errorf("%s: %d %+v, want trace %+v", tc.id, rec.Code, got, tc.want)
			}
		}
		for _, path := range []string{"/api/logs/999999", "/api/logs/x"} {
			rec := ta.api(t, "GET", path, "")
			if msg := errorMessage(t, rec); rec.Code != http.StatusNotFound || msg == "" {
				t.Errorf("%s: %d %q, want 404 with a message", path, rec.Code, msg)
			}
		}
		if rec := ta.do(t, "GET", fmt.Sprintf("/api/logs/%.0f", ids["req-ok"]), "", nil); rec.Code != http.StatusUnauthorized {
			t.Errorf("without credentials: %d", rec.Code)
		}
	})
}
