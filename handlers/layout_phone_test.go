package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"gateway/models/dbtest"

	"github.com/PuerkitoBio/goquery"
)

// TestLayoutSkipLinkAndMenu: the skip link comes first in the body and leads
// to a main that can take the focus; the nav links sit in a <details> whose
// summary is the menu button; the relative-time script is on every page.
func TestLayoutSkipLinkAndMenu(t *testing.T) {
	ta := newTestApp(t, dbtest.MustOpenStore(t, "", t.TempDir()))
	b := ta.browser(t)
	b.signIn()
	doc := parseHTML(t, b.get("/models"))

	first := doc.Find("body").Children().First()
	if id, _ := first.Attr("data-testid"); id != "skip-link" || first.AttrOr("href", "") != "#content" {
		t.Errorf("first element of the body: %s %q, want the skip link to #content", goquery.NodeName(first), id)
	}
	main := doc.Find("main#content")
	if main.Length() != 1 || main.AttrOr("tabindex", "") != "-1" {
		t.Errorf("main#content: %d found, tabindex %q, want one with tabindex -1", main.Length(), main.AttrOr("tabindex", ""))
	}
	menu := testid(doc, "nav-menu")
	if !menu.Is("details") || menu.Children().First().AttrOr("data-testid", "") != "nav-toggle" || !menu.Children().First().Is("summary") {
		t.Error("the nav has no <details> menu with the toggle as its summary")
	}
	for _, id := range []string{"nav-dashboard", "nav-models", "nav-keys", "nav-sticky", "logout-form"} {
		if testid(menu, id).Length() != 1 {
			t.Errorf("%s is not inside the nav menu", id)
		}
	}

	src, _ := doc.Find(`script[src^="/static/reltime.js"]`).Attr("src")
	if src == "" {
		t.Fatal("reltime.js is not loaded")
	}
	rec := ta.do(t, "GET", src, "", nil)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Header().Get("Content-Type"), "javascript") ||
		!strings.Contains(rec.Body.String(), "data-relative") {
		t.Errorf("GET %s: %d %q", src, rec.Code, rec.Header().Get("Content-Type"))
	}
	login := parseHTML(t, ta.browser(t).get("/login"))
	if login.Find(`[data-testid="skip-link"]`).Length() != 1 || login.Find(`script[src^="/static/reltime.js"]`).Length() != 1 {
		t.Error("the login page lacks the skip link or reltime.js")
	}
}

// TestEveryTableScrolls: every table of every admin page sits in a
// .table-scroll, so that on a phone it scrolls inside its card rather than
// widening the page.
func TestEveryTableScrolls(t *testing.T) {
	e := newRuntimeEnv(t, dbtest.MustOpenStore(t, "", t.TempDir()))
	id := e.entry(t, "gpt-4o", "gpt-4o-2024-08-06", ptr(1.0), true)
	e.reload(t)
	for _, call := range [][2]string{
		{"/api/teams", `{"name":"platform"}`},
		{"/api/users", `{"name":"alex"}`},
		{"/api/sticky", fmt.Sprintf(`{"model_name":"gpt-4o","deployment_id":%d}`, id)},
	} {
		if rec := e.api(t, "POST", call[0], call[1]); rec.Code != http.StatusCreated {
			t.Fatalf("POST %s: %d %s", call[0], rec.Code, rec.Body)
		}
	}
	if status, _ := e.chat(t, "gpt-4o"); status != http.StatusOK {
		t.Fatalf("chat: %d", status)
	}
	b := e.browser(t)
	b.signIn()
	// Pages whose data above gives them a table; the logs may not have
	// their row written yet, so they are checked without a minimum.
	for path, min := range map[string]int{"/": 1, "/models": 1, "/pools/gpt-4o": 1, "/providers": 1, "/keys": 1,
		"/teams": 1, "/users": 1, "/sticky": 1, "/logs": 0, "/audit": 1} {
		rec := b.get(path)
		if rec.Code != http.StatusOK {
			t.Errorf("GET %s: %d", path, rec.Code)
			continue
		}
		tables := parseHTML(t, rec).Find("table")
		if tables.Length() < min {
			t.Errorf("GET %s: %d tables, want at least %d", path, tables.Length(), min)
		}
		if bare := tables.Length() - tables.Filter(".table-scroll > table").Length(); bare > 0 {
			t.Errorf("GET %s: %d of %d tables are not inside a .table-scroll", path, bare, tables.Length())
		}
	}
}
