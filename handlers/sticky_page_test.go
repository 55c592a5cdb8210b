package handlers_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"gateway/models"
	"gateway/models/dbtest"
)

func TestStickyPage(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		e := newRuntimeEnv(t, s)
		a := e.entry(t, "gpt-4o", "gpt-4o-a", ptr(1.0), true)
		other := e.entry(t, "gpt-4o", "gpt-4o-b", ptr(1.0), true)
		wild := e.entry(t, "anthropic/*", "*", nil, true)
		e.entry(t, "off", "x", nil, false)
		e.reload(t)
		ids := func(id int64) string { return strconv.FormatInt(id, 10) }
		b := e.browser(t)
		tok := b.signIn()

		rec := b.get("/sticky")
		wantStatus(t, "GET /sticky", rec, http.StatusOK)
		wantFullPage(t, "GET /sticky", rec)
		doc := parseHTML(t, rec)
		if testid(doc, "no-bindings").Length() != 1 {
			t.Error("no bindings yet, but the page does not say so")
		}
		sel := testid(doc, "input-deployment_id")
		if sel.Find("optgroup").Length() != 2 || sel.Find("option[value]").Length() != 4 {
			t.Errorf("member select: %d groups, %d options; want 2 pools and 3 enabled members (+ the blank)",
				sel.Find("optgroup").Length(), sel.Find("option[value]").Length())
		}
		if doc.Find(`#sticky-models option[value="gpt-4o"]`).Length() != 1 || doc.Find(`#sticky-models option[value="anthropic/*"]`).Length() != 0 {
			t.Error("model suggestions: want the exact names only")
		}

		// The member select narrows to the pool serving the model typed.
		rec = b.do("GET", "/sticky/members?model_name=anthropic/claude-x", nil, hx())
		wantStatus(t, "members", rec, http.StatusOK)
		wantPartial(t, "members", rec)
		doc = parseHTML(t, rec)
		if g := doc.Find("optgroup"); g.Length() != 1 || g.AttrOr("label", "") != "anthropic/*" || doc.Find(`option[value="`+ids(wild)+`"]`).Length() != 1 {
			t.Errorf("members of anthropic/claude-x:\n%s", rec.Body)
		}

		// Refusals land on their fields.
		for _, c := range []struct {
			form  []string
			field string
			want  string
		}{
			{[]string{"model_name", "nope", "deployment_id", ids(a)}, "error-model_name", `no pool serves "nope"`},
			{[]string{"model_name", "anthropic/claude-x", "deployment_id", ids(a)}, "error-deployment_id",
				`deployment ` + ids(a) + ` is not an enabled member of the pool serving "anthropic/claude-x"`},
			{[]string{"model_name", "gpt-4o", "deployment_id", ids(a), "ttl", "forever"}, "error-ttl", "must be a duration such as 30m, 2h or 7d, at most 365d"},
			{[]string{"model_name", "gpt-4o", "deployment_id", ids(a), "ttl", "400d"}, "error-ttl", "must be a duration such as 30m, 2h or 7d, at most 365d"},
			{[]string{"model_name", "", "deployment_id", ""}, "error-model_name", "is required"},
			{[]string{"model_name", "gpt-4o", "deployment_id", ""}, "error-deployment_id", "is required"},
		} {
			rec := b.post("/sticky", formOf(tok, c.form...), nil)
			wantStatus(t, "pin "+strings.Join(c.form, " "), rec, http.StatusUnprocessableEntity)
			wantFullPage(t, "refused pin", rec)
			if got := text(parseHTML(t, rec), c.field); got != c.want {
				t.Errorf("pin %v: %s = %q, want %q", c.form, c.field, got, c.want)
			}
		}
		rec = b.post("/sticky", formOf(tok, "model_name", "nope", "deployment_id", ids(a)), hx())
		wantStatus(t, "refused htmx pin", rec, http.StatusUnprocessableEntity)
		wantPartial(t, "refused htmx pin", rec)
		if !strings.HasPrefix(strings.TrimSpace(rec.Body.String()), "<form") {
			t.Errorf("refused htmx pin is not the form:\n%s", rec.Body)
		}
		if len(e.proxy.StickyBindings()) != 0 {
			t.Fatal("a refused pin bound something")
		}

		wantSeeOther(t, "pin", b.post("/sticky", formOf(tok, "model_name", "gpt-4o", "deployment_id", ids(other), "ttl", "1h"), nil), false, "/sticky")
		wantSeeOther(t, "pin a wildcard name", b.post("/sticky", formOf(tok, "model_name", "anthropic/claude-x", "deployment_id", ids(wild)), hx()), true, "/sticky")
		bs := e.proxy.StickyBindings()
		if len(bs) != 2 || bs[1].ModelName != "gpt-4o" || bs[1].DeploymentID != other || !bs[1].Manual || !bs[1].ExpiresAt.Equal(testNow.Add(time.Hour)) {
			t.Fatalf("bindings: %+v", bs)
		}
		doc = parseHTML(t, b.get("/sticky"))
		row := doc.Find(`[data-testid="binding"][data-model="gpt-4o"]`)
		for id, want := range map[string]string{"binding-deployment": "#" + ids(other) + " fake-openai / gpt-4o-b",
			"binding-kind": "manual pin", "binding-expires": "1 h"} {
			if got := text(row, id); got != want {
				t.Errorf("%s = %q, want %q", id, got, want)
			}
		}
		if got := text(doc.Find(`[data-model="anthropic/claude-x"]`), "binding-expires"); got != "2 h" {
			t.Errorf("default TTL shows %q, want 2 h", got)
		}
		if e.reloader.n.Load() != 0 {
			t.Error("pinning reloaded the routing table")
		}

		wantSeeOther(t, "clear one", b.post("/sticky/clear", formOf(tok, "model_name", "gpt-4o"), hx()), true, "/sticky")
		if bs := e.proxy.StickyBindings(); len(bs) != 1 || bs[0].ModelName != "anthropic/claude-x" {
			t.Errorf("after clearing gpt-4o: %+v", bs)
		}
		wantSeeOther(t, "clear one already gone", b.post("/sticky/clear", formOf(tok, "model_name", "gpt-4o"), nil), false, "/sticky")
		wantSeeOther(t, "clear all", b.post("/sticky/clear-all", formOf(tok), nil), false, "/sticky")
		if bs := e.proxy.StickyBindings(); len(bs) != 0 {
			t.Errorf("after clear all: %+v", bs)
		}
	})
}

