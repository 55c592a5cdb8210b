package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"gateway/handlers"
	"gateway/models"
	"gateway/proxy"
)

const (
	testMasterKey     = "mk-test-master-key-0123456789"
	testAdminPassword = "correct horse battery"
)

// countingReloader counts Reload calls; err makes them fail, and next, when
// set, is the real reloader they go on to.
type countingReloader struct {
	n    atomic.Int64
	err  error
	next handlers.Reloader
}

func (c *countingReloader) Reload(ctx context.Context) error {
	c.n.Add(1)
	if c.err != nil || c.next == nil {
		return c.err
	}
	return c.next.Reload(ctx)
}

// syncBuffer collects log output from concurrent handlers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type testApp struct {
	app      *handlers.App
	store    *models.Store
	reloader *countingReloader
	logs     *syncBuffer
}

// newTestApp builds the admin handlers over s with an admin user "admin".
func newTestApp(t *testing.T, s *models.Store) *testApp {
	t.Helper()
	return newTestAppWith(t, s, nil)
}

// newTestAppWith is newTestApp with rt as the proxy's runtime state, which
// every admin write also reloads.
func newTestAppWith(t *testing.T, s *models.Store, rt *proxy.Server) *testApp {
	t.Helper()
	logs := &syncBuffer{}
	reloader := &countingReloader{}
	opts := handlers.Options{
		Logger:     slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		MasterKey:  testMasterKey,
		SessionKey: []byte("0123456789abcdef0123456789abcdef-session"),
		Reloader:   reloader,
	}
	if rt != nil {
		opts.Runtime, reloader.next = rt, rt
	}
	app, err := handlers.New(s, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateAdminUser(context.Background(), &models.AdminUser{Username: "admin", Role: models.RoleOwner}, testAdminPassword); err != nil {
		t.Fatal(err)
	}
	return &testApp{app: app, store: s, reloader: reloader, logs: logs}
}

// api sends a request with the master key.
func (ta *testApp) api(t *testing.T, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	return ta.do(t, method, path, body, http.Header{"Authorization": {"Bearer " + testMasterKey}})
}

func (ta *testApp) do(t *testing.T, method, path, body string, h http.Header) *httptest.ResponseRecorder {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, r)
	req.RemoteAddr = "192.0.2.1:1234"
	for k, vs := range h {
		req.Header[k] = vs
	}
	if body != "" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	ta.app.ServeHTTP(rec, req)
	return rec
}

// decodeJSON decodes an answer body into a map (or a list of maps).
func decodeJSON[T any](t *testing.T, rec *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Fatalf("answer is not JSON %T: %v\n%s", v, err, rec.Body)
	}
	return v
}

// errorMessage is the message of an {"error":{"message":…}} answer.
func errorMessage(t *testing.T, rec *httptest.ResponseRecorder) string {
	t.Helper()
	var body struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Error.Message == "" {
		t.Fatalf("answer is not a JSON error (%v): %s", err, rec.Body)
	}
	return body.Error.Message
}

// browser is an admin's browser: it keeps cookies and follows nothing.
type browser struct {
	t      *testing.T
	ta     *testApp
	jar    *cookiejar.Jar
	ip     string
	header http.Header
}

var adminURL = &url.URL{Scheme: "http", Host: "admin.test", Path: "/"}

func (ta *testApp) browser(t *testing.T) *browser {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &browser{t: t, ta: ta, jar: jar, ip: "198.51.100.7", header: http.Header{}}
}

func (b *browser) do(method, path string, body io.Reader, h http.Header) *httptest.ResponseRecorder {
	b.t.Helper()
	req := httptest.NewRequest(method, "http://admin.test"+path, body)
	req.RemoteAddr = b.ip + ":5555"
	for _, c := range b.jar.Cookies(adminURL) {
		req.AddCookie(c)
	}
	for k, vs := range b.header {
		req.Header[k] = vs
	}
	for k, vs := range h {
		req.Header[k] = vs
	}
	rec := httptest.NewRecorder()
	b.ta.app.ServeHTTP(rec, req)
	b.jar.SetCookies(adminURL, rec.Result().Cookies())
	return rec
}

func (b *browser) get(path string) *httptest.ResponseRecorder {
	b.t.Helper()
	return b.do(http.MethodGet, path, nil, nil)
}

// post sends a form; the CSRF token is not added by itself.
func (b *browser) post(path string, form url.Values, h http.Header) *httptest.ResponseRecorder {
	b.t.Helper()
	if h == nil {
		h = http.Header{}
	}
	h.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(http.MethodPost, path, strings.NewReader(form.Encode()), h)
}

// csrfToken reads the token from the page's meta tag or hidden field.
func (b *browser) csrfToken(rec *httptest.ResponseRecorder) string {
	b.t.Helper()
	doc := parseHTML(b.t, rec)
	if tok, ok := doc.Find(`meta[name="csrf-token"]`).Attr("content"); ok && tok != "" {
		return tok
	}
	if tok, ok := doc.Find(`input[name="csrf_token"]`).Attr("value"); ok && tok != "" {
		return tok
	}
	b.t.Fatalf("no CSRF token on the page:\n%s", rec.Body)
	return ""
}

