package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"gateway/models"
	"gateway/models/dbtest"
)

// addAdmin stores an admin account with a password.
func addAdmin(t *testing.T, s *models.Store, username, role string) *models.AdminUser {
	t.Helper()
	u := &models.AdminUser{Username: username, Role: role}
	if err := s.CreateAdminUser(context.Background(), u, username+" password"); err != nil {
		t.Fatal(err)
	}
	return u
}

// signInAs signs in as username (whose password addAdmin set) and returns
// the session's CSRF token.
func (b *browser) signInAs(username string) string {
	b.t.Helper()
	tok := b.csrfToken(b.get("/login"))
	rec := b.post("/login", url.Values{"username": {username}, "password": {username + " password"}, "csrf_token": {tok}}, nil)
	if rec.Code != http.StatusSeeOther {
		b.t.Fatalf("sign in as %s: status %d, want 303\n%s", username, rec.Code, rec.Body)
	}
	return b.csrfToken(b.get("/"))
}

// jsonHeaders are the headers of a session's API write.
func jsonHeaders(csrf string) http.Header {
	h := http.Header{}
	h.Set("X-CSRF-Token", csrf)
	h.Set("Content-Type", "application/json")
	return h
}

// state is everything an admin can change, as the API shows it: equal
// states mean no change was made.
func (ta *testApp) state(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, path := range []string{"/api/providers", "/api/models", "/api/keys", "/api/teams", "/api/users",
		"/api/pools", "/api/fallbacks", "/api/settings", "/api/sticky", "/api/admins"} {
		rec := ta.api(t, http.MethodGet, path, "")
		fmt.Fprintf(&b, "%s %d %s\n", path, rec.Code, rec.Body)
	}
	es, err := ta.store.ListAudit(context.Background(), models.AuditFilter{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	hs, err := ta.store.ListHealthChecks(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "audit %v, health checks %d\n", es, len(hs))
	return b.String()
}

// concrete turns a route pattern into a method and a path to send.
func concrete(pattern string) (method, path string) {
	method, path, ok := strings.Cut(pattern, " ")
	if !ok {
		method, path = http.MethodPost, pattern
	}
	path = strings.NewReplacer("{$}", "", "{id}", "1", "{public_name}", "gpt").Replace(path)
	return method, path
}

// TestEveryRouteByRole sends every route of the admin listener as a viewer
// and as an admin: a viewer's every write is refused with 403 and changes
// nothing, the owners' routes refuse both, and reads pass. A route added
// without the right access fails here.
func TestEveryRouteByRole(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		e := newRuntimeEnv(t, s)
		e.entry(t, "gpt", "gpt-4o", nil, true)
		e.reload(t)
		for _, body := range []string{`{"name":"t"}`} {
			if rec := e.api(t, http.MethodPost, "/api/teams", body); rec.Code != http.StatusCreated {
				t.Fatalf("team: %d %s", rec.Code, rec.Body)
			}
		}
		if rec := e.api(t, http.MethodPost, "/api/users", `{"name":"u"}`); rec.Code != http.StatusCreated {
			t.Fatalf("user: %d %s", rec.Code, rec.Body)
		}
		if rec := e.api(t, http.MethodPost, "/api/sticky", `{"model_name":"gpt","deployment_id":1}`); rec.Code != http.StatusCreated {
			t.Fatalf("sticky: %d %s", rec.Code, rec.Body)
		}
		addAdmin(t, s, "vera", models.RoleViewer)
		addAdmin(t, s, "adam", models.RoleAdmin)
		viewer, admin := e.browser(t), e.browser(t)
		viewerCSRF, adminCSRF := viewer.signInAs("vera"), admin.signInAs("adam")
		before := e.state(t)

		writes := 0
		for _, rt := range e.app.Routes() {
			if rt.Public {
				continue
			}
			method, path := concrete(rt.Pattern)
			safe := method == http.MethodGet
			h := http.Header{}
			h.Set("X-CSRF-Token", viewerCSRF)
			h.Set("Content-Type", "application/json")
			if !rt.API {
				h.Set("Content-Type", "application/x-www-form-urlencoded")
			}
			// send answers the status, and 0 for a 403 that is not the
			// role's (a CSRF refusal would look the same otherwise).
			send := func(b *browser, h http.Header) int {
				body := "{}"
				if !rt.API {
					body = "csrf_token=" + url.QueryEscape(h.Get("X-CSRF-Token"))
				}
				rec := b.do(method, path, strings.NewReader(body), h)
				if rec.Code == http.StatusForbidden && !strings.Contains(rec.Body.String(), "your role") {
					t.Errorf("%s %s: 403 for another reason: %s", method, path, rec.Body)
					return 0
				}
				if rec.Code == http.StatusSeeOther && strings.HasPrefix(rec.Header().Get("Location"), "/login") {
					return http.StatusUnauthorized
				}
				return rec.Code
			}
			switch {
			case rt.Access == "any admin":
				// Sign-out and one's own password: every role's own business.
				continue
			case !safe || rt.Access == "owners only" || rt.Access == "writers":
				writes++
				if got := send(viewer, h); got != http.StatusForbidden {
					t.Errorf("viewer %s %s (%s): status %d, want 403", method, path, rt.Access, got)
				}
			default:
				if got := send(viewer, h); got == http.StatusForbidden || got == http.StatusUnauthorized {
					t.Errorf("viewer %s %s (%s): status %d, want it served", method, path, rt.Access, got)
				}
			}
			if rt.Access == "owners only" {
				h.Set("X-CSRF-Token", adminCSRF)
				if got := send(admin, h); got != http.StatusForbidden {
					t.Errorf("admin %s %s: status %d, want 403", method, path, got)
				}
			}
		}
		if writes < 60 {
			t.Fatalf("only %d refusable routes: the route table is not what this test walks", writes)
		}
		if after := e.state(t); after != before {
			t.Fatalf("refused requests changed something:\nbefore %s\nafter  %s", before, after)
		}
		// The same viewer still reads, and an admin still writes.
		if rec := viewer.get("/models"); rec.Code != http.StatusOK {
			t.Fatalf("viewer reads /models: %d", rec.Code)
		}
		rec := admin.do(http.MethodPost, "/api/teams", strings.NewReader(`{"name":"by adam"}`), jsonHeaders(adminCSRF))
		if rec.Code != http.StatusCreated {
			t.Fatalf("admin writes: %d %s", rec.Code, rec.Body)
		}
		es, err := s.ListAudit(context.Background(), models.AuditFilter{Limit: 1})
		if err != nil || len(es) != 1 || es[0].Actor != "adam" || es[0].Via != "api" || es[0].Name != "by adam" {
			t.Fatalf("the admin's write in the audit log: %+v %v", es, err)
		}
	})
}

