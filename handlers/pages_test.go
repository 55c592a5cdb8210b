package handlers_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"gateway/handlers"
	"gateway/models"
	"gateway/models/dbtest"
)

func TestLoginPage(t *testing.T) {
	ta := newTestApp(t, dbtest.MustOpenStore(t, "", t.TempDir()))
	b := ta.browser(t)
	rec := b.get("/login")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /login: %d", rec.Code)
	}
	doc := parseHTML(t, rec)
	for _, id := range []string{"login-form", "login-username", "login-password", "login-submit"} {
		if testid(doc, id).Length() != 1 {
			t.Errorf("login page has no %s", id)
		}
	}
	if testid(doc, "nav").Length() != 0 {
		t.Error("login page shows the nav bar")
	}
	if testid(doc, "login-error").Length() != 0 {
		t.Error("fresh login page shows an error")
	}
	cookie := sessionCookie(t, rec)
	if !cookie.HttpOnly || cookie.SameSite != http.SameSiteLaxMode || cookie.Path != "/" || cookie.MaxAge <= 0 {
		t.Errorf("session cookie = %+v, want HttpOnly, SameSite=Lax, Path=/, a MaxAge", cookie)
	}
	if cookie.Secure {
		t.Error("cookie is Secure without SecureCookies")
	}
}

func sessionCookie(t *testing.T, rec interface{ Result() *http.Response }) *http.Cookie {
	t.Helper()
	for _, c := range rec.Result().Cookies() {
		if c.Name == "gateway_admin" {
			return c
		}
	}
	t.Fatal("no session cookie set")
	return nil
}

func TestLogin(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		b := ta.browser(t)
		tok := b.csrfToken(b.get("/login"))

		rec := b.post("/login", url.Values{"username": {"admin"}, "password": {"wrong-password-123"}, "csrf_token": {tok}}, nil)
		if rec.Code != http.StatusUnauthorized {
			t.Fatalf("wrong password: status %d, want 401", rec.Code)
		}
		doc := parseHTML(t, rec)
		if got := testid(doc, "login-error").Text(); !strings.Contains(got, "Wrong username or password") {
			t.Errorf("login-error = %q", got)
		}
		if v, _ := testid(doc, "login-username").Attr("value"); v != "admin" {
			t.Errorf("username not kept in the re-rendered form: %q", v)
		}
		logs := ta.logs.String()
		if !strings.Contains(logs, "admin sign-in failed") || !strings.Contains(logs, "username=admin") || !strings.Contains(logs, "ip=198.51.100.7") {
			t.Errorf("failed sign-in not logged with username and IP:\n%s", logs)
		}
		if strings.Contains(logs, "wrong-password-123") {
			t.Errorf("the password is in the log:\n%s", logs)
		}

		rec = b.post("/login", url.Values{"username": {"admin"}, "password": {testAdminPassword}, "csrf_token": {tok}}, nil)
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/" {
			t.Fatalf("sign in: status %d Location %q, want 303 to /", rec.Code, rec.Header().Get("Location"))
		}
		sessionCookie(t, rec)
		if strings.Contains(ta.logs.String(), testAdminPassword) {
			t.Error("the password is in the log")
		}

		// The session was rotated: the pre-login token no longer works.
		dash := b.get("/")
		if dash.Code != http.StatusOK {
			t.Fatalf("GET / after sign in: %d", dash.Code)
		}
		newTok := b.csrfToken(dash)
		if newTok == tok {
			t.Error("CSRF token not rotated at sign in")
		}
		if rec := b.post("/logout", url.Values{"csrf_token": {tok}}, nil); rec.Code != http.StatusForbidden {
			t.Errorf("logout with the pre-login token: %d, want 403", rec.Code)
		}
		// Signed in, /login leads home.
		if rec := b.get("/login"); rec.Code != http.StatusSeeOther {
			t.Errorf("GET /login signed in: %d, want 303", rec.Code)
		}

		rec = b.post("/logout", url.Values{"csrf_token": {newTok}}, nil)
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/login" {
			t.Fatalf("logout: status %d Location %q, want 303 to /login", rec.Code, rec.Header().Get("Location"))
		}
		if c := sessionCookie(t, rec); c.MaxAge >= 0 {
			t.Errorf("logout did not delete the cookie: %+v", c)
		}
		if rec := b.get("/"); rec.Code != http.StatusSeeOther {
			t.Errorf("GET / after logout: %d, want 303", rec.Code)
		}
	})
}

