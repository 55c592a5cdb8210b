package handlers_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"gateway/models"
	"gateway/models/dbtest"
)

func TestKeysPage(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		team := mustTeam(t, s, &models.Team{Name: "platform"})
		user := mustUser(t, s, &models.User{Name: "ana", TeamID: &team.ID})
		past := time.Now().Add(-time.Hour)
		budgeted, secret := mustKey(t, s, &models.VirtualKey{Name: "ci", Models: models.StringList{"gpt-4o", "mini"},
			Budget: models.Budget{MaxBudgetUSD: ptr(10.0), BudgetDuration: "1d"}, RateLimits: models.RateLimits{RPMLimit: ptr(60)}, UserID: &user.ID, TeamID: &team.ID})
		setSpend(t, s, budgeted.ID, 2.5)
		plain, _ := mustKey(t, s, &models.VirtualKey{Name: "plain"})
		expired, _ := mustKey(t, s, &models.VirtualKey{Name: "old", ExpiresAt: &past})
		b := ta.browser(t)
		b.signIn()

		rec := b.get("/keys")
		wantStatus(t, "GET /keys", rec, http.StatusOK)
		wantFullPage(t, "GET /keys", rec)
		doc := parseHTML(t, rec)
		if testid(doc, "key").Length() != 3 {
			t.Fatalf("%d key rows, want 3", testid(doc, "key").Length())
		}
		row := doc.Find(`[data-testid="key"][data-key-id="` + strconv.FormatInt(budgeted.ID, 10) + `"]`)
		if got := text(row, "key-name"); got != "ci"+"created "+time.Now().UTC().Format("2006-01-02") {
			t.Errorf("key-name = %q", got)
		}
		if got := text(row, "key-owner"); got != "ana"+"team platform" {
			t.Errorf("key-owner = %q", got)
		}
		for id, want := range map[string]string{
			"key-hint": budgeted.KeyHint, "key-models": "gpt-4o, mini", "spend-usd": "$2.50", "budget-usd": "$10.00",
			"key-rpm": "60", "key-tpm": "–", "key-expires": "never", "key-status": "active"} {
			if got := text(row, id); got != want {
				t.Errorf("%s = %q, want %q", id, got, want)
			}
		}
		if f, _ := testid(row, "spend-bar").Attr("data-fraction"); f != "0.2500" {
			t.Errorf("spend bar fraction %q, want 0.2500", f)
		}
		plainRow := doc.Find(`[data-key-id="` + strconv.FormatInt(plain.ID, 10) + `"]`)
		if text(plainRow, "key-models") != "all" || testid(plainRow, "spend-bar").Length() != 0 || !strings.Contains(text(plainRow, "spend"), "no budget") {
			t.Errorf("a key without limits: %s", text(plainRow, "spend"))
		}
		if got := text(doc.Find(`[data-key-id="`+strconv.FormatInt(expired.ID, 10)+`"]`), "key-status"); got != "expired" {
			t.Errorf("expired key status %q", got)
		}
		if strings.Contains(rec.Body.String(), secret) || strings.Contains(rec.Body.String(), budgeted.KeyHash) {
			t.Error("the page shows a key or its hash")
		}
		if testid(doc, "new-key").Length() != 0 {
			t.Error("a plain page load shows a new key")
		}
		form := testid(doc, "key-form")
		// Without htmx (no header) the form and the row buttons post the
		// token in a hidden field: it must be the session's.
		if tok, _ := form.Find(`input[name="csrf_token"]`).Attr("value"); tok == "" || tok != b.csrfToken(rec) {
			t.Errorf("the create form's csrf_token is %q, want the session's", tok)
		}
		if tok, _ := row.Find(`input[name="csrf_token"]`).First().Attr("value"); tok == "" {
			t.Error("a key row's buttons carry no csrf_token")
		}
		if form.Find(`select[name="user_id"] option[value]`).Length() != 2 || form.Find(`select[name="team_id"] option[value]`).Length() != 2 {
			t.Error("the form does not offer the user and the team")
		}
		rec = b.do("GET", "/keys", nil, hx())
		wantPartial(t, "htmx GET /keys", rec)
		if testid(parseHTML(t, rec), "key").Length() != 3 {
			t.Error("htmx partial without the keys")
		}
	})
}

