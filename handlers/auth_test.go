package handlers_test

import (
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"gateway/handlers"
	"gateway/models"
	"gateway/models/dbtest"
)

// apiRoutes is every API route, with a body valid enough to pass decoding.
var apiRoutes = []struct{ method, path, body string }{
	{"POST", "/api/providers", openaiBody},
	{"GET", "/api/providers", ""},
	{"PATCH", "/api/providers/1", `{"name":"x"}`},
	{"DELETE", "/api/providers/1", ""},
	{"POST", "/api/models", `{"public_name":"x","provider_id":1,"upstream_model":"m"}`},
	{"GET", "/api/models", ""},
	{"PATCH", "/api/models/1", `{"weight":1}`},
	{"DELETE", "/api/models/1", ""},
	{"POST", "/api/keys", `{"name":"x"}`},
	{"GET", "/api/keys", ""},
	{"PATCH", "/api/keys/1", `{"revoked":true}`},
	{"DELETE", "/api/keys/1", ""},
	{"POST", "/api/fallbacks", `{"public_name":"a","kind":"general","targets":["b"]}`},
	{"GET", "/api/fallbacks", ""},
	{"GET", "/api/fallbacks?public_name=a", ""},
	{"GET", "/api/pools", ""},
	{"PUT", "/api/pools/a", `{}`},
	{"GET", "/api/pools/a/status", ""},
	{"GET", "/api/pools/openai%2F%2A/status", ""},
	{"GET", "/api/sticky", ""},
	{"POST", "/api/sticky", `{"model_name":"a","deployment_id":1}`},
	{"DELETE", "/api/sticky", ""},
	{"DELETE", "/api/sticky?model_name=a", ""},
	{"GET", "/api/stats", ""},
}

func TestAPIRefusesWithoutCredentials(t *testing.T) {
	ta := newTestApp(t, dbtest.MustOpenStore(t, "", t.TempDir()))
	for _, rt := range apiRoutes {
		for name, h := range map[string]http.Header{
			"no credentials":   {},
			"wrong master key": {"Authorization": {"Bearer " + testMasterKey + "x"}},
			"not bearer":       {"Authorization": {"Basic " + testMasterKey}},
			"empty bearer":     {"Authorization": {"Bearer "}},
		} {
			rec := ta.do(t, rt.method, rt.path, rt.body, h)
			if rec.Code != http.StatusUnauthorized {
				t.Errorf("%s %s with %s: status %d, want 401", rt.method, rt.path, name, rec.Code)
				continue
			}
			if msg := errorMessage(t, rec); !strings.Contains(msg, "authentication required") {
				t.Errorf("%s %s: message %q", rt.method, rt.path, msg)
			}
		}
	}
	if ta.reloader.n.Load() != 0 {
		t.Errorf("a refused request reloaded the routing table")
	}
	providerCount(0)(t, ta.store)
}

func TestAPIWithoutMasterKeyAcceptsOnlySessions(t *testing.T) {
	s := dbtest.MustOpenStore(t, "", t.TempDir())
	app, err := handlers.New(s, handlers.Options{SessionKey: make([]byte, 32)})
	if err != nil {
		t.Fatal(err)
	}
	ta := &testApp{app: app, store: s, reloader: &countingReloader{}, logs: &syncBuffer{}}
	for _, h := range []string{"Bearer ", "Bearer x", "Bearer " + testMasterKey} {
		rec := ta.do(t, "GET", "/api/providers", "", http.Header{"Authorization": {h}})
		if rec.Code != http.StatusUnauthorized {
			t.Errorf("Authorization %q: status %d, want 401", h, rec.Code)
		}
	}
}

func TestNewRefusesAShortSessionKey(t *testing.T) {
	s := dbtest.MustOpenStore(t, "", t.TempDir())
	if _, err := handlers.New(s, handlers.Options{SessionKey: make([]byte, 31), Logger: slog.Default()}); err == nil {
		t.Fatal("New accepted a 31-byte session key")
	}
}