func TestLoginThrottling(t *testing.T) {
	ta := newTestApp(t, dbtest.MustOpenStore(t, "", t.TempDir()))
	b := ta.browser(t)
	tok := b.csrfToken(b.get("/login"))
	try := func(b *browser, tok, user, password string) int {
		return b.post("/login", url.Values{"username": {user}, "password": {password}, "csrf_token": {tok}}, nil).Code
	}
	for i := range 5 {
		if got := try(b, tok, "admin", "wrong-"+strconv.Itoa(i)); got != http.StatusUnauthorized {
			t.Fatalf("failure %d: status %d, want 401", i+1, got)
		}
	}
	rec := b.post("/login", url.Values{"username": {"admin"}, "password": {testAdminPassword}, "csrf_token": {tok}}, nil)
	if rec.Code != http.StatusTooManyRequests {
		t.Fatalf("after 5 failures, even the right password: status %d, want 429", rec.Code)
	}
	if got := testid(parseHTML(t, rec), "login-error").Text(); !strings.Contains(got, "Too many failed sign-ins") {
		t.Errorf("429 page says %q", got)
	}
	if rec.Header().Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	// Another client IP is not blocked.
	other := ta.browser(t)
	other.ip = "203.0.113.9"
	if got := try(other, other.csrfToken(other.get("/login")), "admin", testAdminPassword); got != http.StatusSeeOther {
		t.Errorf("another IP: status %d, want 303", got)
	}
}

// TestLoginThrottlingParallel: attempts are counted before the password is
// checked, so parallel attempts cannot slip past the limit.
func TestLoginThrottlingParallel(t *testing.T) {
	ta := newTestApp(t, dbtest.MustOpenStore(t, "", t.TempDir()))
	b := ta.browser(t)
	tok := b.csrfToken(b.get("/login"))
	codes := make(chan int, 40)
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			form := url.Values{"username": {"admin"}, "password": {"wrong-" + strconv.Itoa(i)}, "csrf_token": {tok}}
			codes <- b.post("/login", form, nil).Code
		})
	}
	wg.Wait()
	close(codes)
	count := map[int]int{}
	for c := range codes {
		count[c]++
	}
	if count[http.StatusUnauthorized] > 5 || count[http.StatusUnauthorized]+count[http.StatusTooManyRequests] != 40 {
		t.Fatalf("40 parallel wrong passwords got %v, want at most 5 × 401 and the rest 429", count)
	}
	rec := b.post("/login", url.Values{"username": {"admin"}, "password": {testAdminPassword}, "csrf_token": {tok}}, nil)
	if rec.Code != http.StatusTooManyRequests {
		t.Errorf("then the right password: status %d, want 429", rec.Code)
	}
}

// TestLoginThrottlingPerUsername: one client cycling IP addresses is stopped
// after 20 failures on a username.
func TestLoginThrottlingPerUsername(t *testing.T) {
	ta := newTestApp(t, dbtest.MustOpenStore(t, "", t.TempDir()))
	try := func(ip, user, password string) int {
		b := ta.browser(t)
		b.ip = ip
		tok := b.csrfToken(b.get("/login"))
		return b.post("/login", url.Values{"username": {user}, "password": {password}, "csrf_token": {tok}}, nil).Code
	}
	for i := range 20 {
		if got := try("203.0.113."+strconv.Itoa(i), "admin", "wrong"); got != http.StatusUnauthorized {
			t.Fatalf("failure %d from a new IP: status %d, want 401", i+1, got)
		}
	}
	if got := try("198.51.100.200", "admin", testAdminPassword); got != http.StatusTooManyRequests {
		t.Errorf("21st attempt on admin from yet another IP: status %d, want 429", got)
	}
	if got := try("198.51.100.200", "root", "wrong"); got != http.StatusUnauthorized {
		t.Errorf("another username: status %d, want 401", got)
	}
}