// TestAdminsAPI: owners add, list, change and remove admins; the last
// owner stays; a changed role or a removal ends that admin's sessions at
// once; no password or hash is ever shown.
func TestAdminsAPI(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		rec := ta.api(t, http.MethodPost, "/api/admins", `{"username":"vera","password":"vera password","role":"viewer"}`)
		if rec.Code != http.StatusCreated {
			t.Fatalf("create: %d %s", rec.Code, rec.Body)
		}
		vera := decodeJSON[map[string]any](t, rec)
		if vera["role"] != "viewer" || vera["sso"] != false || vera["username"] != "vera" {
			t.Fatalf("created: %v", vera)
		}
		for _, c := range []struct{ body, field string }{
			{`{"username":"x","password":"long enough","role":"root"}`, "role"},
			{`{"username":"x","password":"short","role":"viewer"}`, "password"},
			{`{"username":"","password":"long enough","role":"viewer"}`, "username"},
			{`{"username":"x","password":"long enough","role":"viewer","extra":1}`, "extra"},
		} {
			rec := ta.api(t, http.MethodPost, "/api/admins", c.body)
			if rec.Code != http.StatusBadRequest || !strings.Contains(errorMessage(t, rec), c.field) {
				t.Errorf("%s: %d %s", c.body, rec.Code, rec.Body)
			}
		}
		if rec := ta.api(t, http.MethodPost, "/api/admins", `{"username":"vera","password":"other password","role":"admin"}`); rec.Code != http.StatusConflict {
			t.Fatalf("duplicate: %d %s", rec.Code, rec.Body)
		}

		b := ta.browser(t)
		b.signInAs("vera")
		if rec := b.get("/models"); rec.Code != http.StatusOK {
			t.Fatalf("viewer reads: %d", rec.Code)
		}
		doc := parseHTML(t, b.get("/models"))
		if testid(doc, "nav-read-only").Length() != 1 || testid(doc, "nav-admins").Length() != 0 {
			t.Fatalf("a viewer's nav: read-only badge and no Admins link")
		}
		if rec := b.get("/admins"); rec.Code != http.StatusForbidden {
			t.Fatalf("viewer on /admins: %d", rec.Code)
		}

		// Promotion ends the session: the next page asks to sign in again.
		id := fmt.Sprint(vera["id"])
		rec = ta.api(t, http.MethodPatch, "/api/admins/"+id, `{"role":"admin"}`)
		if rec.Code != http.StatusOK || decodeJSON[map[string]any](t, rec)["role"] != "admin" {
			t.Fatalf("change role: %d %s", rec.Code, rec.Body)
		}
		if rec := b.get("/models"); rec.Code != http.StatusSeeOther || !strings.HasPrefix(rec.Header().Get("Location"), "/login") {
			t.Fatalf("after a role change: %d %s", rec.Code, rec.Header().Get("Location"))
		}
		if rec := b.do(http.MethodGet, "/api/models", nil, nil); rec.Code != http.StatusUnauthorized {
			t.Fatalf("API after a role change: %d", rec.Code)
		}
		csrf := b.signInAs("vera")
		rec = b.do(http.MethodPost, "/api/teams", strings.NewReader(`{"name":"t"}`), jsonHeaders(csrf))
		if rec.Code != http.StatusCreated {
			t.Fatalf("an admin writes: %d %s", rec.Code, rec.Body)
		}
		if rec := ta.api(t, http.MethodPatch, "/api/admins/"+id, `{"username":"v2"}`); rec.Code != http.StatusBadRequest {
			t.Fatalf("rename: %d %s", rec.Code, rec.Body)
		}
		// Removal ends the session too.
		if rec := ta.api(t, http.MethodDelete, "/api/admins/"+id, ""); rec.Code != http.StatusNoContent {
			t.Fatalf("delete: %d %s", rec.Code, rec.Body)
		}
		if rec := b.get("/"); rec.Code != http.StatusSeeOther {
			t.Fatalf("after removal: %d", rec.Code)
		}

		// The bootstrap admin is the last owner.
		list := decodeJSON[[]map[string]any](t, ta.api(t, http.MethodGet, "/api/admins", ""))
		if len(list) != 1 || list[0]["username"] != "admin" || list[0]["role"] != "owner" {
			t.Fatalf("admins: %v", list)
		}
		owner := fmt.Sprint(list[0]["id"])
		for _, req := range [][2]string{{http.MethodPatch, `{"role":"admin"}`}, {http.MethodDelete, ""}} {
			rec := ta.api(t, req[0], "/api/admins/"+owner, req[1])
			if rec.Code != http.StatusConflict || !strings.Contains(errorMessage(t, rec), "last owner") {
				t.Fatalf("%s last owner: %d %s", req[0], rec.Code, rec.Body)
			}
		}
		all := ta.api(t, http.MethodGet, "/api/admins", "").Body.String()
		es, err := s.ListAudit(context.Background(), models.AuditFilter{Kind: models.AuditAdmin, Actor: models.ActorMasterKey, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(es) != 3 { // create, role change, delete
			t.Fatalf("audit of admins: %d entries", len(es))
		}
		for _, e := range es {
			all += e.Before + e.After
			if e.Actor != models.ActorMasterKey {
				t.Errorf("actor %q", e.Actor)
			}
		}
		for _, secret := range []string{"vera password", "$2a$", "password_hash", "session_epoch"} {
			if strings.Contains(all, secret) {
				t.Errorf("%q shown: %s", secret, all)
			}
		}
	})
}

