package handlers_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"gateway/models"
	"gateway/models/dbtest"
)

// TestLogsPageTraceFilters: the Logs page filters by request id, a time
// range typed as a datetime-local field gives it (UTC) and errors only,
// keeps the values in the form and in the paging links, and says which
// filter is wrong.
func TestLogsPageTraceFilters(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
		mustLogs(t, s, traceRows(t0)...)
		b := ta.browser(t)
		b.signIn()
		for _, tc := range []struct {
			query string
			want  int
		}{
			{"request_id=req-retried", 1}, {"request_id=+req-retried+", 1}, {"errors=1", 1},
			{"from=2026-12-01T10:01", 2}, {"to=2026-12-01T10:01", 1}, {"from=2026-12-01T10:01:00&to=2026-12-01T10:02", 1},
			{"from=2026-12-01T10:01:00Z", 2}, {"errors=1&to=2026-12-01T10:02", 0},
		} {
			rec := b.get("/logs?" + tc.query)
			wantStatus(t, tc.query, rec, http.StatusOK)
			if got := testid(parseHTML(t, rec), "log").Length(); got != tc.want {
				t.Errorf("?%s: %d rows, want %d", tc.query, got, tc.want)
			}
		}

		doc := parseHTML(t, b.get("/logs?request_id=req-failed&errors=1&from=2026-12-01T09:00:00Z&to=2026-12-01T11:00"))
		for id, want := range map[string]string{"filter-request_id": "req-failed", "filter-from": "2026-12-01T09:00", "filter-to": "2026-12-01T11:00"} {
			if v, _ := testid(doc, id).Attr("value"); v != want {
				t.Errorf("%s keeps %q, want %q", id, v, want)
			}
		}
		if _, ok := testid(doc, "filter-errors").Attr("checked"); !ok {
			t.Error("errors only is not kept")
		}
		if typ, _ := testid(doc, "filter-from").Attr("type"); typ != "datetime-local" {
			t.Errorf("from is a %q field", typ)
		}

		rec := b.get("/logs?from=yesterday&to=2026-12-01T09:00&request_id=" + strings.Repeat("x", 65))
		wantStatus(t, "bad filters", rec, http.StatusUnprocessableEntity)
		doc = parseHTML(t, rec)
		if text(doc, "error-from") == "" || text(doc, "error-request_id") == "" || testid(doc, "log").Length() != 0 {
			t.Errorf("bad filters: from %q, request id %q, %d rows", text(doc, "error-from"), text(doc, "error-request_id"), testid(doc, "log").Length())
		}
		rec = b.get("/logs?from=2026-12-01T11:00&to=2026-12-01T10:00")
		wantStatus(t, "to before from", rec, http.StatusUnprocessableEntity)
		if msg := text(parseHTML(t, rec), "error-to"); msg != "must be later than from" {
			t.Errorf("to before from: %q", msg)
		}
	})
}

