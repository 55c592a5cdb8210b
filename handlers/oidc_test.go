package handlers_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/oauth2-proxy/mockoidc"
	"golang.org/x/oauth2"

	"gateway/handlers"
	"gateway/models"
	"gateway/models/dbtest"
)

// newIdP runs a real OpenID Connect provider in process: it signs in the
// user queued with QueueUser at once, with no page of its own.
func newIdP(t *testing.T) *mockoidc.MockOIDC {
	t.Helper()
	m, err := mockoidc.Run()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Shutdown() })
	return m
}

// newSSOTestApp is newTestApp with single sign-on at m, roles mapped by
// roleClaim ("" for none).
func newSSOTestApp(t *testing.T, s *models.Store, m *mockoidc.MockOIDC, roleClaim string) *testApp {
	t.Helper()
	logs := &syncBuffer{}
	app, err := handlers.New(s, handlers.Options{
		Logger:     slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		MasterKey:  testMasterKey,
		SessionKey: []byte("0123456789abcdef0123456789abcdef-session"),
		Reloader:   &countingReloader{},
		OIDC: &handlers.OIDCConfig{Issuer: m.Issuer(), ClientID: m.ClientID, ClientSecret: m.ClientSecret,
			RoleClaim: roleClaim},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateAdminUser(context.Background(), &models.AdminUser{Username: "admin", Role: models.RoleOwner}, testAdminPassword); err != nil {
		t.Fatal(err)
	}
	return &testApp{app: app, store: s, logs: logs}
}

// idpUser is a user of the provider whose ID token carries groups whatever
// the scopes, as Keycloak's, Okta's and Entra's group claims are set up.
type idpUser struct {
	sub, username, email string
	groups               any // a string or a list of strings
}

type idpClaims struct {
	*mockoidc.IDTokenClaims
	PreferredUsername string `json:"preferred_username,omitempty"`
	Email             string `json:"email,omitempty"`
	Groups            any    `json:"groups,omitempty"`
}

func (u idpUser) ID() string { return u.sub }

func (u idpUser) Userinfo([]string) ([]byte, error) {
	return json.Marshal(map[string]any{"sub": u.sub, "preferred_username": u.username, "email": u.email})
}

func (u idpUser) Claims(_ []string, base *mockoidc.IDTokenClaims) (jwt.Claims, error) {
	return &idpClaims{IDTokenClaims: base, PreferredUsername: u.username, Email: u.email, Groups: u.groups}, nil
}

// ssoStart asks the app to start a single sign-on and returns where it
// sends the browser: the provider's authorization endpoint.
func (b *browser) ssoStart(next string) *url.URL {
	b.t.Helper()
	path := "/auth/oidc/login"
	if next != "" {
		path += "?next=" + url.QueryEscape(next)
	}
	rec := b.get(path)
	if rec.Code != http.StatusFound {
		b.t.Fatalf("GET %s: status %d, want 302\n%s", path, rec.Code, rec.Body)
	}
	u, err := url.Parse(rec.Header().Get("Location"))
	if err != nil {
		b.t.Fatal(err)
	}
	return u
}

// authorize follows the browser to the provider, which signs its queued
// user in and sends the browser back: it returns the callback's path.
func authorize(t *testing.T, authURL *url.URL) string {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(authURL.String())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("provider's authorize: status %d, want 302", resp.StatusCode)
	}
	back, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := back.Scheme+"://"+back.Host+back.Path, "http://admin.test/auth/oidc/callback"; got != want {
		t.Fatalf("the provider sent the browser back to %s, want %s", got, want)
	}
	return back.RequestURI()
}

// ssoSignIn goes through a whole single sign-on and returns the callback's answer.
func (b *browser) ssoSignIn(next string) *httptest.ResponseRecorder {
	b.t.Helper()
	return b.get(authorize(b.t, b.ssoStart(next)))
}

func subjectOf(m *mockoidc.MockOIDC, sub string) string { return m.Issuer() + "|" + sub }

func mustAdminOf(t *testing.T, s *models.Store, subject string) *models.AdminUser {
	t.Helper()
	u, err := s.FindAdminBySubject(context.Background(), subject)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func adminCount(t *testing.T, s *models.Store) int64 {
	t.Helper()
	n, err := s.CountAdminUsers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// navUser is the username the signed-in page's nav shows, "" when the
// browser is sent to sign in instead.
func (b *browser) navUser() string {
	b.t.Helper()
	rec := b.get("/")
	if rec.Code != http.StatusOK {
		return ""
	}
	return strings.TrimSpace(testid(parseHTML(b.t, rec), "nav-user").Text())
}

// TestSSOSignIn: the first single sign-on creates an SSO-only viewer
// account, recorded as its own; the next ones sign in to the same account;
// the code flow sends a PKCE challenge; the account has no password.
func TestSSOSignIn(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		idp := newIdP(t)
		ta := newSSOTestApp(t, s, idp, "")
		ctx := context.Background()

		b := ta.browser(t)
		login := parseHTML(t, b.get("/login?next=%2Flogs"))
		if href, _ := testid(login, "login-sso").Attr("href"); href != "/auth/oidc/login?next=%2Flogs" {
			t.Errorf("Sign in with SSO links to %q, want /auth/oidc/login?next=%%2Flogs", href)
		}
		idp.QueueUser(idpUser{sub: "u-1", username: "jane", email: "jane@example.com"})
		authURL := b.ssoStart("/logs")
		q := authURL.Query()
		if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("nonce") == "" || q.Get("state") == "" {
			t.Errorf("authorization request lacks PKCE, nonce or state: %s", authURL.RawQuery)
		}
		if got, want := q.Get("scope"), "openid email profile"; got != want {
			t.Errorf("scope = %q, want %q", got, want)
		}
		callback := authorize(t, authURL)
		rec := b.get(callback)
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/logs" {
			t.Fatalf("callback: status %d to %q, want 303 to /logs\n%s", rec.Code, rec.Header().Get("Location"), rec.Body)
		}
		if got := b.navUser(); got != "jane" {
			t.Errorf("nav shows %q, want jane", got)
		}
		jane := mustAdminOf(t, s, subjectOf(idp, "u-1"))
		if jane.Username != "jane" || jane.Role != models.RoleViewer || jane.PasswordHash != "" {
			t.Errorf("new account = %q, role %q, password hash %q; want jane, viewer, none", jane.Username, jane.Role, jane.PasswordHash)
		}
		entries, err := s.ListAudit(ctx, models.AuditFilter{Kind: models.AuditAdmin, Actor: "jane", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 1 || entries[0].Action != models.ActionCreate || entries[0].Actor != "jane" || entries[0].Via != "sso" {
			t.Errorf("audit = %+v, want one create by jane via sso", entries)
		}
		if !strings.Contains(ta.logs.String(), "admin signed in") || !strings.Contains(ta.logs.String(), "via=sso") {
			t.Errorf("no sign-in logged:\n%s", ta.logs)
		}

		// The provider's answer is used once.
		if rec := b.get(callback); rec.Code != http.StatusBadRequest {
			t.Errorf("callback replayed: status %d, want 400", rec.Code)
		}

		// Another browser, the same person: the same account.
		idp.QueueUser(idpUser{sub: "u-1", username: "jane-renamed"})
		other := ta.browser(t)
		if rec := other.ssoSignIn(""); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/" {
			t.Fatalf("second sign-in: status %d to %q\n%s", rec.Code, rec.Header().Get("Location"), rec.Body)
		}
		if got := other.navUser(); got != "jane" {
			t.Errorf("second sign-in: nav shows %q, want jane", got)
		}
		if got := adminCount(t, s); got != 2 {
			t.Errorf("%d admins, want 2 (admin, jane)", got)
		}

		// No password signs in to an SSO account.
		pw := ta.browser(t)
		tok := pw.csrfToken(pw.get("/login"))
		for _, password := range []string{"", "anything at all"} {
			rec := pw.post("/login", url.Values{"username": {"jane"}, "password": {password}, "csrf_token": {tok}}, nil)
			if rec.Code != http.StatusUnauthorized {
				t.Errorf("password %q for the SSO account: status %d, want 401", password, rec.Code)
			}
		}
	})
}

// TestSSOWithoutConfiguration: without OIDC the login page offers no SSO
// and its routes answer 404.
func TestSSOWithoutConfiguration(t *testing.T) {
	ta := newTestApp(t, dbtest.MustOpenStore(t, "", t.TempDir()))
	b := ta.browser(t)
	if n := testid(parseHTML(t, b.get("/login")), "login-sso").Length(); n != 0 {
		t.Errorf("login page offers SSO without OIDC configured")
	}
	for _, path := range []string{"/auth/oidc/login", "/auth/oidc/callback?state=x&code=y"} {
		if rec := b.get(path); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", path, rec.Code)
		}
	}
}

