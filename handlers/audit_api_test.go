package handlers_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"gateway/models"
	"gateway/models/dbtest"
)

// Secrets the audit tests write, which no audit answer or page may show.
const (
	auditProviderKey = "sk-AUDITLEAK-provider-9d8c7b6a5f4e3d2c"
	auditRotatedKey  = "sk-AUDITLEAK-rotated-0a1b2c3d4e5f6789"
)

// auditAnswer is one page of GET /api/audit.
type auditAnswer struct {
	Data       []map[string]any `json:"data"`
	NextBefore *float64         `json:"next_before"`
}

// getAudit reads GET /api/audit with query, which must answer 200.
func getAudit(t *testing.T, ta *testApp, query string) (auditAnswer, *httptest.ResponseRecorder) {
	t.Helper()
	rec := ta.api(t, "GET", "/api/audit"+query, "")
	wantStatus(t, "GET /api/audit"+query, rec, http.StatusOK)
	return decodeJSON[auditAnswer](t, rec), rec
}

// auditWrites makes one write of each kind through the API with the master
// key, and returns the ids it made ("provider", "model", "key", "team") and
// the virtual key's secret.
func auditWrites(t *testing.T, ta *testApp) (map[string]string, string) {
	t.Helper()
	ids := map[string]string{}
	create := func(name, path, body string) map[string]any {
		rec := ta.api(t, "POST", path, body)
		wantStatus(t, "POST "+path, rec, http.StatusCreated)
		out := decodeJSON[map[string]any](t, rec)
		if name != "" {
			ids[name] = fmt.Sprint(out["id"])
		}
		return out
	}
	create("provider", "/api/providers", `{"name":"audited","api_type":"openai","base_url":"https://a.example/v1","api_key":"`+auditProviderKey+`"}`)
	wantStatus(t, "PATCH provider", ta.api(t, "PATCH", "/api/providers/"+ids["provider"],
		`{"base_url":"https://b.example/v1","api_key":"`+auditRotatedKey+`"}`), http.StatusOK)
	create("model", "/api/models", `{"public_name":"gpt-4o","provider_id":`+ids["provider"]+`,"upstream_model":"gpt-4o","weight":1}`)
	wantStatus(t, "PATCH model", ta.api(t, "PATCH", "/api/models/"+ids["model"], `{"weight":2}`), http.StatusOK)
	wantStatus(t, "PUT pool", ta.api(t, "PUT", "/api/pools/gpt-4o", `{"num_retries":2}`), http.StatusOK)
	create("", "/api/fallbacks", `{"public_name":"gpt-4o","kind":"general","targets":["cheap","cheaper"]}`)
	secret := create("key", "/api/keys", `{"name":"ci"}`)["key"].(string)
	create("team", "/api/teams", `{"name":"platform"}`)
	create("user", "/api/users", `{"name":"ana","team_id":`+ids["team"]+`}`)
	wantStatus(t, "PUT settings", ta.api(t, "PUT", "/api/settings", `{"log_retention_days":30}`), http.StatusOK)
	wantStatus(t, "DELETE key", ta.api(t, "DELETE", "/api/keys/"+ids["key"], ""), http.StatusNoContent)
	return ids, secret
}

