package handlers_test

import (
	"context"
	"testing"

	"gateway/models"
	"gateway/models/dbtest"
)

func TestAPIUsers(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		team := mustTeam(t, s, &models.Team{Name: "platform"})
		runSteps(t, ta, []apiStep{
			{name: "create", method: "POST", path: "/api/users", status: 201, save: "u1",
				body: `{"name":"ana","email":"ana@example.com","team_id":` + jsonOf(t, team.ID) + `,"max_budget_usd":20,"budget_duration":"7d"}`,
				want: map[string]any{"name": "ana", "email": "ana@example.com", "team_id": team.ID, "max_budget_usd": 20,
					"budget_duration": "7d", "spend_usd": 0}},
			{name: "create bare", method: "POST", path: "/api/users", body: `{"name":"bob"}`, status: 201, save: "u2",
				want: map[string]any{"email": "", "team_id": nil, "max_budget_usd": nil}},
			{name: "bad email", method: "POST", path: "/api/users", body: `{"name":"x","email":"not an email"}`, status: 400,
				errMsg: "email: must be an email address such as ana@example.com"},
			{name: "email with a display name", method: "POST", path: "/api/users", body: `{"name":"x","email":"X <x@example.com>"}`, status: 400, errMsg: "email:"},
			{name: "unknown team", method: "POST", path: "/api/users", body: `{"name":"x","team_id":999}`, status: 400, errMsg: "team_id: no team with id 999"},
			{name: "taken name", method: "POST", path: "/api/users", body: `{"name":"ana"}`, status: 409, errMsg: `a user named "ana" already exists`},
			{name: "list", method: "GET", path: "/api/users", status: 200, count: n(2)},
			{name: "patch", method: "PATCH", path: "/api/users/{u1}", body: `{"email":"ana@corp.example","team_id":null}`, status: 200,
				want: map[string]any{"email": "ana@corp.example", "team_id": nil, "max_budget_usd": 20}},
			{name: "patch bad email", method: "PATCH", path: "/api/users/{u1}", body: `{"email":"@"}`, status: 400, errMsg: "email:"},
			{name: "patch unknown team", method: "PATCH", path: "/api/users/{u1}", body: `{"team_id":999}`, status: 400, errMsg: "team_id: no team with id 999"},
			{name: "delete", method: "DELETE", path: "/api/users/{u2}", status: 204},
			{name: "delete again", method: "DELETE", path: "/api/users/{u2}", status: 404},
		})
		u, err := s.ListUsers(context.Background())
		if err != nil || len(u) != 1 || u[0].Email != "ana@corp.example" {
			t.Errorf("users after the API calls: %+v %v", u, err)
		}
	})
}
