package handlers_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"gateway/models"
	"gateway/models/dbtest"
)

func TestTeamsPage(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		team := mustTeam(t, s, &models.Team{Name: "platform", Budget: models.Budget{MaxBudgetUSD: ptr(100.0), BudgetDuration: "1mo"}, RateLimits: models.RateLimits{RPMLimit: ptr(600)}})
		if _, err := s.UpdateTeam(context.Background(), team.ID, func(tm *models.Team) error { tm.SpendUSD = 150; return nil }); err != nil {
			t.Fatal(err)
		}
		mustTeam(t, s, &models.Team{Name: "research"})
		mustUser(t, s, &models.User{Name: "ana", TeamID: &team.ID})
		mustKey(t, s, &models.VirtualKey{Name: "k1", TeamID: &team.ID})
		mustKey(t, s, &models.VirtualKey{Name: "k2", TeamID: &team.ID})
		b := ta.browser(t)
		b.signIn()

		rec := b.get("/teams")
		wantStatus(t, "GET /teams", rec, http.StatusOK)
		wantFullPage(t, "GET /teams", rec)
		doc := parseHTML(t, rec)
		if testid(doc, "team").Length() != 2 {
			t.Fatalf("%d team rows, want 2", testid(doc, "team").Length())
		}
		row := doc.Find(`[data-team-id="` + strconv.FormatInt(team.ID, 10) + `"]`)
		for id, want := range map[string]string{"team-name": "platform", "spend-usd": "$150.00", "budget-usd": "$100.00",
			"team-rpm": "600", "team-tpm": "–", "team-users": "1", "team-keys": "2"} {
			if got := text(row, id); got != want {
				t.Errorf("%s = %q, want %q", id, got, want)
			}
		}
		bar := testid(row, "spend-bar")
		if f, _ := bar.Attr("data-fraction"); f != "1.0000" || bar.Find("rect.over").Length() != 1 {
			t.Errorf("an overspent team's bar: fraction %q, over %d", f, bar.Find("rect.over").Length())
		}
		rec = b.do("GET", "/teams", nil, hx())
		wantPartial(t, "htmx GET /teams", rec)
		if testid(parseHTML(t, rec), "team").Length() != 2 {
			t.Error("htmx partial without the teams")
		}
	})
}

func TestTeamForms(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		mustTeam(t, s, &models.Team{Name: "taken"})
		b := ta.browser(t)
		tok := b.signIn()

		rec := b.post("/teams", formOf(tok, "name", "", "max_budget_usd", "-5", "rpm_limit", "x"), nil)
		wantStatus(t, "invalid team", rec, http.StatusUnprocessableEntity)
		wantFullPage(t, "invalid team", rec)
		doc := parseHTML(t, rec)
		for id, want := range map[string]string{"error-name": "is required", "error-max_budget_usd": "must be 0 or more", "error-rpm_limit": "must be a whole number"} {
			if got := text(doc, id); got != want {
				t.Errorf("%s = %q, want %q", id, got, want)
			}
		}
		rec = b.post("/teams", formOf(tok, "name", "taken"), hx())
		wantStatus(t, "taken team name", rec, http.StatusUnprocessableEntity)
		wantPartial(t, "taken team name", rec)
		if got := text(parseHTML(t, rec), "error-name"); got != `a team named "taken" already exists` {
			t.Errorf("error-name = %q", got)
		}

		wantSeeOther(t, "create", b.post("/teams", formOf(tok, "name", "platform", "max_budget_usd", "100", "budget_duration", "1mo",
			"rpm_limit", "600", "tpm_limit", "0"), nil), false, "/teams")
		ts, _ := s.ListTeams(context.Background())
		if len(ts) != 2 || ts[1].Name != "platform" || *ts[1].MaxBudgetUSD != 100 || ts[1].BudgetDuration != "1mo" || *ts[1].RPMLimit != 600 || *ts[1].TPMLimit != 0 {
			t.Fatalf("stored teams: %+v", ts)
		}
		id := strconv.FormatInt(ts[1].ID, 10)

		rec = b.get("/teams/" + id + "/edit")
		wantStatus(t, "GET edit", rec, http.StatusOK)
		doc = parseHTML(t, rec)
		if v, _ := testid(doc, "input-max_budget_usd").Attr("value"); v != "100" {
			t.Errorf("edit form budget = %q", v)
		}
		if v, _ := doc.Find(`select[name="budget_duration"] option[selected]`).Attr("value"); v != "1mo" {
			t.Errorf("edit form period = %q", v)
		}
		wantStatus(t, "edit of a missing team", b.get("/teams/999/edit"), http.StatusNotFound)

		rec = b.post("/teams/"+id, formOf(tok, "name", "taken"), nil)
		wantStatus(t, "rename to a taken name", rec, http.StatusUnprocessableEntity)
		if text(parseHTML(t, rec), "edit-team-name") != "platform" {
			t.Error("refused edit is not the edit page")
		}
		wantSeeOther(t, "edit", b.post("/teams/"+id, formOf(tok, "name", "platform-2", "max_budget_usd", ""), hx()), true, "/teams")
		got, _ := s.GetTeam(context.Background(), ts[1].ID)
		if got.Name != "platform-2" || got.MaxBudgetUSD != nil || got.RPMLimit != nil {
			t.Errorf("after edit: %+v", got)
		}

		wantSeeOther(t, "delete", b.post("/teams/"+id+"/delete", formOf(tok), nil), false, "/teams")
		if _, err := s.GetTeam(context.Background(), ts[1].ID); err == nil {
			t.Error("the team is still there")
		}
		if got := ta.reloader.n.Load(); got != 3 {
			t.Errorf("Reload called %d times, want 3", got)
		}
	})
}