// TestAPIAudit: one write of each kind through the API shows in GET
// /api/audit, newest first, as the master key's, with its before and after
// as objects; the filters and paging work, and bad values are refused
// naming the field.
func TestAPIAudit(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		ids, _ := auditWrites(t, ta)
		all, _ := getAudit(t, ta, "?actor="+url.QueryEscape(models.ActorMasterKey))
		want := []string{
			"delete key ci", "update settings settings", "create user ana", "create team platform", "create key ci",
			"create fallbacks gpt-4o", "create pool gpt-4o", "update model_entry gpt-4o", "create model_entry gpt-4o",
			"update provider audited", "create provider audited",
		}
		var got []string
		for _, e := range all.Data {
			got = append(got, fmt.Sprint(e["action"], " ", e["kind"], " ", e["name"]))
			if e["actor"] != models.ActorMasterKey || e["via"] != "api" || e["created_at"] == nil {
				t.Errorf("%v: actor %v via %v at %v", e["id"], e["actor"], e["via"], e["created_at"])
			}
			before, hasBefore := e["before"].(map[string]any)
			after, hasAfter := e["after"].(map[string]any)
			switch e["action"] {
			case "create":
				if e["before"] != nil || !hasAfter || len(after) == 0 {
					t.Errorf("create %v: before %v, after %v", e["kind"], e["before"], e["after"])
				}
			case "update":
				if !hasBefore || !hasAfter {
					t.Errorf("update %v: before %v, after %v", e["kind"], e["before"], e["after"])
				}
			case "delete":
				if !hasBefore || len(before) == 0 || e["after"] != nil {
					t.Errorf("delete %v: before %v, after %v", e["kind"], e["before"], e["after"])
				}
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("entries, newest first\n got %q\nwant %q", got, want)
		}
		if all.NextBefore != nil {
			t.Errorf("one page has next_before %v", *all.NextBefore)
		}
		weight := all.Data[7]
		if b, a := weight["before"].(map[string]any), weight["after"].(map[string]any); b["weight"] != 1.0 || a["weight"] != 2.0 ||
			weight["target_id"] != ids["model"] {
			t.Errorf("weight change: %v → %v of %v", b["weight"], a["weight"], weight["target_id"])
		}
		if a := all.Data[5]["after"].(map[string]any); fmt.Sprint(a["targets"]) != "[cheap cheaper]" {
			t.Errorf("fallbacks after %v", a)
		}
		if b, a := all.Data[9]["before"].(map[string]any), all.Data[9]["after"].(map[string]any); b["base_url"] != "https://a.example/v1" ||
			a["base_url"] != "https://b.example/v1" || a["api_key_last4"] != auditRotatedKey[len(auditRotatedKey)-4:] {
			t.Errorf("provider change: %v → %v", b, a)
		}

		// One entry by its id.
		rec := ta.api(t, "GET", fmt.Sprintf("/api/audit/%v", weight["id"]), "")
		wantStatus(t, "GET /api/audit/{id}", rec, http.StatusOK)
		if one := decodeJSON[map[string]any](t, rec); fmt.Sprint(one) != fmt.Sprint(weight) {
			t.Errorf("GET /api/audit/{id}\n got %v\nwant %v", one, weight)
		}
		for _, path := range []string{"/api/audit/999999", "/api/audit/x"} {
			if rec := ta.api(t, "GET", path, ""); rec.Code != http.StatusNotFound {
				t.Errorf("%s: %d, want 404", path, rec.Code)
			}
		}

		// Filters.
		for _, c := range []struct {
			query string
			want  int
		}{
			{"", 12}, // and the bootstrap admin's creation, by "system"
			{"?kind=model_entry", 2}, {"?kind=model_entry&id=" + ids["model"], 2}, {"?kind=key&id=" + ids["key"], 2},
			{"?kind=pool&id=gpt-4o", 1}, {"?id=" + ids["team"] + "&kind=team", 1}, {"?actor=system", 1},
			{"?actor=nobody", 0}, {"?kind=provider&actor=system", 0}, {"?limit=4", 4},
		} {
			if page, _ := getAudit(t, ta, c.query); len(page.Data) != c.want {
				t.Errorf("GET /api/audit%s: %d entries, want %d", c.query, len(page.Data), c.want)
			}
		}

		// Paging: next_before until it is null goes through every entry once.
		var paged []any
		query := "?limit=5"
		for range 10 {
			page, _ := getAudit(t, ta, query)
			for _, e := range page.Data {
				paged = append(paged, e["id"])
			}
			if page.NextBefore == nil {
				break
			}
			query = fmt.Sprintf("?limit=5&before=%d", int64(*page.NextBefore))
		}
		whole, _ := getAudit(t, ta, "")
		var wholeIDs []any
		for _, e := range whole.Data {
			wholeIDs = append(wholeIDs, e["id"])
		}
		if fmt.Sprint(paged) != fmt.Sprint(wholeIDs) {
			t.Errorf("paged ids %v, want %v", paged, wholeIDs)
		}
		if page, _ := getAudit(t, ta, "?limit=12"); page.NextBefore != nil {
			t.Errorf("a page holding the last entry has next_before %v", *page.NextBefore)
		}

		// Bad values: 400, naming every bad field.
		for _, c := range []struct{ query, want string }{
			{"?kind=nope", "kind: must be one of: model_entry"}, {"?limit=0", "limit:"}, {"?limit=501", "limit:"},
			{"?limit=x", "limit:"}, {"?before=-1", "before:"}, {"?before=x", "before:"},
			{"?id=" + strings.Repeat("x", 501), "id:"}, {"?kind=x&limit=0", "kind: must be one of"},
			{"?kind=x&limit=0", "; limit:"},
		} {
			rec := ta.api(t, "GET", "/api/audit"+c.query, "")
			if rec.Code != http.StatusBadRequest || !strings.Contains(errorMessage(t, rec), c.want) {
				t.Errorf("GET /api/audit%s: %d %s, want 400 with %q", clip(c.query), rec.Code, rec.Body, c.want)
			}
		}
		if rec := ta.do(t, "GET", "/api/audit", "", nil); rec.Code != http.StatusUnauthorized {
			t.Errorf("without credentials: %d", rec.Code)
		}
	})
}

// clip shortens a long query for a message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// TestAPIAuditRefusedWrites: a write the API refuses (bad input, a thing
// that does not exist, a conflict) leaves no entry.
func TestAPIAuditRefusedWrites(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		ids, _ := auditWrites(t, ta)
		before, _ := getAudit(t, ta, "?limit=500")
		for _, c := range []struct {
			method, path, body string
			status             int
		}{
			{"POST", "/api/teams", `{}`, http.StatusBadRequest},
			{"POST", "/api/teams", `{"name":"platform"}`, http.StatusConflict},
			{"POST", "/api/models", `{"public_name":"gpt-4o","provider_id":` + ids["provider"] + `,"upstream_model":"x","weight":-1}`, http.StatusBadRequest},
			{"PATCH", "/api/models/999999", `{"weight":3}`, http.StatusNotFound},
			{"DELETE", "/api/users/999999", "", http.StatusNotFound},
			{"DELETE", "/api/providers/" + ids["provider"], "", http.StatusConflict}, // its model entry uses it
			{"PUT", "/api/settings", `{"log_retention_days":-1}`, http.StatusBadRequest},
			{"POST", "/api/fallbacks", `{"public_name":"gpt-4o","kind":"general","targets":["gpt-4o"]}`, http.StatusBadRequest},
		} {
			if rec := ta.api(t, c.method, c.path, c.body); rec.Code != c.status {
				t.Errorf("%s %s: %d, want %d\n%s", c.method, c.path, rec.Code, c.status, rec.Body)
			}
		}
		// A write that changes nothing is no change either.
		wantStatus(t, "PATCH model, same weight", ta.api(t, "PATCH", "/api/models/"+ids["model"], `{"weight":2}`), http.StatusOK)
		after, _ := getAudit(t, ta, "?limit=500")
		if len(after.Data) != len(before.Data) {
			t.Errorf("%d entries after refused writes, want %d; newest: %v", len(after.Data), len(before.Data), after.Data[0])
		}
	})
}
