package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"gateway/models"
	"gateway/models/dbtest"
)

// changeOf is one row's change of field: "before → after", "→ after" for a
// new field, "before →" for a gone one.
func changeOf(row finder, field string) string {
	li := row.Find(`[data-testid="audit-change"][data-field="` + field + `"]`)
	if li.Length() == 0 {
		return "(none)"
	}
	before, after := testid(li, "change-before"), testid(li, "change-after")
	out := ""
	if before.Length() > 0 {
		out = before.Text() + " "
	}
	out += "→"
	if after.Length() > 0 {
		out += " " + after.Text()
	}
	return out
}

// TestAuditPage: the Audit page lists the changes newest first with who
// made them, filters them by actor, kind and the changed thing, and shows
// an update's changed fields alone, a create's new fields and a delete's
// old ones; the Models page links each entry to its history.
func TestAuditPage(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		ids, _ := auditWrites(t, ta)
		b := ta.browser(t)
		tok := b.signIn()
		// A change through the app, by the signed-in admin.
		rec := b.post("/models/"+ids["model"]+"/weight", url.Values{"weight": {"0.5"}, "csrf_token": {tok}}, hxHeader.Clone())
		wantStatus(t, "set the weight on the Models page", rec, http.StatusOK)

		rec = b.get("/audit")
		wantStatus(t, "GET /audit", rec, http.StatusOK)
		wantFullPage(t, "GET /audit", rec)
		doc := parseHTML(t, rec)
		rows := testid(doc, "audit-entry")
		if rows.Length() != 13 {
			t.Fatalf("%d rows, want 13", rows.Length())
		}
		newest := rows.Eq(0)
		if text(newest, "audit-actor") != "admin via app" || text(newest, "audit-action") != "update" ||
			text(newest, "audit-kind") != "model_entry" || text(newest, "audit-name") != "gpt-4o" {
			t.Errorf("newest row: %q %q %q %q", text(newest, "audit-actor"), text(newest, "audit-action"),
				text(newest, "audit-kind"), text(newest, "audit-name"))
		}
		history := "/audit?id=" + ids["model"] + "&kind=model_entry"
		if href, _ := testid(newest, "audit-name").Attr("href"); href != history {
			t.Errorf("the name links to %q, want %q", href, history)
		}
		// An update shows only what changed.
		if got := changeOf(newest, "weight"); got != "2 → 0.5" {
			t.Errorf("weight change %q, want 2 → 0.5", got)
		}
		if n := testid(newest, "audit-change").Length(); n != 1 {
			t.Errorf("the weight's update shows %d fields, want 1: %s", n, text(newest, "audit-changes"))
		}
		if text(rows.Eq(1), "audit-actor") != "master key via api" {
			t.Errorf("second row by %q", text(rows.Eq(1), "audit-actor"))
		}
		// A delete shows the old fields, a create the new ones; lists as JSON.
		keyDelete := rows.Eq(1)
		if text(keyDelete, "audit-action") != "delete" || changeOf(keyDelete, "name") != "ci →" {
			t.Errorf("key delete: %q, name %q", text(keyDelete, "audit-action"), changeOf(keyDelete, "name"))
		}
		fallbacks := rows.Eq(6)
		if text(fallbacks, "audit-kind") != "fallbacks" || changeOf(fallbacks, "targets") != `→ ["cheap","cheaper"]` {
			t.Errorf("fallbacks create: %q, targets %q", text(fallbacks, "audit-kind"), changeOf(fallbacks, "targets"))
		}
		created := rows.Eq(9)
		if changeOf(created, "public_name") != "→ gpt-4o" || changeOf(created, "weight") != "→ 1" {
			t.Errorf("model entry create: %q, %q", changeOf(created, "public_name"), changeOf(created, "weight"))
		}

		// The filters offer every actor and kind.
		filter := testid(doc, "audit-filter")
		for _, actor := range []string{"admin", "master key", "system"} {
			if filter.Find(`select[name="actor"] option[value="`+actor+`"]`).Length() != 1 {
				t.Errorf("the actor filter does not offer %q", actor)
			}
		}
		if n := filter.Find(`select[name="kind"] option`).Length(); n != len(models.AuditKinds)+1 {
			t.Errorf("the kind filter offers %d options, want every kind and anything", n)
		}
		for _, c := range []struct {
			query string
			want  int
		}{
			{"actor=admin", 1}, {"actor=master+key", 11}, {"kind=model_entry", 3}, {"kind=model_entry&id=" + ids["model"], 3},
			{"kind=model_entry&id=" + ids["model"] + "&actor=admin", 1}, {"kind=key", 2}, {"actor=nobody", 0},
		} {
			rec := b.get("/audit?" + c.query)
			wantStatus(t, c.query, rec, http.StatusOK)
			if got := testid(parseHTML(t, rec), "audit-entry").Length(); got != c.want {
				t.Errorf("?%s: %d rows, want %d", c.query, got, c.want)
			}
		}
		doc = parseHTML(t, b.get(history))
		if v, _ := doc.Find(`select[name="kind"] option[selected]`).Attr("value"); v != "model_entry" {
			t.Errorf("the kind filter is not kept: %q", v)
		}
		if v, _ := testid(doc, "filter-id").Attr("value"); v != ids["model"] {
			t.Errorf("the id filter is not kept: %q", v)
		}
		if got := text(doc, "audit-history"); !strings.Contains(got, "model_entry "+ids["model"]) {
			t.Errorf("the history says %q", got)
		}

		// htmx gets the content alone.
		rec = b.do(http.MethodGet, "/audit?kind=key", nil, hxHeader)
		wantStatus(t, "htmx filter", rec, http.StatusOK)
		wantPartial(t, "htmx filter", rec)
		if testid(parseHTML(t, rec), "audit-entry").Length() != 2 {
			t.Error("an htmx filter gets the wrong rows")
		}

		// Bad filters are shown on the form, 422.
		rec = b.get("/audit?kind=nope")
		wantStatus(t, "a bad kind", rec, http.StatusUnprocessableEntity)
		if doc := parseHTML(t, rec); !strings.Contains(text(doc, "error-kind"), "must be one of") || testid(doc, "audit-entry").Length() != 0 {
			t.Errorf("a bad kind: %q", text(doc, "error-kind"))
		}
		rec = b.get("/audit?before=x")
		wantStatus(t, "a broken page link", rec, http.StatusUnprocessableEntity)
		if got := text(parseHTML(t, rec), "form-error"); !strings.Contains(got, "page link is broken") {
			t.Errorf("a broken page link says %q", got)
		}

		// One change's page: every field, the changed ones marked.
		id, _ := newest.Attr("data-audit-id")
		rec = b.get("/audit/" + id)
		wantStatus(t, "GET /audit/{id}", rec, http.StatusOK)
		doc = parseHTML(t, rec)
		weight := doc.Find(`[data-testid="detail-field"][data-field="weight"]`)
		if !weight.HasClass("changed") || text(weight, "detail-before") != "2" || text(weight, "detail-after") != "0.5" {
			t.Errorf("detail of the weight: %q → %q", text(weight, "detail-before"), text(weight, "detail-after"))
		}
		if name := doc.Find(`[data-testid="detail-field"][data-field="public_name"]`); name.HasClass("changed") || text(name, "detail-after") != "gpt-4o" {
			t.Error("an unchanged field is marked, or missing")
		}
		wantStatus(t, "GET /audit/999999", b.get("/audit/999999"), http.StatusNotFound)

		// The Models page links each entry to its history (TestPoolStatusPage
		// checks the pool's link).
		doc = parseHTML(t, b.get("/models"))
		if href, _ := testid(doc, "entry-history").Attr("href"); href != history {
			t.Errorf("the entry's History link is %q, want %q", href, history)
		}
		// And each pool's fallback lists to theirs: the list set above, then
		// this change to it.
		if err := s.SetFallbacks(context.Background(), "gpt-4o", models.FallbackGeneral, []string{"gpt-4o-mini"}); err != nil {
			t.Fatal(err)
		}
		doc = parseHTML(t, b.get("/models"))
		link, _ := doc.Find(`[data-public-name="gpt-4o"] [data-testid="fallbacks-history"]`).Attr("href")
		if link != "/audit?id=gpt-4o&kind=fallbacks" {
			t.Fatalf("the fallbacks' History link is %q", link)
		}
		fallbackRows := testid(parseHTML(t, b.get(link)), "audit-entry")
		if fallbackRows.Length() != 2 || !strings.Contains(fallbackRows.First().Text(), `["gpt-4o-mini"]`) {
			t.Errorf("the fallbacks' history: %d rows: %q", fallbackRows.Length(), strings.Join(strings.Fields(fallbackRows.Text()), " "))
		}
	})
}

