package handlers_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"gateway/models"
	"gateway/models/dbtest"
	"gateway/proxy"
)

// Tests of the Models page's groups and inline edits, and of the pool status
// page. Helpers here are prefixed "mp" so as not to collide with other pages'.

// mpTestAppWithProxy is newTestApp with a proxy over s as its runtime state
// (reloaded by every write), for pages that show shares.
func mpTestAppWithProxy(t *testing.T, s *models.Store) *testApp {
	t.Helper()
	rt := proxy.New(s, proxy.Options{})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := rt.Close(ctx); err != nil {
			t.Errorf("close proxy: %v", err)
		}
	})
	return newTestAppWith(t, s, rt)
}

// mpHTMX posts form as htmx does: HX-Request and the CSRF token as a header.
func mpHTMX(b *browser, path, tok string, form url.Values) *httptest.ResponseRecorder {
	b.t.Helper()
	h := http.Header{"Hx-Request": {"true"}}
	if tok != "" {
		h.Set("X-Csrf-Token", tok)
	}
	return b.post(path, form, h)
}

// mpGroup is the group of one public name in a page or partial.
func mpGroup(doc finder, name string) *goquery.Selection {
	return doc.Find(`[data-testid="pool"][data-public-name="` + name + `"]`)
}

// mpShares is each entry's planned share in a group, by entry id.
func mpShares(g *goquery.Selection) map[string]string {
	out := map[string]string{}
	g.Find(`[data-testid="entry"]`).Each(func(_ int, e *goquery.Selection) {
		id, _ := e.Attr("data-entry-id")
		out[id] = strings.TrimSpace(testid(e, "entry-share-value").Text())
	})
	return out
}

func mpID(id int64) string { return strconv.FormatInt(id, 10) }

func wantMap(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s = %v, want %v", what, got, want)
		return
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", what, got, want)
			return
		}
	}
}