// TestLoginSuccessForgetsFailures: an admin who mistyped four times and then
// got it right starts afresh.
func TestLoginSuccessForgetsFailures(t *testing.T) {
	ta := newTestApp(t, dbtest.MustOpenStore(t, "", t.TempDir()))
	b := ta.browser(t)
	tok := b.csrfToken(b.get("/login"))
	try := func(password string) int {
		return b.post("/login", url.Values{"username": {"admin"}, "password": {password}, "csrf_token": {tok}}, nil).Code
	}
	for i := range 4 {
		if got := try("wrong"); got != http.StatusUnauthorized {
			t.Fatalf("failure %d: status %d, want 401", i+1, got)
		}
	}
	if got := try(testAdminPassword); got != http.StatusSeeOther {
		t.Fatalf("right password: status %d, want 303", got)
	}
	b = ta.browser(t)
	tok = b.csrfToken(b.get("/login"))
	for i := range 5 {
		if got := try("wrong"); got != http.StatusUnauthorized {
			t.Fatalf("after the success, failure %d: status %d, want 401", i+1, got)
		}
	}
}

func TestDashboard(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		p := mustProvider(t, s, "openai", "sk-provider-0000000000")
		mustDeployment(t, s, &models.Deployment{PublicName: "gpt-4o", ProviderID: p.ID, UpstreamModel: "a"})
		mustDeployment(t, s, &models.Deployment{PublicName: "gpt-4o", ProviderID: p.ID, UpstreamModel: "b"})
		mustDeployment(t, s, &models.Deployment{PublicName: "mini", ProviderID: p.ID, UpstreamModel: "c"})
		b := ta.browser(t)
		b.signIn()
		doc := parseHTML(t, b.get("/"))
		for id, want := range map[string]string{"count-providers": "1", "count-model-entries": "3", "count-pools": "2", "count-keys": "0"} {
			if got := strings.TrimSpace(testid(doc, id).Text()); got != want {
				t.Errorf("%s = %q, want %q", id, got, want)
			}
		}
		if _, ok := testid(doc, "nav-dashboard").Attr("aria-current"); !ok {
			t.Error("Dashboard is not marked current in the nav")
		}
	})
}

func TestLayout(t *testing.T) {
	ta := newTestApp(t, dbtest.MustOpenStore(t, "", t.TempDir()))
	b := ta.browser(t)
	tok := b.signIn()
	rec := b.get("/models")
	doc := parseHTML(t, rec)
	for _, id := range []string{"nav-dashboard", "nav-models", "nav-providers", "nav-keys", "nav-logs", "logout-form"} {
		if testid(doc, id).Length() != 1 {
			t.Errorf("layout has no %s", id)
		}
	}
	if got, _ := doc.Find("body").Attr("hx-headers"); got != `{"X-CSRF-Token":"`+tok+`"}` {
		t.Errorf("body hx-headers = %q", got)
	}
	if src, _ := doc.Find(`script[src^="/static/htmx.min.js"]`).Attr("src"); src == "" {
		t.Error("htmx not loaded from /static/htmx.min.js")
	}
	cfg, _ := doc.Find(`meta[name="htmx-config"]`).Attr("content")
	if !strings.Contains(cfg, `{"code":"422","swap":true`) {
		t.Errorf("htmx-config does not swap 422: %s", cfg)
	}
	if !strings.Contains(rec.Header().Get("Vary"), "HX-Request") {
		t.Error("page without Vary: HX-Request")
	}
	// Each admin page is in the nav and marked current there (admin_pages_test.go tests the pages).
	for _, name := range []string{"providers", "keys", "users", "teams", "logs", "sticky"} {
		doc := parseHTML(t, b.get("/"+name))
		if _, ok := testid(doc, "nav-"+name).Attr("aria-current"); !ok {
			t.Errorf("GET /%s: nav-%s is not marked current", name, name)
		}
	}
	if rec := b.get("/no-such-page"); rec.Code != http.StatusNotFound {
		t.Errorf("GET /no-such-page: %d, want 404", rec.Code)
	}
}