func TestUsersPage(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		team := mustTeam(t, s, &models.Team{Name: "platform"})
		ana := mustUser(t, s, &models.User{Name: "ana", Email: "ana@example.com", TeamID: &team.ID, Budget: models.Budget{MaxBudgetUSD: ptr(20.0), BudgetDuration: "7d"}})
		mustUser(t, s, &models.User{Name: "bob"})
		mustKey(t, s, &models.VirtualKey{Name: "k", UserID: &ana.ID})
		b := ta.browser(t)
		tok := b.signIn()

		rec := b.get("/users")
		wantStatus(t, "GET /users", rec, http.StatusOK)
		wantFullPage(t, "GET /users", rec)
		doc := parseHTML(t, rec)
		row := doc.Find(`[data-user-id="` + strconv.FormatInt(ana.ID, 10) + `"]`)
		for id, want := range map[string]string{"user-name": "ana", "user-email": "ana@example.com", "user-team": "platform",
			"spend-usd": "$0", "budget-usd": "$20.00", "user-keys": "1"} {
			if got := text(row, id); got != want {
				t.Errorf("%s = %q, want %q", id, got, want)
			}
		}
		if !strings.Contains(text(row, "spend"), "/ 7d") {
			t.Errorf("spend does not say the period: %q", text(row, "spend"))
		}
		if testid(doc, "user-form").Find(`select[name="team_id"] option[value]`).Length() != 2 { // none, platform
			t.Error("the user form does not offer the team")
		}

		rec = b.post("/users", formOf(tok, "name", "carol", "email", "not-an-email", "team_id", "999"), nil)
		wantStatus(t, "invalid user", rec, http.StatusUnprocessableEntity)
		if got := text(parseHTML(t, rec), "error-email"); got != "must be an email address such as ana@example.com" {
			t.Errorf("error-email = %q", got)
		}
		rec = b.post("/users", formOf(tok, "name", "carol", "team_id", "999"), hx())
		wantStatus(t, "unknown team", rec, http.StatusUnprocessableEntity)
		wantPartial(t, "unknown team", rec)
		if got := text(parseHTML(t, rec), "error-team_id"); got != "no team with id 999" {
			t.Errorf("error-team_id = %q", got)
		}
		wantSeeOther(t, "create", b.post("/users", formOf(tok, "name", "carol", "email", "carol@example.com",
			"team_id", strconv.FormatInt(team.ID, 10), "max_budget_usd", "5", "budget_duration", "30m"), hx()), true, "/users")
		us, _ := s.ListUsers(context.Background())
		carol := us[len(us)-1]
		if carol.Name != "carol" || carol.Email != "carol@example.com" || *carol.TeamID != team.ID || *carol.MaxBudgetUSD != 5 || carol.BudgetDuration != "30m" {
			t.Fatalf("stored user: %+v", carol)
		}
		id := strconv.FormatInt(carol.ID, 10)
		doc = parseHTML(t, b.get("/users/"+id+"/edit"))
		if v, _ := doc.Find(`select[name="team_id"] option[selected]`).Attr("value"); v != strconv.FormatInt(team.ID, 10) {
			t.Errorf("edit form team = %q", v)
		}
		wantSeeOther(t, "edit", b.post("/users/"+id, formOf(tok, "name", "carol", "email", "", "team_id", ""), nil), false, "/users")
		got, _ := s.GetUser(context.Background(), carol.ID)
		if got.TeamID != nil || got.Email != "" || got.MaxBudgetUSD != nil {
			t.Errorf("after edit: %+v", got)
		}
		rec = b.post("/users/"+id, formOf(tok, "name", "bob"), nil)
		wantStatus(t, "rename to a taken name", rec, http.StatusUnprocessableEntity)
		if text(parseHTML(t, rec), "error-name") != `a user named "bob" already exists` {
			t.Errorf("rename refusal: %s", text(parseHTML(t, rec), "content"))
		}
		wantSeeOther(t, "delete", b.post("/users/"+id+"/delete", formOf(tok), hx()), true, "/users")
		if _, err := s.GetUser(context.Background(), carol.ID); err == nil {
			t.Error("the user is still there")
		}
		wantStatus(t, "delete a missing user", b.post("/users/"+id+"/delete", formOf(tok), nil), http.StatusNotFound)
	})
}