func TestModelsPageGroups(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		e := newRuntimeEnv(t, s)
		a := e.entry(t, "team", "up-a", ptr(1.0), true)
		b := e.entry(t, "team", "up-b", ptr(3.0), true)
		c := e.entry(t, "team", "up-c", nil, true)
		off := e.entry(t, "team", "up-off", ptr(5.0), false)
		e.entry(t, "zeros", "z1", ptr(0.0), true)
		e.entry(t, "zeros", "z2", nil, true)
		e.entry(t, "zero-and-one", "z1", ptr(0.0), true)
		e.entry(t, "zero-and-one", "z2", ptr(1.0), true)
		e.entry(t, "lonely-zero", "z1", ptr(0.0), true)
		e.entry(t, "openai/gpt-4o", "gpt-4o", nil, true)
		e.entry(t, "anthropic/claude", "claude", nil, true)
		e.entry(t, "anthropic/*", "*", nil, true)
		e.entry(t, "retired", "old", nil, false)
		if err := s.SetFallbacks(context.Background(), "team", models.FallbackGeneral, []string{"zeros", "nowhere", "anthropic/opus"}); err != nil {
			t.Fatal(err)
		}
		if err := s.SetFallbacks(context.Background(), "*", models.FallbackContextWindow, []string{"team"}); err != nil {
			t.Fatal(err)
		}
		e.reload(t)
		br := e.browser(t)
		br.signIn()
		doc := parseHTML(t, br.get("/models"))

		team := mpGroup(doc, "team")
		if got := testid(team, "pool-member-count").Text(); got != "4 members" {
			t.Errorf("team: %q, want 4 members", got)
		}
		// Planned shares by the router's rule: 1:3 among the weighted, unset
		// and disabled get nothing.
		wantMap(t, "team shares", mpShares(team), map[string]string{mpID(a): "25%", mpID(b): "75%", mpID(c): "0%", mpID(off): "0%"})
		if href, _ := testid(team, "pool-status-link").Attr("href"); href != "/pools/team" {
			t.Errorf("status link = %q", href)
		}
		if got := strings.TrimSpace(testid(team.Find(`[data-entry-id="`+mpID(off)+`"]`), "entry-enabled").Text()); got != "disabled" {
			t.Errorf("disabled entry shows %q", got)
		}
		if got := strings.TrimSpace(testid(team.Find(`[data-entry-id="`+mpID(c)+`"]`), "entry-weight").Text()); got != "unset" {
			t.Errorf("unset weight shows %q", got)
		}
		if v, _ := testid(team.Find(`[data-entry-id="`+mpID(c)+`"]`), "weight-input").Attr("value"); v != "" {
			t.Errorf("unset weight's input = %q, want empty", v)
		}
		if v, _ := testid(team.Find(`[data-entry-id="`+mpID(b)+`"]`), "weight-input").Attr("value"); v != "3" {
			t.Errorf("weight input = %q, want 3", v)
		}
		for _, id := range []string{"pool-zero-weight-warning", "pool-prefix-note", "pool-not-served"} {
			if testid(team, id).Length() != 0 {
				t.Errorf("team shows %s", id)
			}
		}

		// Fallbacks: three kinds in order, targets in order, unknown ones marked.
		kinds := testid(team, "fallback").Map(func(_ int, s *goquery.Selection) string { k, _ := s.Attr("data-kind"); return k })
		if strings.Join(kinds, ",") != "general,context_window,content_policy" {
			t.Errorf("fallback kinds %v", kinds)
		}
		general := team.Find(`[data-testid="fallback"][data-kind="general"]`)
		targets := testid(general, "fallback-target").Map(func(_ int, s *goquery.Selection) string { return s.Find("code").Text() })
		if strings.Join(targets, ",") != "zeros,nowhere,anthropic/opus" {
			t.Errorf("general fallbacks %v", targets)
		}
		if unknown := testid(general, "fallback-target").FilterFunction(func(_ int, s *goquery.Selection) bool {
			return strings.Contains(s.Text(), "no such pool")
		}).Find("code").Text(); unknown != "nowhere" {
			t.Errorf("targets marked unknown: %q, want nowhere only (anthropic/opus is served by the wildcard)", unknown)
		}
		if v, _ := testid(general, "fallback-input").Attr("value"); v != "zeros, nowhere, anthropic/opus" {
			t.Errorf("general fallback input = %q", v)
		}
		if testid(team.Find(`[data-kind="content_policy"]`), "fallback-none").Length() != 1 {
			t.Error("an empty list does not say none")
		}
		defaults := testid(doc, "default-fallbacks")
		if defaults.Length() != 1 || strings.TrimSpace(testid(defaults.Find(`[data-kind="context_window"]`), "fallback-target").Text()) != "team" {
			t.Errorf("default fallbacks: %q", defaults.Text())
		}

		// The zero-weight trap: all 0 or unset, one explicitly 0, in a pool of two
		// or more: shares are uniform, so the parked member is picked as often.
		if testid(mpGroup(doc, "zeros"), "pool-zero-weight-warning").Length() != 1 {
			t.Error("zeros (0 and unset) has no warning")
		}
		wantMap(t, "zeros shares", mpShares(mpGroup(doc, "zeros")), map[string]string{
			testAttr(mpGroup(doc, "zeros"), "entry", 0): "50%", testAttr(mpGroup(doc, "zeros"), "entry", 1): "50%"})
		for _, name := range []string{"zero-and-one", "lonely-zero", "team"} {
			if testid(mpGroup(doc, name), "pool-zero-weight-warning").Length() != 0 {
				t.Errorf("%s warns of all-zero weights", name)
			}
		}

		// A prefix without a wildcard route.
		note := testid(mpGroup(doc, "openai/gpt-4o"), "pool-prefix-note")
		if !strings.Contains(note.Text(), "openai/") || !strings.Contains(note.Text(), "openai/*") {
			t.Errorf("openai/gpt-4o prefix note = %q", note.Text())
		}
		for _, name := range []string{"anthropic/claude", "anthropic/*"} {
			if testid(mpGroup(doc, name), "pool-prefix-note").Length() != 0 {
				t.Errorf("%s has a prefix note although anthropic/* exists", name)
			}
		}
		wild := mpGroup(doc, "anthropic/*")
		if href, _ := testid(wild, "pool-status-link").Attr("href"); href != "/pools/anthropic%2F%2A" {
			t.Errorf("wildcard status link = %q", href)
		}
		if testid(mpGroup(doc, "retired"), "pool-not-served").Length() != 1 {
			t.Error("a name without enabled entries is not marked as not served")
		}
		if n := e.up.calls.Load(); n != 0 {
			t.Errorf("the Models page called the upstream %d times", n)
		}
	})
}

// testAttr is the data-entry-id of the i-th element with testid in g.
func testAttr(g *goquery.Selection, id string, i int) string {
	v, _ := testid(g, id).Eq(i).Attr("data-entry-id")
	return v
}