// TestSSORoleMapping: with a role mapping, a new account takes the mapped
// role (the most powerful match, from a list or a string claim), each
// sign-in sets it again, and an owner stays an owner.
func TestSSORoleMapping(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		idp := newIdP(t)
		ta := newSSOTestApp(t, s, idp, "groups:platform-admins=admin,finance=viewer")
		ctx := context.Background()
		signIn := func(u idpUser) *models.AdminUser {
			t.Helper()
			idp.QueueUser(u)
			if rec := ta.browser(t).ssoSignIn(""); rec.Code != http.StatusSeeOther {
				t.Fatalf("sign in %s: status %d\n%s", u.sub, rec.Code, rec.Body)
			}
			return mustAdminOf(t, s, subjectOf(idp, u.sub))
		}

		ann := signIn(idpUser{sub: "u-ann", username: "ann", groups: []string{"finance", "platform-admins"}})
		if ann.Role != models.RoleAdmin {
			t.Errorf("finance and platform-admins: role %q, want admin", ann.Role)
		}
		if bob := signIn(idpUser{sub: "u-bob", email: "bob@example.com", groups: "platform-admins"}); bob.Username != "bob@example.com" || bob.Role != models.RoleAdmin {
			t.Errorf("string claim: %q as %q, want bob@example.com as admin", bob.Username, bob.Role)
		}
		if cy := signIn(idpUser{sub: "u-cy", username: "cy", groups: []string{"sales"}}); cy.Role != models.RoleViewer {
			t.Errorf("no matching group: role %q, want viewer", cy.Role)
		}

		again := signIn(idpUser{sub: "u-ann", username: "ann", groups: []string{"finance"}})
		if again.ID != ann.ID || again.Role != models.RoleViewer {
			t.Errorf("ann out of platform-admins: account %d as %q, want %d as viewer", again.ID, again.Role, ann.ID)
		}
		entries, err := s.ListAudit(ctx, models.AuditFilter{Kind: models.AuditAdmin, Actor: "ann", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 2 || entries[0].Action != models.ActionUpdate || entries[0].Via != "sso" {
			t.Errorf("ann's audit = %+v, want the create and an update via sso", entries)
		}

		owner := models.RoleOwner
		if _, err := s.UpdateAdminUser(ctx, ann.ID, models.AdminChange{Role: &owner}); err != nil {
			t.Fatal(err)
		}
		if got := signIn(idpUser{sub: "u-ann", username: "ann"}); got.Role != models.RoleOwner {
			t.Errorf("an owner signed in with no group: role %q, want owner kept", got.Role)
		}
	})
}

