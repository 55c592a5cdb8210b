package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"gateway/models"
	"gateway/models/dbtest"
)

// TestProviderKeyNeverShown creates a provider with a distinctive key, then
// reads every API endpoint and every page, and the log: neither the key nor
// its first 12 characters may appear anywhere.
func TestProviderKeyNeverShown(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		const key = "sk-LEAKCHECK-provider-secret-7f3a9c2e1b"
		const newKey = "sk-ROTATED-provider-secret-000000000042"
		// With a proxy, so that the pool pages and shares render; Check now,
		// which calls upstreams, has its own leak test in TestCheckNow.
		ta := mpTestAppWithProxy(t, s)
		var bodies []string
		record := func(what string, rec interface{ Result() *http.Response }, body string) {
			bodies = append(bodies, what+"\n"+body)
			for k, vs := range rec.Result().Header {
				bodies = append(bodies, what+" header "+k+": "+strings.Join(vs, ","))
			}
		}
		api := func(method, path, body string) {
			rec := ta.api(t, method, path, body)
			if rec.Code >= 500 {
				t.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
			}
			record(method+" "+path, rec, rec.Body.String())
		}

		api("POST", "/api/providers", `{"name":"leaky","api_type":"openai","base_url":"https://api.example.com/v1","api_key":"`+key+`"}`)
		api("POST", "/api/models", `{"public_name":"gpt-4o","provider_id":1,"upstream_model":"gpt-4o"}`)
		api("POST", "/api/models", `{"public_name":"wild/*","provider_id":1,"upstream_model":"*","weight":1}`)
		api("POST", "/api/keys", `{"name":"k"}`)
		api("POST", "/api/fallbacks", `{"public_name":"gpt-4o","kind":"general","targets":["wild/x"]}`)
		api("PUT", "/api/pools/gpt-4o", `{"num_retries":1}`)
		// Refused bodies that carry the key must not echo it either.
		api("POST", "/api/providers", `{"name":"leaky","api_type":"openai","base_url":"https://api.example.com/v1","api_key":"`+key+`"}`)
		api("POST", "/api/providers", `{"name":"x","api_type":"azure","base_url":"nope","api_key":"`+key+"\t"+`"}`)
		api("POST", "/api/providers", `{"name":"x","api_type":"openai","base_url":"https://h/v1","api_key":"`+key+`","extra":1}`)
		api("PATCH", "/api/providers/1", `{"api_key":"`+key+`","name":""}`)
		api("PATCH", "/api/providers/1", `{"api_key":"`+newKey+`"}`)
		api("PATCH", "/api/providers/1", `{"base_url":"https://api2.example.com/v1"}`)
		api("PATCH", "/api/models/1", `{"weight":0}`)
		for _, path := range []string{"/api/providers", "/api/models", "/api/keys", "/api/fallbacks", "/api/pools", "/healthz"} {
			api("GET", path, "")
		}

		b := ta.browser(t)
		login := b.get("/login")
		record("GET /login", login, login.Body.String())
		tok := b.signIn()
		for _, path := range []string{"/", "/models", "/providers", "/keys", "/logs", "/no-such-page", "/pools/gpt-4o", "/pools/wild%2F%2A",
			"/providers/1/edit", "/users", "/teams", "/sticky"} {
			rec := b.get(path)
			record("GET "+path, rec, rec.Body.String())
			rec = b.do("GET", path, nil, http.Header{"Hx-Request": {"true"}})
			record("htmx GET "+path, rec, rec.Body.String())
		}
		rec := b.post("/models", url.Values{"csrf_token": {tok}, "public_name": {"a b"}, "provider_id": {"1"}}, nil)
		record("POST /models (invalid)", rec, rec.Body.String())
		rec = b.post("/models", url.Values{"csrf_token": {tok}, "public_name": {"ok"}, "provider_id": {"1"}, "upstream_model": {"m"}}, nil)
		record("POST /models", rec, rec.Body.String())
		rec = b.do("GET", "/api/providers", nil, nil)
		record("GET /api/providers with a session", rec, rec.Body.String())
		for _, p := range []struct {
			path string
			form url.Values
		}{
			{"/models/1/weight", url.Values{"weight": {"2"}}},
			{"/models/1/weight", url.Values{"weight": {"-1"}}},
			{"/models/1/enabled", url.Values{"enabled": {"false"}}},
			{"/models/fallbacks", url.Values{"public_name": {"gpt-4o"}, "kind": {"general"}, "targets": {"wild/y, ok"}}},
			{"/models/fallbacks", url.Values{"public_name": {"gpt-4o"}, "kind": {"general"}, "targets": {"gpt-4o"}}},
		} {
			rec = b.post(p.path, p.form, http.Header{"Hx-Request": {"true"}, "X-Csrf-Token": {tok}})
			record("htmx POST "+p.path, rec, rec.Body.String())
		}
		// The provider forms, refused and accepted, with and without htmx.
		for _, h := range []http.Header{nil, {"Hx-Request": {"true"}}} {
			rec = b.post("/providers", url.Values{"csrf_token": {tok}, "name": {"leaky"}, "api_type": {"openai"},
				"base_url": {"https://api.example.com/v1"}, "api_key": {key}}, h)
			record("POST /providers (taken name)", rec, rec.Body.String())
			rec = b.post("/providers/1", url.Values{"csrf_token": {tok}, "name": {""}, "api_key": {key}}, h)
			record("POST /providers/1 (invalid)", rec, rec.Body.String())
			if rec.Code != http.StatusUnprocessableEntity {
				t.Errorf("invalid provider edit: %d, want the form re-rendered with 422", rec.Code)
			}
			rec = b.post("/providers/1/delete", url.Values{"csrf_token": {tok}}, h)
			record("POST /providers/1/delete (in use)", rec, rec.Body.String())
		}
		rec = b.post("/providers/1", url.Values{"csrf_token": {tok}, "name": {"leaky"}, "api_type": {"openai"},
			"base_url": {"https://api.example.com/v1"}, "api_key": {newKey}}, nil)
		record("POST /providers/1", rec, rec.Body.String())
		rec = b.get("/providers")
		record("GET /providers after the edit", rec, rec.Body.String())

		bodies = append(bodies, "log\n"+ta.logs.String())
		for _, secret := range []string{key, key[:12], newKey, newKey[:12]} {
			for _, body := range bodies {
				if strings.Contains(body, secret) {
					what, _, _ := strings.Cut(body, "\n")
					t.Errorf("%q appears in %s", secret, what)
				}
			}
		}
		// The check must be able to fail: the last four characters are shown on purpose.
		if !strings.Contains(strings.Join(bodies, "\n"), `"api_key_last4":"0042"`) {
			t.Error("api_key_last4 of the rotated key not found: is the test reading the answers?")
		}
	})
}