func TestCreateKeyForm(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		team := mustTeam(t, s, &models.Team{Name: "platform"})
		b := ta.browser(t)
		tok := b.signIn()

		bad := formOf(tok, "name", "", "max_budget_usd", "lots", "rpm_limit", "-1", "budget_duration", "2w",
			"user_id", "999", "expires_at", "2001-01-01T00:00", "models", "gpt 4o")
		rec := b.post("/keys", bad, nil)
		wantStatus(t, "invalid form", rec, http.StatusUnprocessableEntity)
		wantFullPage(t, "invalid form", rec)
		doc := parseHTML(t, rec)
		for id, want := range map[string]string{"error-name": "is required", "error-max_budget_usd": "must be a number",
			"error-rpm_limit": "must be 0 or more", "error-budget_duration": "must be a duration such as 30m, 12h, 1d, 7d or 1mo",
			"error-expires_at": "must be in the future", "error-models": `"gpt 4o" must have no spaces, and * only as its last character`} {
			if got := text(doc, id); got != want {
				t.Errorf("%s = %q, want %q", id, got, want)
			}
		}
		if v, _ := testid(doc, "input-max_budget_usd").Attr("value"); v != "lots" {
			t.Errorf("typed budget not kept: %q", v)
		}
		rec = b.post("/keys", bad, hx())
		wantStatus(t, "invalid htmx form", rec, http.StatusUnprocessableEntity)
		wantPartial(t, "invalid htmx form", rec)
		if !strings.HasPrefix(strings.TrimSpace(rec.Body.String()), `<form`) || text(parseHTML(t, rec), "error-name") != "is required" {
			t.Errorf("htmx error answer is not the form:\n%s", rec.Body)
		}
		// The store's refusal of an unknown owner lands on its field.
		rec = b.post("/keys", formOf(tok, "name", "k", "user_id", "999"), nil)
		wantStatus(t, "unknown user", rec, http.StatusUnprocessableEntity)
		if got := text(parseHTML(t, rec), "error-user_id"); got != "no user with id 999" {
			t.Errorf("error-user_id = %q", got)
		}
		if n, _ := s.CountKeys(context.Background()); n != 0 || ta.reloader.n.Load() != 0 {
			t.Fatalf("refused forms made %d keys, %d reloads", n, ta.reloader.n.Load())
		}

		good := formOf(tok, "name", "laptop", "models", "gpt-4o, claude/* ,", "max_budget_usd", "5", "budget_duration", "7d",
			"rpm_limit", "60", "tpm_limit", "100000", "team_id", strconv.FormatInt(team.ID, 10), "expires_at", "2099-12-31T18:30")
		rec = b.post("/keys", good, nil)
		wantStatus(t, "create", rec, http.StatusCreated)
		wantFullPage(t, "create", rec)
		doc = parseHTML(t, rec)
		if got, _ := testid(doc, "key-form").Find(`input[name="csrf_token"]`).Attr("value"); got != tok {
			t.Errorf("the form under a new key carries csrf_token %q, want the session's", got)
		}
		secret := text(doc, "new-key-value")
		if !strings.HasPrefix(secret, "sk-") || testid(doc, "copy-key").Length() != 1 {
			t.Fatalf("new key %q, copy button %d", secret, testid(doc, "copy-key").Length())
		}
		if _, focused := testid(doc, "copy-key").Attr("autofocus"); !focused {
			t.Error("focus does not move to the key just created (its Copy button)")
		}
		if doc.Find(`script[src^="/static/copy.js"]`).Length() != 1 {
			t.Error("the copy script is not loaded")
		}
		ks, err := s.ListKeys(context.Background())
		if err != nil || len(ks) != 1 {
			t.Fatalf("keys: %v %v", ks, err)
		}
		k := ks[0]
		if k.KeyHash != models.HashKey(secret) || strings.Join(k.Models, ",") != "gpt-4o,claude/*" || *k.MaxBudgetUSD != 5 ||
			k.BudgetDuration != "7d" || *k.RPMLimit != 60 || *k.TPMLimit != 100000 || *k.TeamID != team.ID || k.UserID != nil ||
			!k.ExpiresAt.Equal(time.Date(2099, 12, 31, 18, 30, 0, 0, time.UTC)) {
			t.Errorf("stored key: %+v", k)
		}
		if ta.reloader.n.Load() != 1 {
			t.Errorf("Reload called %d times, want 1", ta.reloader.n.Load())
		}

		// Never again.
		later := b.get("/keys")
		if strings.Contains(later.Body.String(), secret) || testid(parseHTML(t, later), "new-key").Length() != 0 {
			t.Error("a later page load shows the new key")
		}
		if later.Header().Get("Cache-Control") != "no-store" || rec.Header().Get("Cache-Control") != "no-store" {
			t.Error("key pages may be cached")
		}

		// htmx: the page's content, retargeted from the form to #content.
		good.Set("name", "second")
		rec = b.post("/keys", good, hx())
		wantStatus(t, "htmx create", rec, http.StatusCreated)
		wantPartial(t, "htmx create", rec)
		if rec.Header().Get("HX-Retarget") != "#content" || !strings.HasPrefix(rec.Header().Get("HX-Reswap"), "innerHTML") {
			t.Errorf("htmx create: HX-Retarget %q HX-Reswap %q", rec.Header().Get("HX-Retarget"), rec.Header().Get("HX-Reswap"))
		}
		doc = parseHTML(t, rec)
		if second := text(doc, "new-key-value"); !strings.HasPrefix(second, "sk-") || second == secret || testid(doc, "key").Length() != 2 {
			t.Errorf("htmx create answer: key %q, %d rows", second, testid(doc, "key").Length())
		}
	})
}