// TestSSORefusals: a sign-in whose answer does not check out is refused on
// the login page with what went wrong; nobody is signed in or created.
func TestSSORefusals(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		idp := newIdP(t)
		ta := newSSOTestApp(t, s, idp, "")
		for _, tc := range []struct {
			name       string
			user       idpUser
			authorize  func(u *url.URL) // changes the authorization request
			callback   func(q url.Values)
			elsewhere  bool // the callback reaches another browser
			wantStatus int
			want       string
		}{
			{name: "state changed", callback: func(q url.Values) { q.Set("state", q.Get("state")+"x") },
				wantStatus: http.StatusBadRequest, want: "did not start here"},
			{name: "state missing", callback: func(q url.Values) { q.Del("state") },
				wantStatus: http.StatusBadRequest, want: "did not start here"},
			{name: "another browser's callback", elsewhere: true, wantStatus: http.StatusBadRequest, want: "did not start here"},
			{name: "nonce changed", authorize: func(u *url.URL) { setQuery(u, "nonce", "forged-nonce") },
				wantStatus: http.StatusUnauthorized, want: "not for this sign-in"},
			// The provider keeps the challenge it was sent and checks the
			// verifier the app sends with the code against it.
			{name: "PKCE challenge of another verifier",
				authorize: func(u *url.URL) {
					setQuery(u, "code_challenge", oauth2.S256ChallengeFromVerifier(oauth2.GenerateVerifier()))
				},
				wantStatus: http.StatusUnauthorized, want: "did not accept"},
			{name: "provider error", callback: func(q url.Values) {
				q.Del("code")
				q.Set("error", "access_denied")
				q.Set("error_description", "The user cancelled")
			}, wantStatus: http.StatusUnauthorized, want: "refused the sign-in: The user cancelled"},
			{name: "code changed", callback: func(q url.Values) { q.Set("code", "forged-code") },
				wantStatus: http.StatusUnauthorized, want: "did not accept"},
			{name: "username of a password account", user: idpUser{sub: "u-evil", username: "admin"},
				wantStatus: http.StatusConflict, want: `An admin named "admin" already exists`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				user := tc.user
				if user.sub == "" {
					user = idpUser{sub: "u-" + strings.ReplaceAll(tc.name, " ", "-"), username: "someone"}
				}
				idp.QueueUser(user)
				b := ta.browser(t)
				authURL := b.ssoStart("/keys")
				if tc.authorize != nil {
					tc.authorize(authURL)
				}
				back, err := url.Parse(authorize(t, authURL))
				if err != nil {
					t.Fatal(err)
				}
				if tc.callback != nil {
					q := back.Query()
					tc.callback(q)
					back.RawQuery = q.Encode()
				}
				if tc.elsewhere {
					b = ta.browser(t)
				}
				rec := b.get(back.RequestURI())
				if rec.Code != tc.wantStatus {
					t.Errorf("status %d, want %d\n%s", rec.Code, tc.wantStatus, rec.Body)
				}
				doc := parseHTML(t, rec)
				if got := testid(doc, "login-error").Text(); !strings.Contains(got, tc.want) {
					t.Errorf("login page says %q, want %q", got, tc.want)
				}
				// The page asked for comes back, unless the attempt was not this browser's.
				wantSSO := "/auth/oidc/login?next=%2Fkeys"
				if tc.elsewhere {
					wantSSO = "/auth/oidc/login"
				}
				if testid(doc, "login-form").Length() != 1 || testid(doc, "login-sso").AttrOr("href", "") != wantSSO {
					t.Errorf("the refusal is not the login page with SSO to %s:\n%s", wantSSO, rec.Body)
				}
				if got := b.navUser(); got != "" {
					t.Errorf("signed in as %q after a refusal", got)
				}
				if got := adminCount(t, s); got != 1 {
					t.Errorf("%d admins after a refusal, want 1", got)
				}
			})
		}
		if admin, err := s.FindAdminUser(context.Background(), "admin"); err != nil || admin.OIDCSubject != nil {
			t.Errorf("the password account was linked to SSO: %+v, %v", admin, err)
		}
	})
}

