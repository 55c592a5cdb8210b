package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"gateway/models"
	"gateway/models/dbtest"
)

// ppMember is one member row of the pool status page, by upstream model.
func ppMembers(doc finder) map[string]*goquery.Selection {
	out := map[string]*goquery.Selection{}
	testid(doc, "member").Each(func(_ int, s *goquery.Selection) {
		out[strings.TrimSpace(testid(s, "member-upstream-model").Text())] = s
	})
	return out
}

func ppText(s *goquery.Selection, id string) string {
	return strings.TrimSpace(testid(s, id).Text())
}

// ppUpstream answers every request with status and an OpenAI-shaped error
// that quotes the key it was sent, as OpenAI's 401 does.
func ppUpstream(t *testing.T, status int) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s.","type":"invalid_request_error","code":"invalid_api_key"}}`,
			strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestPoolStatusPage(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		e := newRuntimeEnv(t, s)
		ctx := context.Background()
		a := e.entry(t, "gpt-4o", "ok-a", ptr(1.0), true)
		b := e.entry(t, "gpt-4o", rateLimitedModel, ptr(3.0), true)
		c := e.entry(t, "gpt-4o", "ok-c", nil, true)
		e.entry(t, "gpt-4o", "ok-d", ptr(5.0), false)
		e.entry(t, "gpt-4o", "ok-e", ptr(0.0), true)
		e.entry(t, "openai/*", "*", nil, true)
		e.reload(t)
		// b answers 429 with retry-after 3600 and cools down.
		pin := fmt.Sprintf(`{"model_name":"gpt-4o","deployment_id":%d}`, b)
		if rec := e.api(t, "POST", "/api/sticky", pin); rec.Code != http.StatusCreated {
			t.Fatalf("pin: %d %s", rec.Code, rec.Body)
		}
		if status, _ := e.chat(t, "gpt-4o"); status != http.StatusOK {
			t.Fatalf("chat: %d", status)
		}
		// b's failure cleared the pin; pinned again while it cools down, the
		// pin is taken but said not to be in effect.
		rec := e.api(t, "POST", "/api/sticky", pin)
		if rec.Code != http.StatusCreated || !strings.Contains(rec.Body.String(), `"not_in_effect":"the member is cooling down until`) {
			t.Fatalf("pin to a cooling member: %d %s", rec.Code, rec.Body)
		}
		checkedAt := testNow.Add(-time.Minute)
		if err := s.SaveHealthCheck(ctx, &models.HealthCheck{DeploymentID: a, CheckedAt: checkedAt, OK: true, LatencyMS: 120}); err != nil {
			t.Fatal(err)
		}
		if err := s.SaveHealthCheck(ctx, &models.HealthCheck{DeploymentID: c, CheckedAt: checkedAt, OK: false, Error: "HTTP 500: boom"}); err != nil {
			t.Fatal(err)
		}
		calls := e.up.calls.Load()

		br := e.browser(t)
		br.signIn()
		if sticky := br.get("/sticky"); !strings.Contains(testid(parseHTML(t, sticky), "binding-not-in-effect").Text(), "cooling down") {
			t.Errorf("the sticky page does not say the pin is not in effect:\n%s", sticky.Body)
		}
		rec = br.get("/pools/gpt-4o")
		if rec.Code != http.StatusOK {
			t.Fatalf("GET /pools/gpt-4o: %d\n%s", rec.Code, rec.Body)
		}
		doc := parseHTML(t, rec)
		if testid(doc, "nav").Length() != 1 || ppText(doc.Selection, "pool-status-name") != "gpt-4o" {
			t.Error("the page lacks the nav or the pool's name")
		}
		if !strings.Contains(testid(doc, "pool-status-note").Text(), "in-memory") {
			t.Error("no note that cooldowns are this process's in-memory view")
		}
		if href, _ := testid(doc, "pool-history").Attr("href"); href != "/audit?id=gpt-4o&kind=pool" {
			t.Errorf("the pool's History link is %q", href)
		}
		if n := e.up.calls.Load() - calls; n != 0 {
			t.Errorf("loading the page called the upstream %d times", n)
		}
		rows := ppMembers(doc)
		if len(rows) != 5 {
			t.Fatalf("%d member rows, want 5 (the disabled one too)", len(rows))
		}
		for model, want := range map[string][3]string{ // weight, planned, current
			"ok-a":           {"1", "25%", "100%"},
			rateLimitedModel: {"3", "75%", "0%"},
			"ok-c":           {"unset", "0%", "0%"},
			"ok-d":           {"5", "0%", "0%"},
			"ok-e":           {"0", "0%", "0%"},
		} {
			r := rows[model]
			got := [3]string{ppText(r, "member-weight"), ppText(r, "member-planned-share"), ppText(r, "member-share")}
			if got != want {
				t.Errorf("%s: weight, planned, current = %v, want %v", model, got, want)
			}
		}
		if testid(rows["ok-d"], "member-disabled").Length() != 1 {
			t.Error("the disabled member is not marked")
		}
		for model, want := range map[string]int{"ok-e": 1, "ok-a": 0, "ok-c": 0} {
			if got := testid(rows[model], "member-reserve").Length(); got != want {
				t.Errorf("%s: %d reserve labels, want %d", model, got, want)
			}
		}
		cooled := rows[rateLimitedModel]
		if testid(cooled, "member-cooling").Length() != 1 ||
			ppText(cooled, "member-cooldown-until") != testNow.Add(time.Hour).Format("2006-01-02 15:04:05") ||
			!strings.Contains(ppText(cooled, "member-cooldown-reason"), "Rate limit") {
			t.Errorf("cooling member: %q", testid(cooled, "member-cooldown").Text())
		}
		if testid(rows["ok-a"], "member-cooling").Length() != 0 || testid(rows["ok-a"], "end-cooldown").Length() != 0 {
			t.Error("a healthy member shows a cooldown")
		}
		// The admin's pin to the member now cooling down routes nothing, and says so.
		if pin := testid(doc, "pool-pin"); !strings.Contains(pin.Text(), "Pinned by an admin") ||
			!strings.Contains(ppText(pin, "pool-pin-not-in-effect"), "cooling down") {
			t.Errorf("the pin to a cooling member: %q", pin.Text())
		}
		end := testid(cooled, "end-cooldown").Closest("form")
		if post, _ := end.Attr("hx-post"); post != fmt.Sprintf("/pools/gpt-4o/members/%d/end-cooldown", b) {
			t.Fatalf("End cooldown posts to %q", post)
		}
		if ppText(rows["ok-a"], "member-check-status") != "ok" || ppText(rows["ok-a"], "member-check-latency") != "120 ms" ||
			ppText(rows["ok-a"], "member-check-at") != checkedAt.Format("2006-01-02 15:04:05") {
			t.Errorf("a's last check: %q", testid(rows["ok-a"], "member-check").Text())
		}
		if ppText(rows["ok-c"], "member-check-status") != "failed" || ppText(rows["ok-c"], "member-check-error") != "HTTP 500: boom" {
			t.Errorf("c's last check: %q", testid(rows["ok-c"], "member-check").Text())
		}
		if testid(rows[rateLimitedModel], "member-never-checked").Length() != 1 {
			t.Error("a member never checked does not say so")
		}
		form := testid(doc, "check-form")
		if post, _ := form.Attr("hx-post"); post != "/pools/gpt-4o/check" || testid(form, "check-now").Length() != 1 {
			t.Errorf("Check now posts to %q", post)
		}
		if strings.Contains(rec.Body.String(), "hx-trigger") {
			t.Error("the check runs on a trigger: it must be a button only")
		}

		// End cooldown: the member is back at once, and the pin to it in effect.
		tok := br.csrfToken(rec)
		ended := br.post(fmt.Sprintf("/pools/gpt-4o/members/%d/end-cooldown", b), url.Values{"csrf_token": {tok}}, http.Header{"Hx-Request": {"true"}})
		if ended.Code != http.StatusOK {
			t.Fatalf("end cooldown: %d\n%s", ended.Code, ended.Body)
		}
		after := parseHTML(t, ended)
		if testid(ppMembers(after)[rateLimitedModel], "member-cooling").Length() != 0 || !strings.Contains(ppText(after.Selection, "check-summary"), rateLimitedModel+" ended") {
			t.Errorf("after End cooldown: %s", ended.Body)
		}
		if pin := testid(after, "pool-pin"); pin.Length() != 1 || testid(pin, "pool-pin-not-in-effect").Length() != 0 {
			t.Errorf("the pin after the cooldown ended: %q", pin.Text())
		}
		if !strings.Contains(e.logs.String(), "cooldown ended") {
			t.Error("ending a cooldown was not logged")
		}
		if rec := br.post("/pools/gpt-4o/members/999999/end-cooldown", url.Values{"csrf_token": {tok}}, nil); rec.Code != http.StatusNotFound {
			t.Errorf("end the cooldown of no member: %d", rec.Code)
		}

		// A wildcard route by its escaped pattern: its pattern member is not checkable.
		rec = br.get("/pools/openai%2F%2A")
		doc = parseHTML(t, rec)
		if rec.Code != http.StatusOK || ppText(doc.Selection, "pool-status-name") != "openai/*" || testid(doc, "member-uncheckable").Length() != 1 {
			t.Errorf("wildcard pool page: %d\n%s", rec.Code, rec.Body)
		}
		if post, _ := testid(doc, "check-form").Attr("hx-post"); post != "/pools/openai%2F%2A/check" {
			t.Errorf("wildcard Check now posts to %q", post)
		}
		// htmx asks for the content alone.
		rec = br.do("GET", "/pools/gpt-4o", nil, http.Header{"Hx-Request": {"true"}})
		if rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), "<html") || testid(parseHTML(t, rec), "pool-members").Length() != 1 {
			t.Errorf("htmx GET: %d", rec.Code)
		}
		for path, status := range map[string]int{"/pools/nope": 404, "/pools/a%2A-b": 400} {
			if rec := br.get(path); rec.Code != status || testid(parseHTML(t, rec), "error-message").Length() != 1 {
				t.Errorf("GET %s: %d, want %d with a message", path, rec.Code, status)
			}
		}
	})
}