func TestAPIWithSession(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		b := ta.browser(t)
		tok := b.signIn()
		json := http.Header{"Content-Type": {"application/json"}}

		if rec := b.do("GET", "/api/providers", nil, nil); rec.Code != http.StatusOK {
			t.Fatalf("GET with a session: status %d, want 200: %s", rec.Code, rec.Body)
		}
		rec := b.do("POST", "/api/providers", strings.NewReader(openaiBody), json)
		if rec.Code != http.StatusForbidden {
			t.Fatalf("POST with a session, no CSRF header: status %d, want 403: %s", rec.Code, rec.Body)
		}
		if msg := errorMessage(t, rec); !strings.Contains(msg, "CSRF") {
			t.Errorf("message %q should name the CSRF token", msg)
		}
		rec = b.do("POST", "/api/providers", strings.NewReader(openaiBody), http.Header{"Content-Type": {"application/json"}, "X-Csrf-Token": {tok + "x"}})
		if rec.Code != http.StatusForbidden {
			t.Fatalf("POST with a wrong CSRF header: status %d, want 403", rec.Code)
		}
		providerCount(0)(t, s)
		rec = b.do("POST", "/api/providers", strings.NewReader(openaiBody), http.Header{"Content-Type": {"application/json"}, "X-Csrf-Token": {tok}})
		if rec.Code != http.StatusCreated {
			t.Fatalf("POST with the CSRF header: status %d, want 201: %s", rec.Code, rec.Body)
		}
		// A wrong master key is refused even with a valid session.
		rec = b.do("GET", "/api/providers", nil, http.Header{"Authorization": {"Bearer wrong"}})
		if rec.Code != http.StatusUnauthorized {
			t.Errorf("wrong master key with a session: status %d, want 401", rec.Code)
		}
	})
}

func TestPagesRedirectToLogin(t *testing.T) {
	ta := newTestApp(t, dbtest.MustOpenStore(t, "", t.TempDir()))
	for path, login := range map[string]string{"/": "/login", "/models": "/login?next=%2Fmodels", "/providers": "/login?next=%2Fproviders",
		"/keys": "/login?next=%2Fkeys", "/logs?status=500": "/login?next=%2Flogs%3Fstatus%3D500", "/no-such-page": "/login?next=%2Fno-such-page"} {
		rec := ta.do(t, "GET", path, "", nil)
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != login {
			t.Errorf("GET %s: status %d Location %q, want 303 to %s", path, rec.Code, rec.Header().Get("Location"), login)
		}
		rec = ta.do(t, "GET", "/models/fragment", "", http.Header{"Hx-Request": {"true"}, "Hx-Current-Url": {"http://admin.test" + path}})
		if rec.Code != http.StatusUnauthorized || rec.Header().Get("HX-Redirect") != login {
			t.Errorf("htmx GET from %s: status %d HX-Redirect %q, want 401 with HX-Redirect: %s", path, rec.Code, rec.Header().Get("HX-Redirect"), login)
		}
	}
	rec := ta.do(t, "POST", "/models", "public_name=x", http.Header{"Content-Type": {"application/x-www-form-urlencoded"}})
	if rec.Code != http.StatusSeeOther {
		t.Errorf("POST /models without a session: status %d, want 303", rec.Code)
	}
	entryCount(0)(t, ta.store)
}

