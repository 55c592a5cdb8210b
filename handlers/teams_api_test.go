package handlers_test

import (
	"testing"

	"gateway/models"
	"gateway/models/dbtest"
)

func TestAPITeams(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		runSteps(t, ta, []apiStep{
			{name: "create", method: "POST", path: "/api/teams", status: 201, save: "t1",
				body: `{"name":"platform","max_budget_usd":100,"budget_duration":"1mo","rpm_limit":600,"tpm_limit":0}`,
				want: map[string]any{"name": "platform", "max_budget_usd": 100, "budget_duration": "1mo", "rpm_limit": 600,
					"tpm_limit": 0, "spend_usd": 0, "budget_reset_at": nil}},
			{name: "create without limits", method: "POST", path: "/api/teams", body: `{"name":"research"}`, status: 201, save: "t2",
				want: map[string]any{"max_budget_usd": nil, "budget_duration": "", "rpm_limit": nil}},
			{name: "missing name", method: "POST", path: "/api/teams", body: `{}`, status: 400, errMsg: "name: is required"},
			{name: "taken name", method: "POST", path: "/api/teams", body: `{"name":"platform"}`, status: 409, errMsg: `name: a team named "platform" already exists`},
			{name: "negative budget", method: "POST", path: "/api/teams", body: `{"name":"x","max_budget_usd":-1}`, status: 400, errMsg: "max_budget_usd: must be 0 or more"},
			{name: "bad period", method: "POST", path: "/api/teams", body: `{"name":"x","budget_duration":"1y"}`, status: 400, errMsg: "budget_duration: must be a duration"},
			{name: "unknown field", method: "POST", path: "/api/teams", body: `{"name":"x","spend_usd":5}`, status: 400, errMsg: "spend_usd: unknown field"},
			{name: "list", method: "GET", path: "/api/teams", status: 200, count: n(2)},
			{name: "patch keeps the rest", method: "PATCH", path: "/api/teams/{t1}", body: `{"max_budget_usd":250}`, status: 200,
				want: map[string]any{"name": "platform", "max_budget_usd": 250, "budget_duration": "1mo", "rpm_limit": 600}},
			{name: "patch null clears", method: "PATCH", path: "/api/teams/{t1}", body: `{"rpm_limit":null,"budget_duration":null}`, status: 200,
				want: map[string]any{"rpm_limit": nil, "budget_duration": "", "max_budget_usd": 250}},
			{name: "patch to a taken name", method: "PATCH", path: "/api/teams/{t1}", body: `{"name":"research"}`, status: 409},
			{name: "patch unknown", method: "PATCH", path: "/api/teams/999", body: `{"name":"z"}`, status: 404},
			{name: "delete", method: "DELETE", path: "/api/teams/{t2}", status: 204},
			{name: "delete again", method: "DELETE", path: "/api/teams/{t2}", status: 404},
			{name: "list after delete", method: "GET", path: "/api/teams", status: 200, count: n(1)},
		})
	})
}