// TestAdminsPage: the owners' page adds an admin, changes a role, refuses
// to demote the last owner with a message; an admin (not owner) is refused.
func TestAdminsPage(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		b := ta.browser(t)
		csrf := b.signIn()
		doc := parseHTML(t, b.get("/admins"))
		if testid(doc, "admin").Length() != 1 || testid(doc, "nav-admins").Length() != 1 {
			t.Fatalf("admins page:\n%s", doc.Text())
		}
		rec := b.post("/admins", url.Values{"csrf_token": {csrf}, "username": {"adam"}, "password": {"short"}, "role": {"admin"}}, nil)
		if rec.Code != http.StatusUnprocessableEntity || testid(parseHTML(t, rec), "error-password").Length() != 1 {
			t.Fatalf("short password: %d\n%s", rec.Code, rec.Body)
		}
		rec = b.post("/admins", url.Values{"csrf_token": {csrf}, "username": {"adam"}, "password": {"adam password"}, "role": {"admin"}}, nil)
		if rec.Code != http.StatusSeeOther {
			t.Fatalf("add: %d\n%s", rec.Code, rec.Body)
		}
		adam, err := s.FindAdminUser(context.Background(), "adam")
		if err != nil || adam.Role != models.RoleAdmin {
			t.Fatalf("added: %+v %v", adam, err)
		}
		me, err := s.FindAdminUser(context.Background(), "admin")
		if err != nil {
			t.Fatal(err)
		}
		rec = b.post(fmt.Sprintf("/admins/%d/role", me.ID), url.Values{"csrf_token": {csrf}, "role": {"viewer"}}, nil)
		if rec.Code != http.StatusConflict || !strings.Contains(testid(parseHTML(t, rec), "admins-error").Text(), "last owner") {
			t.Fatalf("demote the last owner: %d\n%s", rec.Code, rec.Body)
		}
		rec = b.post(fmt.Sprintf("/admins/%d/role", adam.ID), url.Values{"csrf_token": {csrf}, "role": {"owner"}}, nil)
		if rec.Code != http.StatusSeeOther {
			t.Fatalf("promote: %d\n%s", rec.Code, rec.Body)
		}
		rec = b.post(fmt.Sprintf("/admins/%d/delete", adam.ID), url.Values{"csrf_token": {csrf}}, nil)
		if rec.Code != http.StatusSeeOther {
			t.Fatalf("remove: %d\n%s", rec.Code, rec.Body)
		}
		if _, err := s.FindAdminUser(context.Background(), "adam"); err == nil {
			t.Fatal("adam is still there")
		}
		addAdmin(t, s, "alma", models.RoleAdmin)
		other := ta.browser(t)
		other.signInAs("alma")
		if rec := other.get("/admins"); rec.Code != http.StatusForbidden {
			t.Fatalf("an admin on /admins: %d", rec.Code)
		}
		if testid(parseHTML(t, other.get("/")), "nav-admins").Length() != 0 {
			t.Fatal("an admin's nav links to Admins")
		}
	})
}