func TestInlineWeightEdit(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		e := newRuntimeEnv(t, s)
		a := e.entry(t, "team", "up-a", ptr(1.0), true)
		b := e.entry(t, "team", "up-b", ptr(1.0), true)
		e.reload(t)
		br := e.browser(t)
		tok := br.signIn()
		path := "/models/" + mpID(b) + "/weight"
		reloads := e.reloader.n.Load()

		// htmx: the whole group comes back, every share updated.
		rec := mpHTMX(br, path, tok, url.Values{"weight": {"9"}})
		if rec.Code != http.StatusOK || !strings.HasPrefix(strings.TrimSpace(rec.Body.String()), "<section") {
			t.Fatalf("weight 9: %d, want 200 with the group alone:\n%s", rec.Code, rec.Body)
		}
		if !strings.Contains(rec.Header().Get("Vary"), "HX-Request") {
			t.Error("partial without Vary: HX-Request")
		}
		doc := parseHTML(t, rec)
		wantMap(t, "shares after weight 9", mpShares(mpGroup(doc, "team")), map[string]string{mpID(a): "10%", mpID(b): "90%"})
		if got := e.reloader.n.Load() - reloads; got != 1 {
			t.Errorf("reloads = %d, want 1", got)
		}
		if d, _ := s.GetDeployment(context.Background(), b); d.Weight == nil || *d.Weight != 9 {
			t.Errorf("stored weight = %v", d.Weight)
		}

		// 0 is stored as 0, not lost; empty is unset.
		for _, c := range []struct {
			value, shown string
			want         *float64
			shares       map[string]string
		}{
			{"0", "0", ptr(0.0), map[string]string{mpID(a): "100%", mpID(b): "0%"}},
			{" ", "unset", nil, map[string]string{mpID(a): "100%", mpID(b): "0%"}},
		} {
			rec := mpHTMX(br, path, tok, url.Values{"weight": {c.value}})
			doc := parseHTML(t, rec)
			row := mpGroup(doc, "team").Find(`[data-entry-id="` + mpID(b) + `"]`)
			if got := strings.TrimSpace(testid(row, "entry-weight").Text()); rec.Code != 200 || got != c.shown {
				t.Errorf("weight %q: %d, shows %q, want %q", c.value, rec.Code, got, c.shown)
			}
			wantMap(t, "shares after weight "+c.value, mpShares(mpGroup(doc, "team")), c.shares)
			d, _ := s.GetDeployment(context.Background(), b)
			if (d.Weight == nil) != (c.want == nil) || (d.Weight != nil && *d.Weight != *c.want) {
				t.Errorf("weight %q stored as %v", c.value, d.Weight)
			}
		}

		// Bad input: the group again, 422, the error and what was typed at the row.
		reloads = e.reloader.n.Load()
		for value, msg := range map[string]string{"-1": "must be 0 or more", "heavy": "must be a number"} {
			rec := mpHTMX(br, path, tok, url.Values{"weight": {value}})
			if rec.Code != http.StatusUnprocessableEntity {
				t.Fatalf("weight %q: %d, want 422", value, rec.Code)
			}
			row := mpGroup(parseHTML(t, rec), "team").Find(`[data-entry-id="` + mpID(b) + `"]`)
			if got := testid(row, "weight-error").Text(); got != msg {
				t.Errorf("weight %q: error %q, want %q", value, got, msg)
			}
			input := testid(row, "weight-input")
			if v, _ := input.Attr("value"); v != value {
				t.Errorf("typed weight not kept: %q", v)
			}
			if _, open := row.Find("details").Attr("open"); !open {
				t.Error("the weight form with an error is not open")
			}
		}
		if d, _ := s.GetDeployment(context.Background(), b); d.Weight != nil {
			t.Errorf("a refused weight was stored: %v", *d.Weight)
		}
		if e.reloader.n.Load() != reloads {
			t.Error("a refused weight reloaded the routing table")
		}

		// Without htmx: 303 back, or the whole page with the error in place.
		rec = br.post(path, url.Values{"csrf_token": {tok}, "weight": {"2"}}, nil)
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/models" {
			t.Errorf("form post: %d to %q, want 303 to /models", rec.Code, rec.Header().Get("Location"))
		}
		rec = br.post(path, url.Values{"csrf_token": {tok}, "weight": {"-2"}}, nil)
		doc = parseHTML(t, rec)
		if rec.Code != http.StatusUnprocessableEntity || testid(doc, "nav").Length() != 1 || testid(doc, "weight-error").Text() != "must be 0 or more" {
			t.Errorf("invalid form post: %d, want 422 with the page and the error:\n%s", rec.Code, rec.Body)
		}

		if rec := mpHTMX(br, "/models/99999/weight", tok, url.Values{"weight": {"1"}}); rec.Code != http.StatusNotFound {
			t.Errorf("unknown entry: %d, want 404", rec.Code)
		}
		if rec := mpHTMX(br, "/models/x/weight", tok, url.Values{"weight": {"1"}}); rec.Code != http.StatusNotFound {
			t.Errorf("bad id: %d, want 404", rec.Code)
		}
	})
}