// TestLoginReturnsToThePageAskedFor: after sign-in the admin lands on the
// page asked for while signed out; never on another site's.
func TestLoginReturnsToThePageAskedFor(t *testing.T) {
	ta := newTestApp(t, dbtest.MustOpenStore(t, "", t.TempDir()))
	for next, want := range map[string]string{"/keys?page=2": "/keys?page=2", "//evil.example/x": "/", "https://evil.example": "/",
		"/\\evil.example": "/", "/login": "/", "": "/", "keys": "/"} {
		b := ta.browser(t)
		page := b.get("/login?next=" + url.QueryEscape(next))
		if got, _ := parseHTML(t, page).Find(`input[name="next"]`).Attr("value"); want != "/" && got != want {
			t.Errorf("next %q: the form carries %q, want %q", next, got, want)
		}
		rec := b.post("/login", url.Values{"username": {"admin"}, "password": {testAdminPassword}, "csrf_token": {b.csrfToken(page)}, "next": {next}}, nil)
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != want {
			t.Errorf("sign in with next %q: %d to %q, want 303 to %q", next, rec.Code, rec.Header().Get("Location"), want)
		}
	}
}

// TestFormsRequireCSRF posts every form of the app without its token, and
// with a wrong one.
func TestFormsRequireCSRF(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		p := mustProvider(t, s, "openai", "sk-provider-0000000000")
		entry := url.Values{"public_name": {"gpt-4o"}, "provider_id": {jsonOf(t, p.ID)}, "upstream_model": {"gpt-4o"}}

		// The login form, protected by the pre-login session's token.
		b := ta.browser(t)
		good := b.csrfToken(b.get("/login"))
		for name, tok := range map[string]string{"missing": "", "wrong": good + "x"} {
			rec := b.post("/login", url.Values{"username": {"admin"}, "password": {testAdminPassword}, "csrf_token": {tok}}, nil)
			if rec.Code != http.StatusForbidden {
				t.Errorf("login with %s token: status %d, want 403", name, rec.Code)
			}
		}
		// No cookie at all: no pre-login session.
		rec := ta.browser(t).post("/login", url.Values{"username": {"admin"}, "password": {testAdminPassword}, "csrf_token": {good}}, nil)
		if rec.Code != http.StatusForbidden {
			t.Errorf("login without the session cookie: status %d, want 403", rec.Code)
		}

		tok := b.signIn()
		for _, form := range []struct {
			path   string
			values url.Values
		}{{"/models", entry}, {"/logout", url.Values{}}} {
			for _, c := range []struct {
				name   string
				field  string
				header http.Header
			}{
				{name: "missing"},
				{name: "wrong field", field: tok + "x"},
				{name: "wrong header", header: http.Header{"X-Csrf-Token": {tok + "x"}}},
			} {
				v := url.Values{}
				for k, vs := range form.values {
					v[k] = vs
				}
				if c.field != "" {
					v.Set("csrf_token", c.field)
				}
				rec := b.post(form.path, v, c.header)
				name := c.name
				if rec.Code != http.StatusForbidden {
					t.Errorf("POST %s with %s token: status %d, want 403", form.path, name, rec.Code)
				}
			}
		}
		entryCount(0)(t, s)
		// Still signed in: the refused logout did nothing.
		if rec := b.get("/"); rec.Code != http.StatusOK {
			t.Errorf("after refused logouts GET /: status %d, want 200", rec.Code)
		}
		// With the token, the form works.
		entry.Set("csrf_token", tok)
		if rec := b.post("/models", entry, nil); rec.Code != http.StatusSeeOther {
			t.Errorf("POST /models with the token: status %d, want 303: %s", rec.Code, rec.Body)
		}
	})
}

func TestHealthz(t *testing.T) {
	s := dbtest.MustOpenStore(t, "", t.TempDir())
	ta := newTestApp(t, s)
	rec := ta.do(t, "GET", "/healthz", "", nil)
	if rec.Code != http.StatusOK || decodeJSON[map[string]string](t, rec)["status"] != "ok" {
		t.Fatalf("healthz: %d %s, want 200 ok", rec.Code, rec.Body)
	}
	if err := s.DB().Close(); err != nil {
		t.Fatal(err)
	}
	rec = ta.do(t, "GET", "/healthz", "", nil)
	if rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("healthz with the database closed: %d %s, want 503", rec.Code, rec.Body)
	}
}
