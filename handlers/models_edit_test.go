package handlers_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"gateway/models"
	"gateway/models/dbtest"
	"gateway/proxy"
)

// Tests of the Models page's entry edit form, pool settings form, "Add
// member" and live cooldowns.

// mpRow is the row (or edit row) of one entry in a group.
func mpRow(doc finder, name string, id int64) *goquery.Selection {
	return mpGroup(doc, name).Find(`[data-entry-id="` + mpID(id) + `"]`)
}

// mpEditForm is an entry's edit form with every field, as the page fills it in.
func mpEditForm(tok string, providerID int64, kv ...string) url.Values {
	f := formOf(tok, "provider_id", mpID(providerID), "upstream_model", "up-b", "weight", "1",
		"input_price", "0", "output_price", "0", "enabled", "true")
	for i := 0; i+1 < len(kv); i += 2 {
		f.Set(kv[i], kv[i+1])
	}
	return f
}

func TestEntryEditForm(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		e := newRuntimeEnv(t, s)
		ctx := context.Background()
		a := e.entry(t, "team", "up-a", ptr(1.0), true)
		b := e.entry(t, "team", "up-b", ptr(1.0), true)
		e.reload(t)
		br := e.browser(t)
		tok := br.signIn()

		// Edit: the group comes back with b's row as its form, filled in.
		rec := br.do("GET", "/models/"+mpID(b)+"/edit", nil, hx())
		wantStatus(t, "edit", rec, http.StatusOK)
		wantPartial(t, "edit", rec)
		row := mpRow(parseHTML(t, rec), "team", b)
		if !row.Is(`[data-testid="entry-edit-row"]`) {
			t.Fatalf("b's row is not the edit form:\n%s", rec.Body)
		}
		for name, want := range map[string]string{"upstream_model": "up-b", "weight": "1", "input_price": "", "timeout_seconds": ""} {
			if v, _ := testid(row, "input-"+name).Attr("value"); v != want {
				t.Errorf("edit form %s = %q, want %q", name, v, want)
			}
		}
		if _, checked := testid(row, "input-enabled").Attr("checked"); !checked {
			t.Error("enabled is not checked")
		}
		if v, _ := row.Find(`[data-testid="input-provider_id"] option[selected]`).Attr("value"); v != mpID(e.provider.ID) {
			t.Errorf("selected provider %q", v)
		}

		// Save: every field written, the group back with new shares, one reload.
		reloads := e.reloader.n.Load()
		rec = mpHTMX(br, "/models/"+mpID(b), tok, mpEditForm("", e.provider.ID,
			"upstream_model", "up-b2", "weight", "3", "input_price", "2.5", "output_price", "10",
			"cooldown_seconds", "30", "context_window", "128000", "timeout_seconds", "90",
			"cache_write_1h_price", "5", "long_context_threshold", "128000", "long_input_price", "5", "base_model", "gpt-4o"))
		wantStatus(t, "save", rec, http.StatusOK)
		doc := parseHTML(t, rec)
		row = mpRow(doc, "team", b)
		if text(row, "entry-upstream-model") != "up-b2" || text(row, "entry-input-price") != "2.5" || text(row, "entry-output-price") != "10" {
			t.Errorf("saved row: %q", row.Text())
		}
		wantMap(t, "shares after edit", mpShares(mpGroup(doc, "team")), map[string]string{mpID(a): "25%", mpID(b): "75%"})
		if got := e.reloader.n.Load() - reloads; got != 1 {
			t.Errorf("reloads = %d, want 1", got)
		}
		d, err := s.GetDeployment(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		if d.UpstreamModel != "up-b2" || *d.Weight != 3 || d.InputPrice == nil || *d.InputPrice != 2.5 || d.OutputPrice == nil || *d.OutputPrice != 10 ||
			*d.CooldownSeconds != 30 || *d.ContextWindow != 128000 || *d.TimeoutSeconds != 90 || !d.Enabled || d.PublicName != "team" {
			t.Errorf("stored: %+v", d)
		}
		if d.CacheWrite1hPrice == nil || *d.CacheWrite1hPrice != 5 || d.LongContextThreshold == nil || *d.LongContextThreshold != 128000 ||
			d.LongInputPrice == nil || *d.LongInputPrice != 5 || d.CacheReadPrice != nil || d.BaseModel != "gpt-4o" {
			t.Errorf("stored prices: %s, base model %q", jsonOf(t, d.Prices), d.BaseModel)
		}
		if rec := br.get("/models/" + mpID(b) + "/edit"); !strings.Contains(rec.Body.String(), `name="cache_write_1h_price" value="5"`) {
			t.Errorf("the edit form does not show the 1-hour write price")
		}

		// Unchecked enabled disables; blanks unset the optional fields.
		rec = mpHTMX(br, "/models/"+mpID(b), tok, url.Values{"provider_id": {mpID(e.provider.ID)}, "upstream_model": {"up-b2"}})
		wantStatus(t, "disable", rec, http.StatusOK)
		if d, _ := s.GetDeployment(ctx, b); d.Enabled || d.Weight != nil || d.CooldownSeconds != nil || d.ContextWindow != nil || d.InputPrice != nil {
			t.Errorf("after blanks: %+v", d)
		}

		// Bad input: 422, the group with the form, each error at its field,
		// what was typed kept, nothing stored, no reload.
		before, _ := s.GetDeployment(ctx, b)
		reloads = e.reloader.n.Load()
		rec = mpHTMX(br, "/models/"+mpID(b), tok, mpEditForm("", e.provider.ID,
			"upstream_model", "", "input_price", "cheap", "context_window", "0", "weight", "-1", "long_context_threshold", "1.5"))
		wantStatus(t, "bad input", rec, http.StatusUnprocessableEntity)
		row = mpRow(parseHTML(t, rec), "team", b)
		for field, msg := range map[string]string{"upstream_model": "is required", "input_price": "must be a number",
			"context_window": "must be more than 0", "weight": "must be 0 or more", "long_context_threshold": "must be a whole number"} {
			if got := text(row, "error-"+field); got != msg {
				t.Errorf("error of %s = %q, want %q", field, got, msg)
			}
			if inv, _ := testid(row, "input-"+field).Attr("aria-invalid"); inv != "true" {
				t.Errorf("%s not marked invalid", field)
			}
		}
		if v, _ := testid(row, "input-input_price").Attr("value"); v != "cheap" {
			t.Errorf("typed price not kept: %q", v)
		}
		if after, _ := s.GetDeployment(ctx, b); after.UpstreamModel != before.UpstreamModel || after.UpdatedAt != before.UpdatedAt {
			t.Errorf("a refused edit was stored: %+v", after)
		}
		if e.reloader.n.Load() != reloads {
			t.Error("a refused edit reloaded the routing table")
		}
		// An unknown provider is the store's error, shown at the field.
		rec = mpHTMX(br, "/models/"+mpID(b), tok, mpEditForm("", 99999))
		wantStatus(t, "unknown provider", rec, http.StatusUnprocessableEntity)
		if testid(mpRow(parseHTML(t, rec), "team", b), "entry-edit-form").Length() != 1 {
			t.Errorf("unknown provider: no form:\n%s", rec.Body)
		}

		// Cancel: the group as it is.
		rec = br.do("GET", "/models/"+mpID(b)+"/view", nil, hx())
		wantStatus(t, "cancel", rec, http.StatusOK)
		if testid(parseHTML(t, rec), "entry-edit-row").Length() != 0 {
			t.Error("cancel still shows the form")
		}

		// Without htmx: 303 back, or the whole page with the errors in place.
		rec = br.post("/models/"+mpID(b), mpEditForm(tok, e.provider.ID), nil)
		wantSeeOther(t, "form post", rec, false, "/models")
		rec = br.post("/models/"+mpID(b), mpEditForm(tok, e.provider.ID, "timeout_seconds", "x"), nil)
		wantStatus(t, "bad form post", rec, http.StatusUnprocessableEntity)
		wantFullPage(t, "bad form post", rec)
		if got := text(parseHTML(t, rec), "error-timeout_seconds"); got != "must be a whole number" {
			t.Errorf("page error = %q", got)
		}
		rec = br.get("/models/" + mpID(b) + "/edit")
		wantFullPage(t, "edit without htmx", rec)

		for _, c := range []struct{ method, path string }{
			{"GET", "/models/99999/edit"}, {"GET", "/models/99999/view"}, {"POST", "/models/99999"}, {"POST", "/models/x"},
		} {
			var rec = br.do(c.method, c.path, nil, hx())
			if c.method == "POST" {
				rec = mpHTMX(br, c.path, tok, mpEditForm("", e.provider.ID))
			}
			if rec.Code != http.StatusNotFound {
				t.Errorf("%s %s: %d, want 404", c.method, c.path, rec.Code)
			}
		}
		if rec := mpHTMX(br, "/models/"+mpID(b), "", mpEditForm("", e.provider.ID)); rec.Code != http.StatusForbidden {
			t.Errorf("without CSRF: %d, want 403", rec.Code)
		}
	})
}