func TestInlineEnableAndDelete(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		e := newRuntimeEnv(t, s)
		a := e.entry(t, "team", "up-a", ptr(1.0), true)
		b := e.entry(t, "team", "up-b", ptr(3.0), true)
		solo := e.entry(t, "solo", "up-s", nil, true)
		if err := s.SaveHealthCheck(context.Background(), &models.HealthCheck{DeploymentID: b, OK: true}); err != nil {
			t.Fatal(err)
		}
		e.reload(t)
		br := e.browser(t)
		tok := br.signIn()

		rec := mpHTMX(br, "/models/"+mpID(b)+"/enabled", tok, url.Values{"enabled": {"false"}})
		g := mpGroup(parseHTML(t, rec), "team")
		if rec.Code != http.StatusOK || strings.TrimSpace(testid(g.Find(`[data-entry-id="`+mpID(b)+`"]`), "entry-enabled").Text()) != "disabled" {
			t.Fatalf("disable: %d\n%s", rec.Code, rec.Body)
		}
		wantMap(t, "shares with b disabled", mpShares(g), map[string]string{mpID(a): "100%", mpID(b): "0%"})
		if got := strings.TrimSpace(testid(g.Find(`[data-entry-id="`+mpID(b)+`"]`), "entry-toggle").Text()); got != "Enable" {
			t.Errorf("toggle of a disabled entry says %q", got)
		}
		if _, servedBy := e.chat(t, "team"); servedBy != mpID(a) {
			t.Errorf("after disabling b the proxy served from %q, want a at once", servedBy)
		}
		rec = mpHTMX(br, "/models/"+mpID(b)+"/enabled", tok, url.Values{"enabled": {"true"}})
		wantMap(t, "shares with b enabled", mpShares(mpGroup(parseHTML(t, rec), "team")), map[string]string{mpID(a): "25%", mpID(b): "75%"})
		if rec := mpHTMX(br, "/models/"+mpID(b)+"/enabled", tok, url.Values{"enabled": {"maybe"}}); rec.Code != http.StatusBadRequest {
			t.Errorf("enabled=maybe: %d, want 400", rec.Code)
		}
		rec = br.post("/models/"+mpID(b)+"/enabled", url.Values{"csrf_token": {tok}, "enabled": {"true"}}, nil)
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/models" {
			t.Errorf("toggle without htmx: %d %q", rec.Code, rec.Header().Get("Location"))
		}

		// Delete one of two: the group with one member; its check goes too.
		rec = mpHTMX(br, "/models/"+mpID(b)+"/delete", tok, nil)
		g = mpGroup(parseHTML(t, rec), "team")
		if rec.Code != http.StatusOK || testid(g, "entry").Length() != 1 || testid(g, "pool-member-count").Text() != "1 member" {
			t.Fatalf("delete b: %d\n%s", rec.Code, rec.Body)
		}
		wantMap(t, "shares after deleting b", mpShares(g), map[string]string{mpID(a): "100%"})
		if hs, _ := s.ListHealthChecks(context.Background()); len(hs) != 0 {
			t.Errorf("the deleted entry's health check is left: %+v", hs)
		}
		// Delete the last of a name: the group is removed from the page.
		rec = mpHTMX(br, "/models/"+mpID(solo)+"/delete", tok, nil)
		if rec.Code != http.StatusOK || rec.Header().Get("HX-Reswap") != "delete" || strings.TrimSpace(rec.Body.String()) != "" {
			t.Errorf("delete the last entry: %d HX-Reswap %q body %q", rec.Code, rec.Header().Get("HX-Reswap"), rec.Body)
		}
		if rec := mpHTMX(br, "/models/"+mpID(solo)+"/delete", tok, nil); rec.Code != http.StatusNotFound {
			t.Errorf("delete again: %d, want 404", rec.Code)
		}
		rec = br.post("/models/"+mpID(a)+"/delete", url.Values{"csrf_token": {tok}}, nil)
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/models" {
			t.Errorf("delete without htmx: %d %q", rec.Code, rec.Header().Get("Location"))
		}
		entryCount(0)(t, s)
		if status, _ := e.chat(t, "team"); status != http.StatusNotFound {
			t.Errorf("chat to a deleted pool: %d, want 404", status)
		}
	})
}