func TestStaticFiles(t *testing.T) {
	ta := newTestApp(t, dbtest.MustOpenStore(t, "", t.TempDir()))
	b := ta.browser(t)
	b.signIn()
	src, _ := parseHTML(t, b.get("/")).Find(`script[src^="/static/htmx.min.js"]`).Attr("src")
	rec := ta.do(t, "GET", src, "", nil)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `version:"2.0.11"`) {
		t.Fatalf("GET %s: %d, want htmx 2.0.11", src, rec.Code)
	}
	if got := rec.Header().Get("Cache-Control"); !strings.Contains(got, "immutable") {
		t.Errorf("versioned asset Cache-Control = %q, want immutable", got)
	}
	rec = ta.do(t, "GET", "/static/app.css", "", nil)
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/css") {
		t.Errorf("GET /static/app.css: %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	if got := rec.Header().Get("Cache-Control"); got != "no-cache" {
		t.Errorf("unversioned asset Cache-Control = %q, want no-cache", got)
	}
	if rec := ta.do(t, "GET", "/static/", "", nil); rec.Code != http.StatusNotFound {
		t.Errorf("GET /static/: %d, want 404 (no listing)", rec.Code)
	}
}

func TestModelsPage(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		p := mustProvider(t, s, "openai-main", "sk-provider-0000000000")
		q := mustProvider(t, s, "discount", "sk-provider-1111111111")
		unset := mustDeployment(t, s, &models.Deployment{PublicName: "gpt-4o", ProviderID: p.ID, UpstreamModel: "gpt-4o-2024-08-06",
			Prices: models.PricesOf(2.5, 10)})
		mustDeployment(t, s, &models.Deployment{PublicName: "gpt-4o", ProviderID: q.ID, UpstreamModel: "gpt-4o", Weight: ptr(9.0),
			CooldownSeconds: ptr(0)})
		mustDeployment(t, s, &models.Deployment{PublicName: "anthropic/*", ProviderID: q.ID, UpstreamModel: "*", CooldownSeconds: ptr(30)})
		b := ta.browser(t)
		b.signIn()
		rec := b.get("/models")
		if rec.Code != http.StatusOK {
			t.Fatalf("GET /models: %d", rec.Code)
		}
		doc := parseHTML(t, rec)
		if testid(doc, "nav").Length() != 1 {
			t.Error("full page without the nav")
		}
		pool := doc.Find(`[data-testid="pool"][data-public-name="gpt-4o"]`)
		if pool.Length() != 1 {
			t.Fatalf("want one pool gpt-4o, got %d", pool.Length())
		}
		if got := testid(pool, "pool-member-count").Text(); got != "2 members" {
			t.Errorf("pool-member-count = %q, want 2 members", got)
		}
		entries := pool.Find(`[data-testid="entry"]`)
		if entries.Length() != 2 {
			t.Fatalf("pool has %d entries, want 2", entries.Length())
		}
		first := entries.Filter(`[data-entry-id="` + jsonOf(t, unset.ID) + `"]`)
		for id, want := range map[string]string{
			"entry-provider": "openai-main", "entry-upstream-model": "gpt-4o-2024-08-06", "entry-weight": "unset",
			"entry-cooldown": "default", "entry-input-price": "2.5", "entry-output-price": "10", "entry-enabled": "enabled",
		} {
			if got := strings.TrimSpace(first.Find(`[data-testid="` + id + `"]`).Text()); got != want {
				t.Errorf("first entry %s = %q, want %q", id, got, want)
			}
		}
		second := entries.Not(`[data-entry-id="` + jsonOf(t, unset.ID) + `"]`)
		if got := strings.TrimSpace(second.Find(`[data-testid="entry-weight"]`).Text()); got != "9" {
			t.Errorf("second entry weight = %q, want 9", got)
		}
		if got := strings.TrimSpace(second.Find(`[data-testid="entry-cooldown"]`).Text()); got != "off" {
			t.Errorf("cooldown 0 shows %q, want off", got)
		}
		wild := doc.Find(`[data-testid="pool"][data-public-name="anthropic/*"]`)
		if testid(wild, "pool-wildcard").Length() != 1 || testid(wild, "pool-member-count").Text() != "1 member" {
			t.Errorf("wildcard pool not shown as such: %s", wild.Text())
		}
		form := testid(doc, "model-entry-form")
		if form.Length() != 1 || form.Find(`select[name="provider_id"] option[value]`).Length() != 3 {
			t.Errorf("add-entry form missing or without the 2 providers")
		}
		if testid(doc, "no-providers").Length() != 0 {
			t.Error("shows the add-a-provider hint while providers exist")
		}

		// htmx asks for the partial.
		rec = b.do("GET", "/models", nil, http.Header{"Hx-Request": {"true"}})
		if rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), "<html") || testid(parseHTML(t, rec), "pool").Length() != 2 {
			t.Errorf("htmx GET /models: %d, want the content without the layout:\n%s", rec.Code, rec.Body)
		}
		if !strings.Contains(rec.Header().Get("Vary"), "HX-Request") {
			t.Error("partial without Vary: HX-Request")
		}
	})
}

