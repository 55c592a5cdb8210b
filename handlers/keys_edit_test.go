package handlers_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"gateway/models"
	"gateway/models/dbtest"
)

func TestKeyEditInPlace(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		ctx := context.Background()
		team := mustTeam(t, s, &models.Team{Name: "platform"})
		past := time.Now().Add(-time.Hour).UTC().Truncate(time.Minute)
		k, _ := mustKey(t, s, &models.VirtualKey{Name: "ci", Models: models.StringList{"gpt-4o"},
			Budget: models.Budget{MaxBudgetUSD: ptr(10.0), BudgetDuration: "1d"}, RateLimits: models.RateLimits{RPMLimit: ptr(60)}, TeamID: &team.ID})
		old, _ := mustKey(t, s, &models.VirtualKey{Name: "old", ExpiresAt: &past})
		id := strconv.FormatInt(k.ID, 10)
		br := ta.browser(t)
		tok := br.signIn()
		hxTok := http.Header{"Hx-Request": {"true"}, "X-Csrf-Token": {tok}}

		// Edit: the key list comes back with the row as its form, filled in.
		rec := br.do("GET", "/keys/"+id+"/edit", nil, hx())
		wantStatus(t, "edit", rec, http.StatusOK)
		wantPartial(t, "edit", rec)
		doc := parseHTML(t, rec)
		form := testid(doc, "key-edit-form")
		for name, want := range map[string]string{"name": "ci", "models": "gpt-4o", "max_budget_usd": "10", "rpm_limit": "60", "soft_budget_usd": ""} {
			if v, _ := testid(form, "input-"+name).Attr("value"); v != want {
				t.Errorf("edit form %s = %q, want %q", name, v, want)
			}
		}
		if v, _ := form.Find(`[data-testid="input-team_id"] option[selected]`).Attr("value"); v != strconv.FormatInt(team.ID, 10) {
			t.Errorf("selected team %q", v)
		}
		if testid(doc, "key").Length() != 1 {
			t.Errorf("the other key's row is missing or the edited row shows twice")
		}

		// Save: the list with the new values; stored as the API would.
		reloads := ta.reloader.n.Load()
		rec = br.post("/keys/"+id, formOf("", "name", "ci", "models", "gpt-4o, mini", "max_budget_usd", "25", "soft_budget_usd", "20",
			"budget_duration", "30d", "rpm_limit", "", "tpm_limit", "1000", "team_id", strconv.FormatInt(team.ID, 10)), hxTok)
		wantStatus(t, "save", rec, http.StatusOK)
		doc = parseHTML(t, rec)
		r := doc.Find(`[data-testid="key"][data-key-id="` + id + `"]`)
		if text(r, "key-models") != "gpt-4o, mini" || text(r, "key-tpm") != "1,000" || testid(doc, "key-edit-form").Length() != 0 {
			t.Errorf("saved row: %q", r.Text())
		}
		if got := ta.reloader.n.Load() - reloads; got != 1 {
			t.Errorf("reloads = %d, want 1", got)
		}
		got, err := s.GetKey(ctx, k.ID)
		if err != nil {
			t.Fatal(err)
		}
		if *got.MaxBudgetUSD != 25 || *got.SoftBudgetUSD != 20 || got.BudgetDuration != "30d" || got.RPMLimit != nil || *got.TPMLimit != 1000 ||
			len(got.Models) != 2 || got.KeyHash != k.KeyHash {
			t.Errorf("stored: %+v", got)
		}

		// Bad input: 422, the form with each error at its field, nothing stored.
		rec = br.post("/keys/"+id, formOf("", "name", "", "max_budget_usd", "lots", "rpm_limit", "-1", "budget_duration", "fortnight",
			"expires_at", "2001-01-01T00:00"), hxTok)
		wantStatus(t, "bad input", rec, http.StatusUnprocessableEntity)
		form = testid(parseHTML(t, rec), "key-edit-form")
		for _, field := range []string{"name", "max_budget_usd", "rpm_limit", "budget_duration", "expires_at"} {
			if text(form, "error-"+field) == "" {
				t.Errorf("no error at %s:\n%s", field, form.Text())
			}
		}
		if v, _ := testid(form, "input-max_budget_usd").Attr("value"); v != "lots" {
			t.Errorf("typed budget not kept: %q", v)
		}
		if again, _ := s.GetKey(ctx, k.ID); *again.MaxBudgetUSD != 25 || again.Name != "ci" {
			t.Errorf("a refused edit was stored: %+v", again)
		}

		// An expired key keeps its past expiry through an edit of something else.
		oldID := strconv.FormatInt(old.ID, 10)
		rec = br.post("/keys/"+oldID, formOf("", "name", "old", "rpm_limit", "5", "expires_at", past.Format("2006-01-02T15:04")), hxTok)
		wantStatus(t, "edit an expired key", rec, http.StatusOK)

		// Without htmx: 303, or the whole page around the errors.
		wantSeeOther(t, "form post", br.post("/keys/"+id, formOf(tok, "name", "ci2"), nil), false, "/keys")
		rec = br.post("/keys/"+id, formOf(tok, "name", ""), nil)
		wantStatus(t, "bad form post", rec, http.StatusUnprocessableEntity)
		wantFullPage(t, "bad form post", rec)

		if rec := br.do("GET", "/keys/99999/edit", nil, hx()); rec.Code != http.StatusNotFound {
			t.Errorf("unknown key edit: %d, want 404", rec.Code)
		}
		if rec := br.post("/keys/99999", formOf("", "name", "x"), hxTok); rec.Code != http.StatusNotFound {
			t.Errorf("unknown key save: %d, want 404", rec.Code)
		}
		if rec := br.post("/keys/"+id, formOf("", "name", "x"), hx()); rec.Code != http.StatusForbidden {
			t.Errorf("without CSRF: %d, want 403", rec.Code)
		}
	})
}
