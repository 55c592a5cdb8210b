package handlers_test

import (
	"context"
	"net/http"
	"testing"

	"gateway/models"
	"gateway/models/dbtest"
)

// adminPages are the pages of the Providers, Keys, Users, Teams, Logs,
// Sticky and Dashboard screens, with ids that exist in adminFixture.
var adminPages = []string{
	"/", "/?window=7d", "/providers", "/providers/1/edit", "/keys", "/users", "/users/1/edit", "/teams", "/teams/1/edit",
	"/logs", "/logs?status=200", "/sticky", "/sticky/members?model_name=gpt-4o",
}

// adminForms are every state-changing form of those screens.
var adminForms = []string{
	"/providers", "/providers/1", "/providers/1/delete", "/providers/1/test",
	"/keys", "/keys/1/revoke", "/keys/1/delete",
	"/users", "/users/1", "/users/1/delete", "/teams", "/teams/1", "/teams/1/delete",
	"/sticky", "/sticky/clear", "/sticky/clear-all",
}

// adminFixture stores one of everything, each with id 1.
func adminFixture(t *testing.T, e *runtimeEnv) {
	t.Helper()
	e.entry(t, "gpt-4o", "gpt-4o", ptr(1.0), true)
	e.reload(t)
	team := mustTeam(t, e.store, &models.Team{Name: "platform"})
	mustUser(t, e.store, &models.User{Name: "ana", TeamID: &team.ID})
	mustLogs(t, e.store, models.RequestLog{CreatedAt: minutesAgo(5), Model: "gpt-4o", Status: 200})
	if err := e.proxy.PinSticky("gpt-4o", 1, 0); err != nil {
		t.Fatal(err)
	}
}

func TestAdminPagesNeedSignIn(t *testing.T) {
	e := newRuntimeEnv(t, dbtest.MustOpenStore(t, "", t.TempDir()))
	adminFixture(t, e)
	b := e.browser(t)
	for _, path := range adminPages {
		rec := b.get(path)
		if want := loginFor(path); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != want {
			t.Errorf("GET %s signed out: %d %q, want 303 to %s", path, rec.Code, rec.Header().Get("Location"), want)
		}
		rec = b.do("GET", path, nil, hx())
		if rec.Code != http.StatusUnauthorized || rec.Header().Get("HX-Redirect") != "/login" {
			t.Errorf("htmx GET %s signed out: %d %q, want 401 with HX-Redirect: /login", path, rec.Code, rec.Header().Get("HX-Redirect"))
		}
	}
	for _, path := range adminForms {
		rec := b.post(path, formOf("", "name", "x"), nil)
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/login" {
			t.Errorf("POST %s signed out: %d, want 303 to /login", path, rec.Code)
		}
	}
}

func TestAdminPagesRender(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		e := newRuntimeEnv(t, s)
		adminFixture(t, e)
		b := e.browser(t)
		b.signIn()
		for _, path := range adminPages {
			rec := b.get(path)
			if rec.Code != http.StatusOK {
				t.Errorf("GET %s: %d\n%s", path, rec.Code, rec.Body)
				continue
			}
			if path != "/sticky/members?model_name=gpt-4o" { // a partial for htmx only
				wantFullPage(t, "GET "+path, rec)
			}
			rec = b.do("GET", path, nil, hx())
			wantStatus(t, "htmx GET "+path, rec, http.StatusOK)
			wantPartial(t, "htmx GET "+path, rec)
		}
	})
}

// TestAdminFormsNeedCSRF: every form refuses a post without the session's
// token, and nothing changes.
func TestAdminFormsNeedCSRF(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		e := newRuntimeEnv(t, s)
		adminFixture(t, e)
		mustKey(t, s, &models.VirtualKey{Name: "k"}) // the runtime env's key is 1
		b := e.browser(t)
		tok := b.signIn()
		for _, path := range adminForms {
			for _, token := range []string{"", "not-the-token"} {
				form := formOf(token, "name", "x", "api_type", "openai", "base_url", "https://h/v1", "api_key", "sk-0123456789abcdef",
					"model_name", "gpt-4o", "deployment_id", "1", "revoked", "true")
				if rec := b.post(path, form, nil); rec.Code != http.StatusForbidden {
					t.Errorf("POST %s with token %q: %d, want 403", path, token, rec.Code)
				}
				if rec := b.post(path, form, hx()); rec.Code != http.StatusForbidden {
					t.Errorf("htmx POST %s with token %q: %d, want 403", path, token, rec.Code)
				}
			}
		}
		ctx := context.Background()
		ps, _ := s.ListProviders(ctx)
		ks, _ := s.ListKeys(ctx)
		us, _ := s.ListUsers(ctx)
		ts, _ := s.ListTeams(ctx)
		if len(ps) != 1 || ps[0].Name != "fake-openai" || len(ks) != 2 || ks[0].RevokedAt != nil || len(us) != 1 || us[0].Name != "ana" ||
			len(ts) != 1 || ts[0].Name != "platform" || len(e.proxy.StickyBindings()) != 1 {
			t.Errorf("a refused post changed something: %d providers, %d keys, %d users, %d teams, %d bindings",
				len(ps), len(ks), len(us), len(ts), len(e.proxy.StickyBindings()))
		}
		if e.reloader.n.Load() != 0 {
			t.Error("a refused post reloaded the routing table")
		}
		// The header htmx sends is accepted, as the hidden field is.
		rec := b.post("/sticky/clear-all", formOf(""), map[string][]string{"X-Csrf-Token": {tok}})
		wantSeeOther(t, "clear-all with the header", rec, false, "/sticky")
	})
}