func TestModelsPageWithoutProviders(t *testing.T) {
	ta := newTestApp(t, dbtest.MustOpenStore(t, "", t.TempDir()))
	b := ta.browser(t)
	b.signIn()
	doc := parseHTML(t, b.get("/models"))
	if testid(doc, "no-providers").Length() != 1 {
		t.Fatal("empty Models page does not tell to add a provider first")
	}
	if hint := testid(doc, "provider-hint").Text(); !strings.Contains(hint, "curl -X POST http://admin.test/api/providers") {
		t.Errorf("provider hint = %q", hint)
	}
	if testid(doc, "no-models").Length() != 1 {
		t.Error("empty Models page does not say there are no entries")
	}
	if testid(doc, "model-entry-form").Length() != 0 {
		t.Error("shows the add-entry form without any provider")
	}
}

func TestAddModelEntryForm(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		p := mustProvider(t, s, "openai-main", "sk-provider-0000000000")
		pid := jsonOf(t, p.ID)
		b := ta.browser(t)
		tok := b.signIn()

		bad := url.Values{"csrf_token": {tok}, "public_name": {""}, "provider_id": {pid}, "upstream_model": {"gpt-4o"},
			"weight": {"heavy"}, "cooldown_seconds": {"-5"}, "input_price": {"1.5"}}
		rec := b.post("/models", bad, nil)
		if rec.Code != http.StatusUnprocessableEntity {
			t.Fatalf("invalid form: status %d, want 422", rec.Code)
		}
		doc := parseHTML(t, rec)
		if testid(doc, "nav").Length() != 1 {
			t.Error("invalid form without htmx: want the whole page")
		}
		for id, want := range map[string]string{
			"error-public_name": "is required", "error-weight": "must be a number", "error-cooldown_seconds": "must be 0 or more",
		} {
			if got := testid(doc, id).Text(); got != want {
				t.Errorf("%s = %q, want %q", id, got, want)
			}
		}
		if v, _ := testid(doc, "input-input_price").Attr("value"); v != "1.5" {
			t.Errorf("typed input_price not kept: %q", v)
		}
		if v, _ := testid(doc, "input-weight").Attr("aria-invalid"); v != "true" {
			t.Error("weight not marked aria-invalid")
		}
		if v, _ := doc.Find(`select[name="provider_id"] option[selected]`).Attr("value"); v != pid {
			t.Errorf("chosen provider not kept: %q", v)
		}

		// htmx: the form alone, 422, which the layout's htmx-config swaps.
		bad.Set("public_name", "a*b")
		rec = b.post("/models", bad, http.Header{"Hx-Request": {"true"}})
		if rec.Code != http.StatusUnprocessableEntity {
			t.Fatalf("invalid htmx form: status %d, want 422", rec.Code)
		}
		if strings.Contains(rec.Body.String(), "<html") || !strings.HasPrefix(strings.TrimSpace(rec.Body.String()), `<form`) {
			t.Errorf("htmx error answer is not the form alone:\n%s", rec.Body)
		}
		doc = parseHTML(t, rec)
		if got := testid(doc, "error-public_name").Text(); !strings.Contains(got, "* only as its last character") {
			t.Errorf("error-public_name = %q", got)
		}
		if id, _ := testid(doc, "model-entry-form").Attr("id"); id != "model-entry-form" {
			t.Errorf("form id = %q", id)
		}
		if v, _ := doc.Find(`input[name="csrf_token"]`).Attr("value"); v != tok {
			t.Error("re-rendered form lost its CSRF token")
		}

		// An unknown provider is reported on its field.
		rec = b.post("/models", url.Values{"csrf_token": {tok}, "public_name": {"x"}, "provider_id": {"9999"}, "upstream_model": {"m"}}, nil)
		if rec.Code != http.StatusUnprocessableEntity {
			t.Fatalf("unknown provider: status %d, want 422", rec.Code)
		}
		if got := testid(parseHTML(t, rec), "error-provider_id").Text(); got != "no provider with id 9999" {
			t.Errorf("error-provider_id = %q", got)
		}
		entryCount(0)(t, s)
		if ta.reloader.n.Load() != 0 {
			t.Error("a refused form reloaded the routing table")
		}

		good := url.Values{"csrf_token": {tok}, "public_name": {"gpt-4o"}, "provider_id": {pid}, "upstream_model": {"gpt-4o"}, "weight": {"0"}}
		rec = b.post("/models", good, nil)
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/models" {
			t.Fatalf("valid form: status %d Location %q, want 303 to /models\n%s", rec.Code, rec.Header().Get("Location"), rec.Body)
		}
		good.Set("weight", "")
		rec = b.post("/models", good, http.Header{"Hx-Request": {"true"}})
		if rec.Code != http.StatusOK || rec.Header().Get("HX-Redirect") != "/models" {
			t.Fatalf("valid htmx form: status %d HX-Redirect %q, want 200 with HX-Redirect: /models", rec.Code, rec.Header().Get("HX-Redirect"))
		}
		if got := ta.reloader.n.Load(); got != 2 {
			t.Errorf("Reload called %d times, want 2", got)
		}
		doc = parseHTML(t, b.get("/models"))
		weights := doc.Find(`[data-public-name="gpt-4o"] [data-testid="entry-weight"]`)
		if weights.Length() != 2 || strings.TrimSpace(weights.Eq(0).Text()) != "0" || strings.TrimSpace(weights.Eq(1).Text()) != "unset" {
			t.Errorf("weights = %q, want 0 then unset", weights.Text())
		}
	})
}

func TestSecureCookies(t *testing.T) {
	s := dbtest.MustOpenStore(t, "", t.TempDir())
	app, err := handlers.New(s, handlers.Options{SessionKey: make([]byte, 32), SecureCookies: true})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, httptest.NewRequest("GET", "/login", nil))
	if c := sessionCookie(t, rec); !c.Secure || !c.HttpOnly {
		t.Errorf("cookie = %+v, want Secure and HttpOnly", c)
	}
}