func setQuery(u *url.URL, key, value string) {
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
}

// TestSSOProviderDown: the app starts while the provider is down, says so
// on the login page (which still takes passwords), and finds the provider
// once it is up.
func TestSSOProviderDown(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		idp, err := mockoidc.NewServer(nil)
		if err != nil {
			t.Fatal(err)
		}
		issuer := "http://" + addr + mockoidc.IssuerBase
		app, err := handlers.New(s, handlers.Options{SessionKey: []byte("0123456789abcdef0123456789abcdef-session"),
			OIDC: &handlers.OIDCConfig{Issuer: issuer, ClientID: idp.ClientID, ClientSecret: idp.ClientSecret}})
		if err != nil {
			t.Fatal(err)
		}
		ta := &testApp{app: app, store: s}
		b := ta.browser(t)
		rec := b.get("/auth/oidc/login")
		if rec.Code != http.StatusBadGateway {
			t.Fatalf("provider down: status %d, want 502\n%s", rec.Code, rec.Body)
		}
		doc := parseHTML(t, rec)
		if got := testid(doc, "login-error").Text(); !strings.Contains(got, "could not be reached") {
			t.Errorf("login page says %q, want the provider could not be reached", got)
		}
		if testid(doc, "login-password").Length() != 1 {
			t.Errorf("the login page takes no password while the provider is down")
		}

		ln, err = net.Listen("tcp", addr)
		if err != nil {
			t.Skipf("the provider's port was taken meanwhile: %v", err)
		}
		if err := idp.Start(ln, nil); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { idp.Shutdown() })
		idp.QueueUser(idpUser{sub: "u-late", username: "late"})
		if rec := b.ssoSignIn(""); rec.Code != http.StatusSeeOther {
			t.Fatalf("provider up: status %d\n%s", rec.Code, rec.Body)
		}
		if got := b.navUser(); got != "late" {
			t.Errorf("nav shows %q, want late", got)
		}
	})
}

