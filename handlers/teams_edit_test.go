package handlers_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"gateway/models"
	"gateway/models/dbtest"
)

func TestTeamEditInPlace(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		ctx := context.Background()
		team := mustTeam(t, s, &models.Team{Name: "platform", Budget: models.Budget{MaxBudgetUSD: ptr(100.0), SoftBudgetUSD: ptr(80.0)}, RateLimits: models.RateLimits{RPMLimit: ptr(60)}})
		mustTeam(t, s, &models.Team{Name: "research"})
		id := strconv.FormatInt(team.ID, 10)
		br := ta.browser(t)
		tok := br.signIn()
		inPlace := http.Header{"Hx-Request": {"true"}, "Hx-Target": {"teams"}, "X-Csrf-Token": {tok}}

		// Edit from the row: the list with the row as its form, filled in.
		rec := br.do("GET", "/teams/"+id+"/edit", nil, inPlace)
		wantStatus(t, "edit", rec, http.StatusOK)
		wantPartial(t, "edit", rec)
		doc := parseHTML(t, rec)
		form := testid(doc, "team-edit-form")
		for name, want := range map[string]string{"name": "platform", "max_budget_usd": "100", "soft_budget_usd": "80", "rpm_limit": "60", "tpm_limit": ""} {
			if v, _ := testid(form, "input-"+name).Attr("value"); v != want {
				t.Errorf("edit form %s = %q, want %q", name, v, want)
			}
		}
		if testid(doc, "team").Length() != 1 {
			t.Error("the other team's row is missing")
		}

		// Save: the list, the new values shown and stored, one reload.
		reloads := ta.reloader.n.Load()
		rec = br.post("/teams/"+id, formOf("", "name", "platform", "max_budget_usd", "250", "soft_budget_usd", "90", "budget_duration", "1mo", "tpm_limit", "5000"), inPlace)
		wantStatus(t, "save", rec, http.StatusOK)
		doc = parseHTML(t, rec)
		row := doc.Find(`[data-testid="team"][data-team-id="` + id + `"]`)
		if text(row, "team-tpm") != "5,000" || text(row, "team-rpm") != "–" || testid(doc, "team-edit-form").Length() != 0 {
			t.Errorf("saved row: %q", row.Text())
		}
		if ta.reloader.n.Load()-reloads != 1 {
			t.Error("no reload")
		}
		if got, _ := s.GetTeam(ctx, team.ID); *got.MaxBudgetUSD != 250 || got.SoftBudgetUSD == nil || *got.SoftBudgetUSD != 90 || got.BudgetDuration != "1mo" || got.RPMLimit != nil || *got.TPMLimit != 5000 {
			t.Errorf("stored: %+v", got)
		}

		// Bad input: 422, the row's form with its errors, nothing stored.
		rec = br.post("/teams/"+id, formOf("", "name", "research", "max_budget_usd", "-3", "rpm_limit", "many"), inPlace)
		wantStatus(t, "bad input", rec, http.StatusUnprocessableEntity)
		form = testid(parseHTML(t, rec), "team-edit-form")
		for _, field := range []string{"max_budget_usd", "rpm_limit"} {
			if text(form, "error-"+field) == "" {
				t.Errorf("no error at %s: %q", field, form.Text())
			}
		}
		if got, _ := s.GetTeam(ctx, team.ID); got.Name != "platform" || *got.MaxBudgetUSD != 250 {
			t.Errorf("a refused edit was stored: %+v", got)
		}
		// A name taken by another team is shown in the row's form too.
		rec = br.post("/teams/"+id, formOf("", "name", "research"), inPlace)
		wantStatus(t, "taken name", rec, http.StatusUnprocessableEntity)
		if text(testid(parseHTML(t, rec), "team-edit-form"), "error-name") == "" {
			t.Error("no error at the taken name")
		}

		if rec := br.do("GET", "/teams/99999/edit", nil, inPlace); rec.Code != http.StatusNotFound {
			t.Errorf("unknown team: %d, want 404", rec.Code)
		}
		if rec := br.post("/teams/99999", formOf("", "name", "x"), inPlace); rec.Code != http.StatusNotFound {
			t.Errorf("unknown team save: %d, want 404", rec.Code)
		}
	})
}
