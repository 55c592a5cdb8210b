package handlers_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"gateway/models"
	"gateway/models/dbtest"
)

func TestLogsPage(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		k, _ := mustKey(t, s, &models.VirtualKey{Name: "ci"})
		gone := int64(999)
		mustLogs(t, s,
			models.RequestLog{CreatedAt: minutesAgo(30), KeyID: &k.ID, Model: "gpt-4o", ProviderName: "openai", UpstreamModel: "gpt-4o-2024",
				Endpoint: "/v1/chat/completions", Status: 200, LatencyMS: 420, InputTokens: 1200, OutputTokens: 34, CostUSD: 0.0034, Attempts: 1},
			models.RequestLog{CreatedAt: minutesAgo(20), KeyID: &k.ID, Model: "claude", ProviderName: "anthropic", Endpoint: "/v1/messages",
				Stream: true, Status: 429, Error: "no healthy deployments for this model", Attempts: 3, Fallback: "cheap"},
			models.RequestLog{CreatedAt: minutesAgo(10), KeyID: &gone, Model: "gpt-4o", ProviderName: "discount", Status: 200, CostUSD: 2,
				OutputTokens: 7, UsageEstimated: true},
		)
		b := ta.browser(t)
		b.signIn()

		rec := b.get("/logs")
		wantStatus(t, "GET /logs", rec, http.StatusOK)
		wantFullPage(t, "GET /logs", rec)
		doc := parseHTML(t, rec)
		rows := testid(doc, "log")
		if rows.Length() != 3 {
			t.Fatalf("%d rows, want 3", rows.Length())
		}
		if got := text(rows.Eq(0), "log-key"); got != "deleted key #999" {
			t.Errorf("newest first: first row key %q", got)
		}
		if testid(rows.Eq(0), "log-estimated").Length() != 1 || testid(rows.Eq(2), "log-estimated").Length() != 0 {
			t.Error("an estimated usage is not marked, or a measured one is")
		}
		first := rows.Eq(2)
		for id, want := range map[string]string{"log-model": "gpt-4o/v1/chat/completions", "log-provider": "openaigpt-4o-2024",
			"log-key": "ci" + k.KeyHint, "log-status": "200", "log-latency": "420 ms", "log-tokens": "1,200 / 34", "log-cost": "$0.0034"} {
			if got := strings.ReplaceAll(text(first, id), " ", ""); got != strings.ReplaceAll(want, " ", "") {
				t.Errorf("%s = %q, want %q", id, got, want)
			}
		}
		failed := rows.Eq(1)
		if text(failed, "log-error") != "no healthy deployments for this model" || !strings.Contains(text(failed, "log-model"), "fallback cheap") ||
			!strings.Contains(text(failed, "log-provider"), "3 attempts") || failed.Find(".badge.off").Length() != 1 {
			t.Errorf("failed row: %s", text(failed, "log-status"))
		}
		if testid(doc, "logs-older").Length() != 0 || testid(doc, "logs-newest").Length() != 0 {
			t.Error("one page has paging links")
		}
		filter := testid(doc, "log-filter")
		if filter.Find(`select[name="key_id"] option[value="`+strconv.FormatInt(k.ID, 10)+`"]`).Length() != 1 {
			t.Error("the key filter does not offer the key")
		}

		for _, c := range []struct {
			query string
			want  int
		}{
			{"model=gpt-4o", 2}, {"provider=anthropic", 1}, {"status=429", 1}, {"key_id=" + strconv.FormatInt(k.ID, 10), 2},
			{"model=gpt-4o&provider=discount", 1}, {"model=none", 0},
		} {
			rec := b.get("/logs?" + c.query)
			wantStatus(t, c.query, rec, http.StatusOK)
			if got := testid(parseHTML(t, rec), "log").Length(); got != c.want {
				t.Errorf("?%s: %d rows, want %d", c.query, got, c.want)
			}
		}
		doc = parseHTML(t, b.get("/logs?provider=anthropic&status=429"))
		if v, _ := doc.Find(`select[name="provider"] option[selected]`).Attr("value"); v != "anthropic" {
			t.Errorf("the provider filter is not kept: %q", v)
		}
		if v, _ := testid(doc, "filter-status").Attr("value"); v != "429" {
			t.Errorf("the status filter is not kept: %q", v)
		}
		if testid(doc, "no-logs").Length() != 0 {
			t.Error("no-logs with rows")
		}

		rec = b.get("/logs?status=abc&key_id=-1")
		wantStatus(t, "bad filters", rec, http.StatusUnprocessableEntity)
		doc = parseHTML(t, rec)
		if text(doc, "error-status") != "must be an HTTP status such as 429" || text(doc, "error-key_id") != "must be chosen from the list" {
			t.Errorf("filter errors: %q %q", text(doc, "error-status"), text(doc, "error-key_id"))
		}
		if testid(doc, "log").Length() != 0 {
			t.Error("bad filters still list rows")
		}

		rec = b.do("GET", "/logs?model=gpt-4o", nil, hx())
		wantStatus(t, "htmx GET /logs", rec, http.StatusOK)
		wantPartial(t, "htmx GET /logs", rec)
		if testid(parseHTML(t, rec), "log").Length() != 2 {
			t.Error("htmx partial without the filtered rows")
		}
	})
}

func TestLogsPaging(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		var logs []models.RequestLog
		for i := range 60 {
			logs = append(logs, models.RequestLog{CreatedAt: minutesAgo(120 - i), Model: "m" + strconv.Itoa(i%2), Status: 200})
		}
		mustLogs(t, s, logs...)
		b := ta.browser(t)
		b.signIn()

		doc := parseHTML(t, b.get("/logs"))
		rows := testid(doc, "log")
		if rows.Length() != 50 {
			t.Fatalf("first page: %d rows, want 50", rows.Length())
		}
		older, _ := testid(doc, "logs-older").Attr("href")
		lastID, _ := rows.Last().Attr("data-log-id")
		if older != "/logs?before="+lastID {
			t.Fatalf("older link %q, want /logs?before=%s", older, lastID)
		}
		doc = parseHTML(t, b.get(older))
		if got := testid(doc, "log").Length(); got != 10 {
			t.Errorf("second page: %d rows, want 10", got)
		}
		if testid(doc, "logs-older").Length() != 0 {
			t.Error("the last page links to an older one")
		}
		if newest, _ := testid(doc, "logs-newest").Attr("href"); newest != "/logs" {
			t.Errorf("newest link %q", newest)
		}

		// Filters carry over to the next page.
		doc = parseHTML(t, b.get("/logs?model=m1"))
		if got := testid(doc, "log").Length(); got != 30 {
			t.Errorf("m1: %d rows, want 30", got)
		}
		if testid(doc, "logs-older").Length() != 0 {
			t.Error("30 rows have a next page")
		}
		wantStatus(t, "bad before", b.get("/logs?before=x"), http.StatusUnprocessableEntity)
	})
}