func TestPoolSettingsForm(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		e := newRuntimeEnv(t, s)
		ctx := context.Background()
		e.entry(t, "team", "up-a", ptr(1.0), true)
		e.entry(t, "anthropic/*", "*", nil, true)
		e.reload(t)
		br := e.browser(t)
		tok := br.signIn()

		doc := parseHTML(t, br.get("/models"))
		if got := text(mpGroup(doc, "team"), "pool-settings-summary"); got != "sticky TTL default · retries default · allowed fails default · strategy simple-shuffle" {
			t.Errorf("summary = %q", got)
		}

		reloads := e.reloader.n.Load()
		rec := mpHTMX(br, "/models/pool-settings", tok, formOf("", "public_name", "anthropic/*",
			"sticky_ttl_seconds", "600", "num_retries", "0", "allowed_fails", ""))
		wantStatus(t, "save", rec, http.StatusOK)
		wantPartial(t, "save", rec)
		g := mpGroup(parseHTML(t, rec), "anthropic/*")
		if got := text(g, "pool-settings-summary"); got != "sticky TTL 600 s · retries 0 · allowed fails default · strategy simple-shuffle" {
			t.Errorf("summary after save = %q", got)
		}
		if v, _ := testid(g, "input-num_retries").Attr("value"); v != "0" {
			t.Errorf("retries input = %q", v)
		}
		if got := e.reloader.n.Load() - reloads; got != 1 {
			t.Errorf("reloads = %d, want 1", got)
		}
		ps, err := s.ListPoolSettings(ctx)
		if err != nil || len(ps) != 1 || *ps[0].StickyTTLSeconds != 600 || *ps[0].NumRetries != 0 || ps[0].AllowedFails != nil {
			t.Fatalf("stored: %+v %v", ps, err)
		}

		reloads = e.reloader.n.Load()
		rec = mpHTMX(br, "/models/pool-settings", tok, formOf("", "public_name", "anthropic/*",
			"sticky_ttl_seconds", "-5", "num_retries", "two", "allowed_fails", "3"))
		wantStatus(t, "bad input", rec, http.StatusUnprocessableEntity)
		g = mpGroup(parseHTML(t, rec), "anthropic/*")
		if text(g, "error-sticky_ttl_seconds") != "must be 0 or more" || text(g, "error-num_retries") != "must be a whole number" {
			t.Errorf("errors: %q", testid(g, "pool-settings-form").Text())
		}
		if _, open := testid(g, "pool-settings").Attr("open"); !open {
			t.Error("the settings form with errors is closed")
		}
		if v, _ := testid(g, "input-num_retries").Attr("value"); v != "two" {
			t.Errorf("typed value not kept: %q", v)
		}
		if ps2, _ := s.ListPoolSettings(ctx); *ps2[0].StickyTTLSeconds != 600 || ps2[0].AllowedFails != nil {
			t.Errorf("a refused form was stored: %+v", ps2[0])
		}
		if e.reloader.n.Load() != reloads {
			t.Error("a refused form reloaded")
		}

		rec = br.post("/models/pool-settings", formOf(tok, "public_name", "team", "num_retries", "2"), nil)
		wantSeeOther(t, "form post", rec, false, "/models")
		if rec := mpHTMX(br, "/models/pool-settings", tok, formOf("", "public_name", "")); rec.Code != http.StatusBadRequest {
			t.Errorf("no name: %d, want 400", rec.Code)
		}
	})
}