func TestFallbacksForm(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		e := newRuntimeEnv(t, s)
		e.entry(t, "team", "up-a", nil, true)
		e.entry(t, "backup", "up-b", nil, true)
		e.entry(t, "other", "up-c", nil, true)
		e.reload(t)
		br := e.browser(t)
		tok := br.signIn()
		set := func(name, kind, targets string) *httptest.ResponseRecorder {
			return mpHTMX(br, "/models/fallbacks", tok, url.Values{"public_name": {name}, "kind": {kind}, "targets": {targets}})
		}
		targetsOf := func(rec *httptest.ResponseRecorder, name, kind string) string {
			g := parseHTML(t, rec).Find(`[data-public-name="` + name + `"]`)
			l := g.Find(`[data-testid="fallback"][data-kind="` + kind + `"]`)
			return strings.Join(testid(l, "fallback-target").Map(func(_ int, s *goquery.Selection) string { return s.Find("code").Text() }), ",")
		}
		stored := func(name, kind string) string {
			fs, err := s.ListFallbacks(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, f := range fs {
				if f.PublicName == name && f.Kind == kind {
					out = append(out, f.Target)
				}
			}
			return strings.Join(out, ",")
		}

		rec := set("team", "general", " backup, other ,")
		if rec.Code != http.StatusOK || targetsOf(rec, "team", "general") != "backup,other" || stored("team", "general") != "backup,other" {
			t.Fatalf("set: %d, shows %q, stored %q", rec.Code, targetsOf(rec, "team", "general"), stored("team", "general"))
		}
		// Reorder by editing the list, one per line.
		rec = set("team", "general", "other\r\nbackup\n")
		if got := targetsOf(rec, "team", "general"); got != "other,backup" || stored("team", "general") != "other,backup" {
			t.Errorf("reorder: shows %q, stored %q", got, stored("team", "general"))
		}
		rec = set("team", "content_policy", "backup")
		if targetsOf(rec, "team", "content_policy") != "backup" || targetsOf(rec, "team", "general") != "other,backup" {
			t.Error("setting one kind changed another")
		}

		// Bad lists come back in place with what was typed; nothing changes.
		for targets, msg := range map[string]string{
			"backup, team":   `"team" cannot fall back to itself`,
			"backup, backup": `"backup" is listed twice`,
			"a b":            `"a b" must have no spaces`,
			"x*y":            `"x*y" must have no spaces, and * only as its last character`,
		} {
			rec := set("team", "general", targets)
			if rec.Code != http.StatusUnprocessableEntity {
				t.Errorf("%q: %d, want 422", targets, rec.Code)
				continue
			}
			l := parseHTML(t, rec).Find(`[data-public-name="team"] [data-kind="general"]`)
			if got := testid(l, "fallback-error").Text(); !strings.Contains(got, msg) {
				t.Errorf("%q: error %q, want %q", targets, got, msg)
			}
			if v, _ := testid(l, "fallback-input").Attr("value"); v != targets {
				t.Errorf("%q: typed value not kept: %q", targets, v)
			}
		}
		if stored("team", "general") != "other,backup" {
			t.Errorf("a refused list changed the stored one: %q", stored("team", "general"))
		}

		// An empty list removes it.
		rec = set("team", "general", "")
		if testid(parseHTML(t, rec).Find(`[data-public-name="team"] [data-kind="general"]`), "fallback-none").Length() != 1 || stored("team", "general") != "" {
			t.Errorf("empty list: %q stored", stored("team", "general"))
		}
		// The defaults of every pool.
		rec = set("*", "general", "backup")
		if rec.Code != http.StatusOK || testid(parseHTML(t, rec), "default-fallbacks").Length() != 1 || stored("*", "general") != "backup" {
			t.Errorf("defaults: %d\n%s", rec.Code, rec.Body)
		}
		// The hidden fields are the form's own: wrong ones are a bad request.
		for _, bad := range []url.Values{
			{"public_name": {"team"}, "kind": {"sometimes"}, "targets": {"backup"}},
			{"public_name": {"a b"}, "kind": {"general"}, "targets": {"backup"}},
		} {
			if rec := mpHTMX(br, "/models/fallbacks", tok, bad); rec.Code != http.StatusBadRequest {
				t.Errorf("%v: %d, want 400", bad, rec.Code)
			}
		}
		// Without htmx.
		rec = br.post("/models/fallbacks", url.Values{"csrf_token": {tok}, "public_name": {"team"}, "kind": {"general"}, "targets": {"other"}}, nil)
		if rec.Code != http.StatusSeeOther || stored("team", "general") != "other" {
			t.Errorf("form post: %d, stored %q", rec.Code, stored("team", "general"))
		}
		rec = br.post("/models/fallbacks", url.Values{"csrf_token": {tok}, "public_name": {"team"}, "kind": {"general"}, "targets": {"team"}}, nil)
		if doc := parseHTML(t, rec); rec.Code != http.StatusUnprocessableEntity || testid(doc, "nav").Length() != 1 ||
			!strings.Contains(testid(doc, "fallback-error").Text(), "cannot fall back to itself") {
			t.Errorf("invalid form post: %d\n%s", rec.Code, rec.Body)
		}
		// The proxy uses the new list at once.
		e.entry(t, "limited", rateLimitedModel, nil, true)
		e.reload(t)
		set("limited", "general", "backup")
		if status, servedBy := e.chat(t, "limited"); status != http.StatusOK || servedBy == "" {
			t.Errorf("limited with a fallback: %d from %q, want 200 from backup", status, servedBy)
		}
	})
}