func TestStickyPageAutoBinding(t *testing.T) {
	s := dbtest.MustOpenStore(t, "", t.TempDir())
	e := newRuntimeEnv(t, s)
	id := e.entry(t, "gpt-4o", "gpt-4o-a", ptr(1.0), true)
	if rec := e.api(t, "PUT", "/api/pools/gpt-4o", `{"sticky_ttl_seconds":1800}`); rec.Code != http.StatusOK {
		t.Fatalf("pool setting: %d %s", rec.Code, rec.Body)
	}
	if status, _ := e.chat(t, "gpt-4o"); status != http.StatusOK {
		t.Fatalf("chat: %d", status)
	}
	b := e.browser(t)
	b.signIn()
	row := parseHTML(t, b.get("/sticky")).Find(`[data-testid="binding"][data-model="gpt-4o"]`)
	if text(row, "binding-kind") != "auto" || text(row, "binding-expires") != "30 min" ||
		!strings.HasPrefix(text(row, "binding-deployment"), "#"+strconv.FormatInt(id, 10)) {
		t.Errorf("automatic binding row: %s", row.Text())
	}
}

func TestStickyPageWithoutProxy(t *testing.T) {
	ta := newTestApp(t, dbtest.MustOpenStore(t, "", t.TempDir()))
	b := ta.browser(t)
	tok := b.signIn()
	rec := b.get("/sticky")
	wantStatus(t, "GET /sticky", rec, http.StatusOK)
	if testid(parseHTML(t, rec), "sticky-unavailable").Length() != 1 {
		t.Error("without a proxy the page must say so")
	}
	for _, path := range []string{"/sticky", "/sticky/clear", "/sticky/clear-all"} {
		wantStatus(t, "POST "+path, b.post(path, formOf(tok, "model_name", "m", "deployment_id", "1"), nil), http.StatusServiceUnavailable)
	}
}