// TestAuditPagePaging: 50 changes a page, the Older link below the last,
// and Newest back.
func TestAuditPagePaging(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		for i := range 60 {
			e := models.AuditEntry{CreatedAt: time.Now().UTC(), Actor: "bob", Via: "app", Action: models.ActionUpdate,
				Kind: models.AuditSettings, Name: "settings", Before: `{"n":"` + string(rune('a'+i%26)) + `"}`, After: `{"n":"z"}`}
			if err := s.DB().WithContext(context.Background()).Create(&e).Error; err != nil {
				t.Fatal(err)
			}
		}
		b := ta.browser(t)
		b.signIn()
		doc := parseHTML(t, b.get("/audit?actor=bob"))
		if n := testid(doc, "audit-entry").Length(); n != 50 {
			t.Fatalf("first page: %d rows, want 50", n)
		}
		if testid(doc, "audit-newest").Length() != 0 {
			t.Error("the first page links to the newest")
		}
		older, _ := testid(doc, "audit-older").Attr("href")
		last, _ := testid(doc, "audit-entry").Last().Attr("data-audit-id")
		if older != "/audit?actor=bob&before="+last {
			t.Fatalf("Older links to %q, want below %s with the filter", older, last)
		}
		doc = parseHTML(t, b.get(older))
		if n := testid(doc, "audit-entry").Length(); n != 10 {
			t.Errorf("second page: %d rows, want 10", n)
		}
		if testid(doc, "audit-older").Length() != 0 {
			t.Error("the last page links to an older one")
		}
		if href, _ := testid(doc, "audit-newest").Attr("href"); href != "/audit?actor=bob" {
			t.Errorf("Newest links to %q", href)
		}
	})
}
