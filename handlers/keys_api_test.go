package handlers_test

import (
	"strings"
	"testing"

	"gateway/models"
	"gateway/models/dbtest"
)

func TestAPIKeys(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		var created map[string]any
		runSteps(t, ta, []apiStep{
			{name: "create", method: "POST", path: "/api/keys", status: 201, save: "k1",
				body: `{"name":"ci","models":["gpt-4o","anthropic/*"],"max_budget_usd":50,"budget_duration":"1mo","rpm_limit":60,"tpm_limit":100000,"expires_at":"2030-01-02T03:04:05Z"}`,
				want: map[string]any{"name": "ci", "models": []string{"gpt-4o", "anthropic/*"}, "max_budget_usd": 50, "budget_duration": "1mo",
					"rpm_limit": 60, "tpm_limit": 100000, "expires_at": "2030-01-02T03:04:05Z", "revoked": false},
				absent: []string{"key_hash"}},
			{name: "missing name", method: "POST", path: "/api/keys", body: `{}`, status: 400, errMsg: "name: is required"},
			{name: "bad budget_duration", method: "POST", path: "/api/keys", body: `{"name":"x","budget_duration":"2 weeks"}`, status: 400, errMsg: "budget_duration:"},
			{name: "negative budget", method: "POST", path: "/api/keys", body: `{"name":"x","max_budget_usd":-1}`, status: 400, errMsg: "max_budget_usd: must be 0 or more"},
			{name: "negative rpm", method: "POST", path: "/api/keys", body: `{"name":"x","rpm_limit":-1}`, status: 400, errMsg: "rpm_limit: must be 0 or more"},
			{name: "bad expires_at", method: "POST", path: "/api/keys", body: `{"name":"x","expires_at":"tomorrow"}`, status: 400, errMsg: "expires_at: must be a time"},
			{name: "bad model name", method: "POST", path: "/api/keys", body: `{"name":"x","models":["gpt-4o","bad name"]}`, status: 400, errMsg: "models[1]:"},
			{name: "unknown user", method: "POST", path: "/api/keys", body: `{"name":"x","user_id":42}`, status: 400, errMsg: "user_id: no user with id 42"},
			{name: "30m and 7d are durations", method: "POST", path: "/api/keys", body: `{"name":"y","budget_duration":"30m"}`, status: 201, save: "k2"},
			{name: "list", method: "GET", path: "/api/keys", status: 200, count: n(2)},
			{name: "revoke", method: "PATCH", path: "/api/keys/{k1}", body: `{"revoked":true}`, status: 200,
				want: map[string]any{"revoked": true, "name": "ci", "budget_duration": "1mo"}},
			{name: "rename keeps revoked", method: "PATCH", path: "/api/keys/{k1}", body: `{"name":"ci-2","budget_duration":"7d"}`, status: 200,
				want: map[string]any{"revoked": true, "name": "ci-2", "budget_duration": "7d", "models": []string{"gpt-4o", "anthropic/*"}}},
			{name: "un-revoke, clear expiry", method: "PATCH", path: "/api/keys/{k1}", body: `{"revoked":false,"expires_at":null}`, status: 200,
				want: map[string]any{"revoked": false, "revoked_at": nil, "expires_at": nil}},
			{name: "patch bad duration", method: "PATCH", path: "/api/keys/{k1}", body: `{"budget_duration":"1y"}`, status: 400, errMsg: "budget_duration:"},
			{name: "patch unknown id", method: "PATCH", path: "/api/keys/999", body: `{"name":"z"}`, status: 404},
			{name: "delete", method: "DELETE", path: "/api/keys/{k2}", status: 204},
			{name: "delete again", method: "DELETE", path: "/api/keys/{k2}", status: 404},
			{name: "list after delete", method: "GET", path: "/api/keys", status: 200, count: n(1)},
		})

		// The key is shown once, on creation, and never again.
		rec := ta.api(t, "POST", "/api/keys", `{"name":"once"}`)
		if rec.Code != 201 {
			t.Fatalf("create key: %d %s", rec.Code, rec.Body)
		}
		created = decodeJSON[map[string]any](t, rec)
		key, _ := created["key"].(string)
		if !strings.HasPrefix(key, "sk-") || len(key) < 40 {
			t.Fatalf("key = %q, want sk-… of 32 random bytes", key)
		}
		if rec.Header().Get("Cache-Control") != "no-store" {
			t.Errorf("Cache-Control = %q, want no-store", rec.Header().Get("Cache-Control"))
		}
		list := ta.api(t, "GET", "/api/keys", "")
		if strings.Contains(list.Body.String(), key) || strings.Contains(list.Body.String(), models.HashKey(key)) {
			t.Errorf("GET /api/keys shows the key or its hash: %s", list.Body)
		}
		for _, k := range decodeJSON[[]map[string]any](t, list) {
			if _, ok := k["key"]; ok {
				t.Errorf("listed key has a key field: %v", k)
			}
			if hint, _ := k["key_hint"].(string); !strings.HasPrefix(hint, "sk-") {
				t.Errorf("key_hint = %q", hint)
			}
		}
	})
}