// signIn signs in as admin and returns the CSRF token of the new session.
func (b *browser) signIn() string {
	b.t.Helper()
	tok := b.csrfToken(b.get("/login"))
	rec := b.post("/login", url.Values{"username": {"admin"}, "password": {testAdminPassword}, "csrf_token": {tok}}, nil)
	if rec.Code != http.StatusSeeOther {
		b.t.Fatalf("sign in: status %d, want 303\n%s", rec.Code, rec.Body)
	}
	return b.csrfToken(b.get("/"))
}

func parseHTML(t *testing.T, rec *httptest.ResponseRecorder) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(rec.Body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// finder is a goquery document or selection.
type finder interface {
	Find(selector string) *goquery.Selection
}

// testid finds elements by data-testid.
func testid(in finder, id string) *goquery.Selection {
	return in.Find(`[data-testid="` + id + `"]`)
}

func mustProvider(t *testing.T, s *models.Store, name, key string) *models.Provider {
	t.Helper()
	p := &models.Provider{Name: name, APIType: models.APITypeOpenAI, BaseURL: "https://api.example.com/v1"}
	if err := s.CreateProvider(context.Background(), p, models.ProviderSecrets{APIKey: key}); err != nil {
		t.Fatal(err)
	}
	return p
}

func mustDeployment(t *testing.T, s *models.Store, d *models.Deployment) *models.Deployment {
	t.Helper()
	d.Enabled = true
	if err := s.CreateDeployment(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	return d
}

func ptr[T any](v T) *T { return &v }

var errReloadFailed = errors.New("snapshot build failed")

// rateLimitedModel is the upstream model the fake upstream answers with a
// 429 and retry-after: 3600, as a provider over its quota does.
const rateLimitedModel = "rate-limited"

// fakeUpstream is an OpenAI chat completions endpoint speaking the real wire
// format; it counts what it is sent.
type fakeUpstream struct {
	*httptest.Server
	calls atomic.Int64
}

func newFakeUpstream(t *testing.T) *fakeUpstream {
	t.Helper()
	f := &fakeUpstream{}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeUpstream) serve(w http.ResponseWriter, r *http.Request) {
	f.calls.Add(1)
	var body struct {
		Model string `json:"model"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, `{"error":{"message":"bad json","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if body.Model == rateLimitedModel {
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`)
		return
	}
	fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1760000000,"model":%q,`+
		`"choices":[{"index":0,"message":{"role":"assistant","content":"hello"},"finish_reason":"stop"}],`+
		`"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`, body.Model)
}

// testNow is the proxy's clock in runtime tests: it stands still, so that
// cooldown deadlines and sticky TTLs are exact.
var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// runtimeEnv is the admin handlers with a real proxy as their runtime state,
// on one store, in front of a fake upstream.
type runtimeEnv struct {
	*testApp
	proxy    *proxy.Server
	gw       *httptest.Server
	up       *fakeUpstream
	provider *models.Provider
	key      string
}

func newRuntimeEnv(t *testing.T, s *models.Store) *runtimeEnv {
	t.Helper()
	e := &runtimeEnv{up: newFakeUpstream(t)}
	e.proxy = proxy.New(s, proxy.Options{
		Now: func() time.Time { return testNow },
		// Backoffs between retries pass at once.
		Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() },
	})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := e.proxy.Close(ctx); err != nil {
			t.Errorf("close proxy: %v", err)
		}
	})
	e.gw = httptest.NewServer(e.proxy)
	t.Cleanup(e.gw.Close)
	e.testApp = newTestAppWith(t, s, e.proxy)
	e.provider = &models.Provider{Name: "fake-openai", APIType: models.APITypeOpenAI, BaseURL: e.up.URL + "/v1"}
	if err := s.CreateProvider(context.Background(), e.provider, models.ProviderSecrets{APIKey: "sk-upstream-0123456789"}); err != nil {
		t.Fatal(err)
	}
	key, err := s.CreateKey(context.Background(), &models.VirtualKey{Name: "runtime test"})
	if err != nil {
		t.Fatal(err)
	}
	e.key = key
	return e
}

// entry stores a model entry on the fake upstream; reload when done adding.
func (e *runtimeEnv) entry(t *testing.T, publicName, upstreamModel string, weight *float64, enabled bool) int64 {
	t.Helper()
	d := &models.Deployment{PublicName: publicName, ProviderID: e.provider.ID, UpstreamModel: upstreamModel, Weight: weight, Enabled: enabled}
	if err := e.store.CreateDeployment(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	return d.ID
}

func (e *runtimeEnv) reload(t *testing.T) {
	t.Helper()
	if err := e.proxy.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// chat sends one chat completion through the proxy and returns its status
// and the deployment that served it.
func (e *runtimeEnv) chat(t *testing.T, model string) (int, string) {
	t.Helper()
	body := fmt.Sprintf(`{"model":%q,"messages":[{"role":"user","content":"hi"}]}`, model)
	req, err := http.NewRequest(http.MethodPost, e.gw.URL+"/v1/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("x-gateway-deployment-id")
}

// loginFor is where a signed-out GET of path is sent: the sign-in page,
// returning to path.
func loginFor(path string) string {
	if path == "/" {
		return "/login"
	}
	return "/login?next=" + url.QueryEscape(path)
}
