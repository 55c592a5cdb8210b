package handlers_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"gateway/models"
	"gateway/models/dbtest"
)

func TestUserEditInPlace(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		ctx := context.Background()
		team := mustTeam(t, s, &models.Team{Name: "platform"})
		u := mustUser(t, s, &models.User{Name: "ana", Email: "ana@example.com", Budget: models.Budget{MaxBudgetUSD: ptr(20.0), SoftBudgetUSD: ptr(15.0)}})
		mustUser(t, s, &models.User{Name: "bo"})
		id := strconv.FormatInt(u.ID, 10)
		br := ta.browser(t)
		tok := br.signIn()
		inPlace := http.Header{"Hx-Request": {"true"}, "Hx-Target": {"users"}, "X-Csrf-Token": {tok}}

		rec := br.do("GET", "/users/"+id+"/edit", nil, inPlace)
		wantStatus(t, "edit", rec, http.StatusOK)
		wantPartial(t, "edit", rec)
		form := testid(parseHTML(t, rec), "user-edit-form")
		for name, want := range map[string]string{"name": "ana", "email": "ana@example.com", "max_budget_usd": "20", "soft_budget_usd": "15"} {
			if v, _ := testid(form, "input-"+name).Attr("value"); v != want {
				t.Errorf("edit form %s = %q, want %q", name, v, want)
			}
		}

		reloads := ta.reloader.n.Load()
		rec = br.post("/users/"+id, formOf("", "name", "ana", "email", "ana@example.com", "team_id", strconv.FormatInt(team.ID, 10),
			"max_budget_usd", "50", "soft_budget_usd", "40", "budget_duration", "7d"), inPlace)
		wantStatus(t, "save", rec, http.StatusOK)
		doc := parseHTML(t, rec)
		row := doc.Find(`[data-testid="user"][data-user-id="` + id + `"]`)
		if text(row, "user-team") != "platform" || testid(doc, "user-edit-form").Length() != 0 {
			t.Errorf("saved row: %q", row.Text())
		}
		if ta.reloader.n.Load()-reloads != 1 {
			t.Error("no reload")
		}
		if got, _ := s.GetUser(ctx, u.ID); *got.MaxBudgetUSD != 50 || got.SoftBudgetUSD == nil || *got.SoftBudgetUSD != 40 || got.BudgetDuration != "7d" || got.TeamID == nil || *got.TeamID != team.ID {
			t.Errorf("stored: %+v", got)
		}

		rec = br.post("/users/"+id, formOf("", "name", "", "email", "not-an-email", "max_budget_usd", "x"), inPlace)
		wantStatus(t, "bad input", rec, http.StatusUnprocessableEntity)
		form = testid(parseHTML(t, rec), "user-edit-form")
		for _, field := range []string{"name", "max_budget_usd"} {
			if text(form, "error-"+field) == "" {
				t.Errorf("no error at %s: %q", field, form.Text())
			}
		}
		rec = br.post("/users/"+id, formOf("", "name", "ana", "email", "not-an-email"), inPlace)
		wantStatus(t, "bad email", rec, http.StatusUnprocessableEntity)
		if text(testid(parseHTML(t, rec), "user-edit-form"), "error-email") == "" {
			t.Error("no error at the email")
		}
		if got, _ := s.GetUser(ctx, u.ID); got.Name != "ana" || *got.MaxBudgetUSD != 50 || got.Email != "ana@example.com" {
			t.Errorf("a refused edit was stored: %+v", got)
		}

		if rec := br.do("GET", "/users/99999/edit", nil, inPlace); rec.Code != http.StatusNotFound {
			t.Errorf("unknown user: %d, want 404", rec.Code)
		}
		if rec := br.post("/users/99999", formOf("", "name", "x"), inPlace); rec.Code != http.StatusNotFound {
			t.Errorf("unknown user save: %d, want 404", rec.Code)
		}
	})
}