// TestCheckNow: the button calls every enabled member in its own protocol
// against real (httptest) upstreams, one healthy and failing ones, stores
// the results, and swaps in the member table; the API does the same.
func TestCheckNow(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		e := newRuntimeEnv(t, s)
		ctx := context.Background()
		const key = "sk-CHECKLEAK-provider-secret-0042"
		refusing, refusingCalls := ppUpstream(t, http.StatusUnauthorized)
		p := &models.Provider{Name: "refusing", APIType: models.APITypeOpenAI, BaseURL: refusing.URL + "/v1"}
		if err := s.CreateProvider(ctx, p, models.ProviderSecrets{APIKey: key}); err != nil {
			t.Fatal(err)
		}
		ok := e.entry(t, "team", "ok-a", ptr(1.0), true)
		bad := &models.Deployment{PublicName: "team", ProviderID: p.ID, UpstreamModel: "gpt-x", Weight: ptr(1.0), Enabled: true}
		if err := s.CreateDeployment(ctx, bad); err != nil {
			t.Fatal(err)
		}
		off := e.entry(t, "team", "ok-off", nil, false)
		e.reload(t)
		br := e.browser(t)
		tok := br.signIn()

		rec := mpHTMX(br, "/pools/team/check", tok, nil)
		if rec.Code != http.StatusOK || !strings.HasPrefix(strings.TrimSpace(rec.Body.String()), `<div id="pool-members"`) {
			t.Fatalf("Check now: %d, want the member table alone\n%s", rec.Code, rec.Body)
		}
		doc := parseHTML(t, rec)
		if got := testid(doc, "check-summary").Text(); !strings.Contains(got, "Checked 2 members") || !strings.Contains(got, "1 ok, 1 failed") {
			t.Errorf("summary = %q", got)
		}
		rows := ppMembers(doc)
		if ppText(rows["ok-a"], "member-check-status") != "ok" || ppText(rows["ok-a"], "member-check-latency") == "" {
			t.Errorf("healthy member: %q", testid(rows["ok-a"], "member-check").Text())
		}
		if ppText(rows["gpt-x"], "member-check-status") != "failed" ||
			!strings.HasPrefix(ppText(rows["gpt-x"], "member-check-error"), "HTTP 401: Incorrect API key provided:") {
			t.Errorf("failing member: %q", testid(rows["gpt-x"], "member-check").Text())
		}
		// The failed check takes the member out of the current share only.
		if ppText(rows["gpt-x"], "member-share") != "0%" || ppText(rows["gpt-x"], "member-planned-share") != "50%" ||
			ppText(rows["ok-a"], "member-share") != "100%" {
			t.Errorf("shares after the check: a %s, x %s/%s", ppText(rows["ok-a"], "member-share"),
				ppText(rows["gpt-x"], "member-share"), ppText(rows["gpt-x"], "member-planned-share"))
		}
		if testid(rows["ok-off"], "member-never-checked").Length() != 1 {
			t.Error("the disabled member was checked")
		}
		if e.up.calls.Load() != 1 || refusingCalls.Load() != 1 {
			t.Errorf("upstream calls: healthy %d, refusing %d, want 1 each", e.up.calls.Load(), refusingCalls.Load())
		}
		hs, err := s.ListHealthChecks(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(hs) != 2 || hs[0].DeploymentID != ok || !hs[0].OK || hs[1].DeploymentID != bad.ID || hs[1].OK || hs[1].Error == "" {
			t.Errorf("stored checks = %+v", hs)
		}
		for _, h := range hs {
			if h.DeploymentID == off {
				t.Error("a check of the disabled member was stored")
			}
		}

		// Without htmx: a 303 back to the page, which shows the results.
		rec = br.post("/pools/team/check", map[string][]string{"csrf_token": {tok}}, nil)
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/pools/team" {
			t.Errorf("Check now without htmx: %d %q", rec.Code, rec.Header().Get("Location"))
		}

		// The API: a check, answered like the status.
		rec = e.api(t, "POST", "/api/pools/team/check", "")
		if rec.Code != http.StatusOK {
			t.Fatalf("API check: %d %s", rec.Code, rec.Body)
		}
		st := decodeJSON[poolStatus](t, rec)
		if st.PublicName != "team" || len(st.Members) != 3 || st.Members[0].LastCheck == nil || !st.Members[0].LastCheck.OK ||
			st.Members[1].LastCheck == nil || st.Members[1].LastCheck.OK || st.Members[2].LastCheck != nil {
			t.Errorf("API check answer: %s", rec.Body)
		}
		wantShares(t, st, []float64{1, 0, 0}, []float64{0.5, 0.5, 0})
		if e.up.calls.Load() != 3 || refusingCalls.Load() != 3 {
			t.Errorf("after three checks: healthy %d, refusing %d calls, want 3 each", e.up.calls.Load(), refusingCalls.Load())
		}
		for path, status := range map[string]int{"/api/pools/nope/check": 404, "/api/pools/a%2A-b/check": 400} {
			if rec := e.api(t, "POST", path, ""); rec.Code != status {
				t.Errorf("POST %s: %d, want %d", path, rec.Code, status)
			}
		}
		if rec := mpHTMX(br, "/pools/nope/check", tok, nil); rec.Code != http.StatusNotFound {
			t.Errorf("Check now of an unknown pool: %d, want 404", rec.Code)
		}

		// The provider key appears nowhere: partial, page, API, store, log.
		var seen []string
		seen = append(seen, mpHTMX(br, "/pools/team/check", tok, nil).Body.String(), br.get("/pools/team").Body.String(),
			br.get("/models").Body.String(), e.api(t, "POST", "/api/pools/team/check", "").Body.String(), e.logs.String())
		hs, _ = s.ListHealthChecks(ctx)
		for _, h := range hs {
			seen = append(seen, h.Error)
		}
		for _, text := range seen {
			if strings.Contains(text, key) || strings.Contains(text, key[:12]) {
				t.Errorf("the provider key leaked:\n%s", text)
			}
		}
		if !strings.Contains(strings.Join(seen, "\n"), "Incorrect API key provided") {
			t.Error("the upstream's message is not shown: is the test reading the answers?")
		}
	})
}