func TestModelsPageLiveStateAndAddMember(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		e := newRuntimeEnv(t, s)
		ok := e.entry(t, "gpt-4o", "ok-a", ptr(1.0), true)
		limited := e.entry(t, "gpt-4o", rateLimitedModel, ptr(3.0), true)
		reserve := e.entry(t, "gpt-4o", "ok-r", ptr(0.0), true)
		e.reload(t)
		// The first pick likely lands on the 3-weight member; retry until it
		// has answered 429 and cooled down.
		for i := 0; i < 50; i++ {
			if status, _ := e.chat(t, "gpt-4o"); status != http.StatusOK {
				t.Fatalf("chat: %d", status)
			}
			if st, _ := e.proxy.PoolStatus("gpt-4o", nil); coolingIn(st.Members, limited) {
				break
			}
		}
		br := e.browser(t)
		br.signIn()
		doc := parseHTML(t, br.get("/models"))

		row := mpRow(doc, "gpt-4o", limited)
		until := testid(row, "entry-cooling-until")
		if testid(row, "entry-cooling").Length() != 1 {
			t.Fatalf("no cooling badge: %q", row.Text())
		}
		if dt, _ := until.Attr("datetime"); dt != testNow.Add(time.Hour).Format(time.RFC3339) {
			t.Errorf("datetime = %q", dt)
		}
		if _, rel := until.Attr("data-relative"); !rel {
			t.Error("the time is not marked data-relative")
		}
		if !strings.Contains(text(row, "entry-cooling-reason"), "Rate limit") {
			t.Errorf("reason = %q", text(row, "entry-cooling-reason"))
		}
		if testid(mpRow(doc, "gpt-4o", ok), "entry-cooling").Length() != 0 {
			t.Error("a healthy member shows a cooldown")
		}
		if text(mpRow(doc, "gpt-4o", reserve), "entry-reserve") != "reserve" || testid(mpRow(doc, "gpt-4o", ok), "entry-reserve").Length() != 0 {
			t.Error("the weight-0 member is not labelled reserve (or another is)")
		}

		// Add member: the add form with the pool's name filled in.
		href, _ := testid(mpGroup(doc, "gpt-4o"), "pool-add-member").Attr("href")
		if href != "/models?add=gpt-4o#model-entry-form" {
			t.Fatalf("add member href = %q", href)
		}
		doc = parseHTML(t, br.get(strings.TrimSuffix(href, "#model-entry-form")))
		if v, _ := testid(testid(doc, "model-entry-form"), "input-public_name").Attr("value"); v != "gpt-4o" {
			t.Errorf("add form's public name = %q", v)
		}
	})
}