// TestModelsPageFormsNeedCSRFAndSignIn: every new form and partial refuses
// a request without the CSRF token (403) and sends a signed-out visitor to
// the login page.
func TestModelsPageFormsNeedCSRFAndSignIn(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		e := newRuntimeEnv(t, s)
		id := mpID(e.entry(t, "team", "up-a", ptr(1.0), true))
		e.reload(t)
		posts := []struct {
			path string
			form url.Values
		}{
			{"/models/" + id + "/weight", url.Values{"weight": {"5"}}},
			{"/models/" + id + "/enabled", url.Values{"enabled": {"false"}}},
			{"/models/" + id + "/delete", nil},
			{"/models/fallbacks", url.Values{"public_name": {"team"}, "kind": {"general"}, "targets": {"x"}}},
			{"/pools/team/check", nil},
		}
		br := e.browser(t)
		br.signIn()
		for _, p := range posts {
			for name, h := range map[string]http.Header{
				"form":             nil,
				"htmx":             {"Hx-Request": {"true"}},
				"htmx wrong token": {"Hx-Request": {"true"}, "X-Csrf-Token": {"not-the-token"}},
			} {
				if rec := br.post(p.path, p.form, h); rec.Code != http.StatusForbidden {
					t.Errorf("%s without CSRF (%s): %d, want 403", p.path, name, rec.Code)
				}
			}
		}
		if d, err := s.GetDeployment(context.Background(), 1); err != nil || !d.Enabled || d.Weight == nil || *d.Weight != 1 {
			t.Errorf("a refused request changed the entry: %+v %v", d, err)
		}
		if e.up.calls.Load() != 0 {
			t.Error("a refused Check now called the upstream")
		}

		out := e.browser(t)
		for _, path := range []string{"/pools/team", "/pools/anthropic%2F%2A", "/pools/nope"} {
			if rec := out.get(path); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != loginFor(path) {
				t.Errorf("signed out GET %s: %d %q, want 303 to %s", path, rec.Code, rec.Header().Get("Location"), loginFor(path))
			}
		}
		for _, p := range posts {
			rec := out.post(p.path, p.form, nil)
			if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/login" {
				t.Errorf("signed out POST %s: %d, want 303 to /login", p.path, rec.Code)
			}
			rec = out.post(p.path, p.form, http.Header{"Hx-Request": {"true"}})
			if rec.Code != http.StatusUnauthorized || rec.Header().Get("HX-Redirect") != "/login" {
				t.Errorf("signed out htmx POST %s: %d, want 401 with HX-Redirect", p.path, rec.Code)
			}
		}
		if rec := e.do(t, "POST", "/api/pools/team/check", "", nil); rec.Code != http.StatusUnauthorized {
			t.Errorf("API check without credentials: %d, want 401", rec.Code)
		}
	})
}