// TestProfilePasswordChange: an admin changes their own password with the
// current one; their other sessions end, this one goes on.
func TestProfilePasswordChange(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		addAdmin(t, s, "vera", models.RoleViewer)
		a, b := ta.browser(t), ta.browser(t)
		csrf := a.signInAs("vera")
		b.signInAs("vera")
		doc := parseHTML(t, a.get("/profile"))
		if testid(doc, "profile-username").Text() != "vera" || testid(doc, "profile-role").Text() != "viewer" {
			t.Fatalf("profile:\n%s", doc.Text())
		}
		form := func(current, next, confirm string) url.Values {
			return url.Values{"csrf_token": {csrf}, "current_password": {current}, "new_password": {next}, "confirm_password": {confirm}}
		}
		for _, c := range []struct {
			form  url.Values
			field string
		}{
			{form("wrong password", "a new password", "a new password"), "current_password"},
			{form("vera password", "short", "short"), "new_password"},
			{form("vera password", "a new password", "another one"), "confirm_password"},
		} {
			rec := a.post("/profile/password", c.form, nil)
			if rec.Code != http.StatusUnprocessableEntity || testid(parseHTML(t, rec), "error-"+c.field).Length() != 1 {
				t.Fatalf("%s: %d\n%s", c.field, rec.Code, rec.Body)
			}
		}
		if _, err := s.AuthenticateAdmin(context.Background(), "vera", "vera password"); err != nil {
			t.Fatalf("refused changes changed the password: %v", err)
		}
		rec := a.post("/profile/password", form("vera password", "a new password", "a new password"), nil)
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/profile?changed=1" {
			t.Fatalf("change: %d %s\n%s", rec.Code, rec.Header().Get("Location"), rec.Body)
		}
		if rec := a.get("/profile?changed=1"); rec.Code != http.StatusOK || testid(parseHTML(t, rec), "password-changed").Length() != 1 {
			t.Fatalf("this session goes on: %d", rec.Code)
		}
		if rec := b.get("/"); rec.Code != http.StatusSeeOther {
			t.Fatalf("the other session: %d, want it ended", rec.Code)
		}
		if _, err := s.AuthenticateAdmin(context.Background(), "vera", "a new password"); err != nil {
			t.Fatalf("new password: %v", err)
		}
		if _, err := s.AuthenticateAdmin(context.Background(), "vera", "vera password"); err == nil {
			t.Fatal("the old password still works")
		}
	})
}