// TestLogDetailPage: each row links to its detail view, which shows the
// row's fields and the attempts in order: member, status, latency, why the
// router moved on, fallback.
func TestLogDetailPage(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		p := mustProvider(t, s, "p", "sk-upstream")
		a := mustDeployment(t, s, &models.Deployment{PublicName: "pool", ProviderID: p.ID, UpstreamModel: "a"})
		rows := traceRows(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
		for i := range rows {
			for j := range rows[i].Trace {
				if rows[i].Trace[j].DeploymentID == 1 {
					rows[i].Trace[j].DeploymentID = a.ID // entry 2 stays deleted
				}
			}
		}
		mustLogs(t, s, rows...)
		b := ta.browser(t)
		b.signIn()

		doc := parseHTML(t, b.get("/logs?errors=1"))
		href, _ := testid(doc, "log-link").Attr("href")
		id, _ := testid(doc, "log").Attr("data-log-id")
		if href != "/logs/"+id || id == "" {
			t.Fatalf("row links to %q, want /logs/%s", href, id)
		}
		rec := b.get(href)
		wantStatus(t, href, rec, http.StatusOK)
		wantFullPage(t, href, rec)
		doc = parseHTML(t, rec)
		if text(doc, "detail-request-id") != "req-failed" || !strings.Contains(text(doc, "detail-status"), "503") ||
			!strings.Contains(text(doc, "detail-provider"), "backup") {
			t.Errorf("detail: %q, status %q, served by %q", text(doc, "detail-request-id"), text(doc, "detail-status"), text(doc, "detail-provider"))
		}
		attempts := testid(doc, "attempt")
		if attempts.Length() != 2 {
			t.Fatalf("%d attempts shown, want 2", attempts.Length())
		}
		first, second := attempts.Eq(0), attempts.Eq(1)
		if !strings.Contains(text(first, "attempt-member"), "pool") || text(first, "attempt-status") != "500" ||
			text(first, "attempt-reason") != "5xx" || text(first, "attempt-fallback") != "–" {
			t.Errorf("first attempt: %q %q %q %q", text(first, "attempt-member"), text(first, "attempt-status"),
				text(first, "attempt-reason"), text(first, "attempt-fallback"))
		}
		if !strings.Contains(text(second, "attempt-member"), "deleted entry") || text(second, "attempt-status") != "503" ||
			text(second, "attempt-fallback") != "backup" {
			t.Errorf("second attempt: %q %q %q", text(second, "attempt-member"), text(second, "attempt-status"), text(second, "attempt-fallback"))
		}

		doc = parseHTML(t, b.get("/logs?request_id=req-retried"))
		href, _ = testid(doc, "log-link").Attr("href")
		rec = b.do("GET", href, nil, hx())
		wantPartial(t, "htmx "+href, rec)
		attempts = testid(parseHTML(t, rec), "attempt")
		if attempts.Length() != 2 || text(attempts.Eq(0), "attempt-reason") != "429, cooling down until 2026-12-05T00:00:00Z slow down" ||
			text(attempts.Eq(0), "attempt-latency") != "20 ms" || text(attempts.Eq(1), "attempt-reason") != "served" ||
			text(attempts.Eq(1), "attempt-start") != "+21 ms" {
			t.Errorf("retried: %d attempts, first %q", attempts.Length(), text(attempts.Eq(0), "attempt-reason"))
		}

		// A request served at once shows its one attempt from the row.
		doc = parseHTML(t, b.get("/logs?request_id=req-ok"))
		href, _ = testid(doc, "log-link").Attr("href")
		attempts = testid(parseHTML(t, b.get(href)), "attempt")
		if attempts.Length() != 1 || text(attempts.Eq(0), "attempt-status") != "200" || text(attempts.Eq(0), "attempt-latency") != "30 ms" {
			t.Errorf("first-attempt success: %d attempts", attempts.Length())
		}

		// A trace keeps 16 attempts; the page says how many more there were.
		long := models.RequestLog{RequestID: "req-long", Status: 502, Attempts: models.MaxTraceAttempts + 2}
		for range models.MaxTraceAttempts {
			long.Trace = append(long.Trace, models.Attempt{DeploymentID: a.ID, Status: 502, Reason: "5xx"})
		}
		mustLogs(t, s, long)
		href, _ = testid(parseHTML(t, b.get("/logs?request_id=req-long")), "log-link").Attr("href")
		doc = parseHTML(t, b.get(href))
		if n, note := testid(doc, "attempt").Length(), text(doc, "untraced"); n != models.MaxTraceAttempts ||
			!strings.HasPrefix(note, "2 later attempts are not shown") {
			t.Errorf("long trace: %d attempts shown, note %q", n, note)
		}

		for _, path := range []string{"/logs/999999", "/logs/x"} {
			wantStatus(t, path, b.get(path), http.StatusNotFound)
		}
	})
}