func TestCreateKeyReloadFails(t *testing.T) {
	ta := newTestApp(t, dbtest.MustOpenStore(t, "", t.TempDir()))
	ta.reloader.err = errReloadFailed
	b := ta.browser(t)
	tok := b.signIn()
	rec := b.post("/keys", formOf(tok, "name", "k"), nil)
	wantStatus(t, "create with a failing reload", rec, http.StatusCreated)
	doc := parseHTML(t, rec)
	if !strings.HasPrefix(text(doc, "new-key-value"), "sk-") || !strings.Contains(text(doc, "keys-warning"), "could not be rebuilt") {
		t.Errorf("the key must still be shown, with a warning:\n%s", text(doc, "content"))
	}
}

func TestRevokeAndDeleteKeyForms(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		k, _ := mustKey(t, s, &models.VirtualKey{Name: "k"})
		id := strconv.FormatInt(k.ID, 10)
		b := ta.browser(t)
		tok := b.signIn()
		status := func() string {
			return text(parseHTML(t, b.get("/keys")).Find(`[data-key-id="`+id+`"]`), "key-status")
		}

		wantSeeOther(t, "revoke", b.post("/keys/"+id+"/revoke", formOf(tok, "revoked", "true"), nil), false, "/keys")
		if got, _ := s.GetKey(context.Background(), k.ID); got.RevokedAt == nil || status() != "revoked" {
			t.Errorf("after revoke: revoked_at %v, status %q", got.RevokedAt, status())
		}
		if testid(parseHTML(t, b.get("/keys")), "key-restore").Length() != 1 {
			t.Error("a revoked key has no Restore button")
		}
		wantSeeOther(t, "restore", b.post("/keys/"+id+"/revoke", formOf(tok, "revoked", "false"), hx()), true, "/keys")
		if got, _ := s.GetKey(context.Background(), k.ID); got.RevokedAt != nil || status() != "active" {
			t.Errorf("after restore: revoked_at %v, status %q", got.RevokedAt, status())
		}
		if ta.reloader.n.Load() != 2 {
			t.Errorf("Reload called %d times, want 2", ta.reloader.n.Load())
		}
		wantStatus(t, "revoke a missing key", b.post("/keys/999/revoke", formOf(tok), nil), http.StatusNotFound)

		wantSeeOther(t, "delete", b.post("/keys/"+id+"/delete", formOf(tok), hx()), true, "/keys")
		if n, _ := s.CountKeys(context.Background()); n != 0 {
			t.Error("the key is still there")
		}
		wantStatus(t, "delete a missing key", b.post("/keys/"+id+"/delete", formOf(tok), nil), http.StatusNotFound)
	})
}