// TestPoolPagesWithoutProxy: an admin listener without a proxy says so.
func TestPoolPagesWithoutProxy(t *testing.T) {
	ta := newTestApp(t, dbtest.MustOpenStore(t, "", t.TempDir()))
	p := mustProvider(t, ta.store, "openai", "sk-provider-0000000000")
	mustDeployment(t, ta.store, &models.Deployment{PublicName: "gpt-4o", ProviderID: p.ID, UpstreamModel: "a", Weight: ptr(2.0)})
	b := ta.browser(t)
	tok := b.signIn()
	if rec := b.get("/pools/gpt-4o"); rec.Code != http.StatusServiceUnavailable {
		t.Errorf("pool page without a proxy: %d, want 503", rec.Code)
	}
	if rec := mpHTMX(b, "/pools/gpt-4o/check", tok, nil); rec.Code != http.StatusServiceUnavailable {
		t.Errorf("Check now without a proxy: %d, want 503", rec.Code)
	}
	if rec := ta.api(t, "POST", "/api/pools/gpt-4o/check", ""); rec.Code != http.StatusServiceUnavailable {
		t.Errorf("API check without a proxy: %d, want 503", rec.Code)
	}
	// The Models page still works, without shares.
	doc := parseHTML(t, b.get("/models"))
	if g := mpGroup(doc, "gpt-4o"); testid(g, "entry").Length() != 1 || testid(g, "entry-share-value").Length() != 0 {
		t.Errorf("Models page without a proxy: %q", g.Text())
	}
}