// coolingIn: the member id is cooling down in the pool's status.
func coolingIn(members []proxy.MemberStatus, id int64) bool {
	for _, m := range members {
		if m.ID == id && m.CoolingDown {
			return true
		}
	}
	return false
}

// TestEditAnswersItsGroupAsThePageShowsIt: an inline edit answers with the
// group of its public name alone, built for that name, and it is the group
// the whole page shows: entries, shares, warnings and fallbacks alike. The
// default fallbacks, with no entry named "*", answer the same way.
func TestEditAnswersItsGroupAsThePageShowsIt(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		e := newRuntimeEnv(t, s)
		ctx := context.Background()
		a := e.entry(t, "team/chat", "up-a", ptr(1.0), true)
		e.entry(t, "team/chat", "up-b", ptr(0.0), true)
		e.entry(t, "team/chat", "up-c", nil, false)
		e.entry(t, "other", "up-o", ptr(2.0), true)
		if err := s.SetFallbacks(ctx, "team/chat", models.FallbackGeneral, []string{"other", "nowhere"}); err != nil {
			t.Fatal(err)
		}
		e.reload(t)
		br := e.browser(t)
		tok := br.signIn()

		sameGroup := func(what string, rec *httptest.ResponseRecorder, sel string) {
			t.Helper()
			wantStatus(t, what, rec, http.StatusOK)
			wantPartial(t, what, rec)
			got := parseHTML(t, rec)
			if n := got.Find(`[data-testid="pool"], [data-testid="default-fallbacks"]`).Length(); n != 1 {
				t.Fatalf("%s: %d groups in the answer, want 1:\n%s", what, n, rec.Body)
			}
			page := parseHTML(t, br.do("GET", "/models", nil, nil))
			gotHTML, err := goquery.OuterHtml(got.Find(sel))
			if err != nil {
				t.Fatal(err)
			}
			wantHTML, err := goquery.OuterHtml(page.Find(sel))
			if err != nil {
				t.Fatal(err)
			}
			if gotHTML == "" || gotHTML != wantHTML {
				t.Errorf("%s: the answer's group\n%s\nis not the page's\n%s", what, gotHTML, wantHTML)
			}
		}
		sameGroup("weight", mpHTMX(br, "/models/"+mpID(a)+"/weight", tok, formOf("", "weight", "3")),
			`[data-testid="pool"][data-public-name="team/chat"]`)
		sameGroup("default fallbacks", mpHTMX(br, "/models/fallbacks", tok,
			formOf("", "public_name", "*", "kind", models.FallbackGeneral, "targets", "other")),
			`[data-testid="default-fallbacks"]`)
	})
}