// TestParseRoleMapping reads GATEWAY_OIDC_ROLE_CLAIM and picks roles.
func TestParseRoleMapping(t *testing.T) {
	for _, tc := range []struct {
		in        string
		wantClaim string
		wantRoles map[string]string
		wantErr   string
	}{
		{in: "groups:platform-admins=admin,finance=viewer", wantClaim: "groups",
			wantRoles: map[string]string{"platform-admins": "admin", "finance": "viewer"}},
		{in: " roles : ops = admin ", wantClaim: "roles", wantRoles: map[string]string{"ops": "admin"}},
		{in: "https://example.com/roles:ops=admin,a:b=viewer", wantClaim: "https://example.com/roles",
			wantRoles: map[string]string{"ops": "admin", "a:b": "viewer"}},
		{in: "groups", wantErr: "want claim:value=role"},
		{in: "platform-admins=admin", wantErr: "want claim:value=role"},
		{in: ":ops=admin", wantErr: "want claim:value=role"},
		{in: "groups:ops=admin,", wantErr: "want claim:value=role"},
		{in: "groups:ops=", wantErr: "want claim:value=role"},
		{in: "groups:ops=owner", wantErr: "must be admin or viewer"},
		{in: "groups:ops=root", wantErr: "must be admin or viewer"},
		{in: "groups:ops=admin,ops=viewer", wantErr: "mapped twice"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			m, err := handlers.ParseRoleMapping(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.Claim != tc.wantClaim || len(m.Roles) != len(tc.wantRoles) {
				t.Fatalf("got %q %v, want %q %v", m.Claim, m.Roles, tc.wantClaim, tc.wantRoles)
			}
			for v, role := range tc.wantRoles {
				if m.Roles[v] != role {
					t.Errorf("%q → %q, want %q", v, m.Roles[v], role)
				}
			}
		})
	}
	if m, err := handlers.ParseRoleMapping(""); m != nil || err != nil {
		t.Errorf(`"" = %v, %v; want no mapping`, m, err)
	}

	m, err := handlers.ParseRoleMapping("groups:platform-admins=admin,finance=viewer")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		claim any
		want  string
	}{
		{[]any{"finance", "platform-admins"}, models.RoleAdmin},
		{[]any{"finance"}, models.RoleViewer},
		{"platform-admins", models.RoleAdmin},
		{[]any{42, "platform-admins"}, models.RoleAdmin},
		{[]any{"sales"}, models.RoleViewer},
		{nil, models.RoleViewer},
		{map[string]any{"platform-admins": true}, models.RoleViewer},
	} {
		if got := m.Role(map[string]any{"groups": tc.claim}); got != tc.want {
			t.Errorf("groups %v: role %q, want %q", tc.claim, got, tc.want)
		}
	}
}
