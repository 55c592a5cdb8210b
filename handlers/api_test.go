package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"gateway/models"
	"gateway/models/dbtest"
)

// apiStep is one request of a scenario; steps run in order on one database.
type apiStep struct {
	name   string
	method string
	path   string // "{p1}" is replaced by the id saved as p1
	body   string // likewise
	status int
	// errMsg must be in the error message of a failed request.
	errMsg string
	// want holds top-level fields of the answer (an object), compared as JSON.
	want map[string]any
	// absent lists fields the answer must not have.
	absent []string
	// count is the length of a list answer, when >= 0 and the answer is a list.
	count *int
	// save remembers the answer's id under this name.
	save string
	// verify checks the database after the request.
	verify func(t *testing.T, s *models.Store)
	// check inspects the answer.
	check func(t *testing.T, rec *httptest.ResponseRecorder)
	// runtimeOnly marks a write of the proxy's runtime state: no reload.
	runtimeOnly bool
}

func runSteps(t *testing.T, ta *testApp, steps []apiStep) {
	t.Helper()
	ids := map[string]string{}
	expand := func(s string) string {
		for k, v := range ids {
			s = strings.ReplaceAll(s, "{"+k+"}", v)
		}
		return s
	}
	for _, st := range steps {
		ok := t.Run(st.name, func(t *testing.T) {
			before := ta.reloader.n.Load()
			rec := ta.api(t, st.method, expand(st.path), expand(st.body))
			if rec.Code != st.status {
				t.Fatalf("%s %s: status %d, want %d\n%s", st.method, expand(st.path), rec.Code, st.status, rec.Body)
			}
			wantReloads := before
			if st.method != http.MethodGet && rec.Code < 300 && !st.runtimeOnly {
				wantReloads++
			}
			if got := ta.reloader.n.Load(); got != wantReloads {
				t.Errorf("Reload called %d times, want %d", got-before, wantReloads-before)
			}
			if st.errMsg != "" {
				if msg := errorMessage(t, rec); !strings.Contains(msg, st.errMsg) {
					t.Errorf("error message %q, want it to contain %q", msg, st.errMsg)
				}
			}
			if st.count != nil {
				if got := decodeJSON[[]map[string]any](t, rec); len(got) != *st.count {
					t.Errorf("list has %d items, want %d: %s", len(got), *st.count, rec.Body)
				}
			}
			if st.want != nil || st.absent != nil || st.save != "" {
				got := decodeJSON[map[string]any](t, rec)
				for k, v := range st.want {
					if g, w := jsonOf(t, got[k]), jsonOf(t, v); g != w {
						t.Errorf("%s = %s, want %s", k, g, w)
					}
				}
				for _, k := range st.absent {
					if _, ok := got[k]; ok {
						t.Errorf("answer has %q, want it absent: %s", k, rec.Body)
					}
				}
				if st.save != "" {
					ids[st.save] = fmt.Sprint(got["id"])
				}
			}
			if st.verify != nil {
				st.verify(t, ta.store)
			}
			if st.check != nil {
				st.check(t, rec)
			}
		})
		if !ok {
			return
		}
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func n(i int) *int { return &i }

// providerCount verifies how many providers are stored.
func providerCount(want int) func(t *testing.T, s *models.Store) {
	return func(t *testing.T, s *models.Store) {
		t.Helper()
		ps, err := s.ListProviders(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) != want {
			t.Errorf("%d providers stored, want %d", len(ps), want)
		}
	}
}

func entryCount(want int) func(t *testing.T, s *models.Store) {
	return func(t *testing.T, s *models.Store) {
		t.Helper()
		ds, err := s.ListDeployments(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) != want {
			t.Errorf("%d model entries stored, want %d", len(ds), want)
		}
	}
}

const openaiBody = `{"name":"openai-main","api_type":"openai","base_url":"https://api.openai.com/v1","api_key":"sk-provider-key-abcd"}`

func TestAPIProviders(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		runSteps(t, ta, []apiStep{
			{name: "create", method: "POST", path: "/api/providers", body: openaiBody, status: 201, save: "p1",
				want: map[string]any{"name": "openai-main", "api_type": "openai", "base_url": "https://api.openai.com/v1",
					"api_key_last4": "abcd", "supports_responses": false},
				absent: []string{"api_key", "api_key_cipher"}},
			{name: "create anthropic with responses", method: "POST", path: "/api/providers", status: 201, save: "p2",
				body: `{"name":"anthropic","api_type":"anthropic","base_url":"https://api.anthropic.com","api_key":"sk-ant-0123456789","supports_responses":true}`,
				want: map[string]any{"api_type": "anthropic", "supports_responses": true}},
			{name: "duplicate name", method: "POST", path: "/api/providers", body: openaiBody, status: 409,
				errMsg: `name: a provider named "openai-main" already exists`, verify: providerCount(2)},
			{name: "missing name", method: "POST", path: "/api/providers", status: 400, errMsg: "name: is required",
				body: `{"api_type":"openai","base_url":"https://x.example/v1","api_key":"k"}`},
			{name: "missing api_key", method: "POST", path: "/api/providers", status: 400, errMsg: "api_key: is required",
				body: `{"name":"x","api_type":"openai","base_url":"https://x.example/v1"}`},
			{name: "bad api_type", method: "POST", path: "/api/providers", status: 400, errMsg: "api_type: must be one of: openai, anthropic, azure, bedrock, gemini, vertex",
				body: `{"name":"x","api_type":"cohere","base_url":"https://x.example/v1","api_key":"k"}`},
			{name: "relative base_url", method: "POST", path: "/api/providers", status: 400, errMsg: "base_url: must be an absolute http",
				body: `{"name":"x","api_type":"openai","base_url":"api.openai.com/v1","api_key":"k"}`},
			{name: "ftp base_url", method: "POST", path: "/api/providers", status: 400, errMsg: "base_url:",
				body: `{"name":"x","api_type":"openai","base_url":"ftp://x.example/v1","api_key":"k"}`},
			{name: "base_url with credentials", method: "POST", path: "/api/providers", status: 400, errMsg: "base_url:",
				body: `{"name":"x","api_type":"openai","base_url":"https://u:p@x.example/v1","api_key":"k"}`},
			{name: "wrong type", method: "POST", path: "/api/providers", status: 400, errMsg: "name: must be a string",
				body: `{"name":5,"api_type":"openai","base_url":"https://x.example/v1","api_key":"k"}`},
			{name: "unknown field", method: "POST", path: "/api/providers", status: 400, errMsg: "colour: unknown field",
				body: `{"name":"x","api_type":"openai","base_url":"https://x.example/v1","api_key":"k","colour":"red"}`},
			{name: "field in the wrong case", method: "POST", path: "/api/providers", status: 400, errMsg: "Name: unknown field",
				body: `{"Name":"x","api_type":"openai","base_url":"https://x.example/v1","api_key":"k"}`},
			{name: "trailing data", method: "POST", path: "/api/providers", status: 400, errMsg: "unexpected data after the JSON object",
				body: `{"name":"x","api_type":"openai","base_url":"https://x.example/v1","api_key":"k"} {}`},
			{name: "not JSON", method: "POST", path: "/api/providers", status: 400, errMsg: "not valid JSON", body: `{"name":`},
			{name: "not an object", method: "POST", path: "/api/providers", status: 400, errMsg: "body must be a JSON object", body: `["x"]`},
			{name: "empty body", method: "POST", path: "/api/providers", status: 400, errMsg: "request body is empty"},
			{name: "nothing written by the failures", method: "GET", path: "/api/providers", status: 200, count: n(2), verify: providerCount(2)},
			{name: "patch base_url only", method: "PATCH", path: "/api/providers/{p1}", body: `{"base_url":"https://proxy.example/v1/"}`, status: 200,
				want: map[string]any{"name": "openai-main", "base_url": "https://proxy.example/v1/", "api_key_last4": "abcd"}},
			{name: "patch a new key", method: "PATCH", path: "/api/providers/{p1}", body: `{"api_key":"sk-another-key-9999"}`, status: 200,
				want: map[string]any{"api_key_last4": "9999"}, absent: []string{"api_key"}},
			{name: "empty key keeps the stored one", method: "PATCH", path: "/api/providers/{p1}", body: `{"api_key":"","supports_responses":true}`, status: 200,
				want: map[string]any{"api_key_last4": "9999", "supports_responses": true}},
			{name: "patch name to empty", method: "PATCH", path: "/api/providers/{p1}", body: `{"name":""}`, status: 400, errMsg: "name: is required"},
			{name: "patch name to null", method: "PATCH", path: "/api/providers/{p1}", body: `{"name":null}`, status: 400, errMsg: "name: is required"},
			{name: "patch unknown field", method: "PATCH", path: "/api/providers/{p1}", body: `{"nme":"x"}`, status: 400, errMsg: "nme: unknown field"},
			{name: "patch key of the wrong type", method: "PATCH", path: "/api/providers/{p1}", body: `{"api_key":7}`, status: 400, errMsg: "api_key: must be a string"},
			{name: "patch to a taken name", method: "PATCH", path: "/api/providers/{p2}", body: `{"name":"openai-main"}`, status: 409,
				errMsg: `name: a provider named "openai-main" already exists`},
			{name: "patch unknown id", method: "PATCH", path: "/api/providers/999", body: `{"name":"y"}`, status: 404},
			{name: "patch non-numeric id", method: "PATCH", path: "/api/providers/abc", body: `{"name":"y"}`, status: 404},
			{name: "failed patches changed nothing", method: "GET", path: "/api/providers", status: 200, count: n(2),
				verify: func(t *testing.T, s *models.Store) {
					ps, _ := s.ListProviders(context.Background())
					if ps[0].Name != "openai-main" || ps[1].Name != "anthropic" || ps[0].APIKeyLast4 != "9999" {
						t.Errorf("providers changed: %+v", ps)
					}
				}},
			{name: "delete", method: "DELETE", path: "/api/providers/{p2}", status: 204, verify: providerCount(1)},
			{name: "delete again", method: "DELETE", path: "/api/providers/{p2}", status: 404},
		})
	})
}

func TestAPIModels(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		runSteps(t, ta, []apiStep{
			{name: "provider", method: "POST", path: "/api/providers", body: openaiBody, status: 201, save: "p1"},
			{name: "create with every field", method: "POST", path: "/api/models", status: 201, save: "m1",
				body: `{"public_name":"gpt-4o","provider_id":{p1},"upstream_model":"gpt-4o-2024-08-06","weight":2.5,"cooldown_seconds":30,
					"timeout_seconds":600,"context_window":128000,"input_price":2.5,"output_price":10,"cache_read_price":1.25,"enabled":false}`,
				want: map[string]any{"public_name": "gpt-4o", "provider": "openai-main", "upstream_model": "gpt-4o-2024-08-06",
					"weight": 2.5, "cooldown_seconds": 30, "timeout_seconds": 600, "context_window": 128000,
					"input_price": 2.5, "output_price": 10, "cache_read_price": 1.25, "enabled": false, "wildcard": false}},
			{name: "create minimal: weight unset, enabled", method: "POST", path: "/api/models", status: 201, save: "m2",
				body: `{"public_name":"gpt-4o","provider_id":{p1},"upstream_model":"gpt-4o"}`,
				want: map[string]any{"weight": nil, "cooldown_seconds": nil, "enabled": true, "input_price": nil, "base_model": ""}},
			{name: "create with weight 0", method: "POST", path: "/api/models", status: 201,
				body: `{"public_name":"gpt-4o","provider_id":{p1},"upstream_model":"gpt-4o-mini","weight":0}`,
				want: map[string]any{"weight": 0}},
			{name: "create wildcard", method: "POST", path: "/api/models", status: 201,
				body: `{"public_name":"openai/*","provider_id":{p1},"upstream_model":"*"}`,
				want: map[string]any{"public_name": "openai/*", "wildcard": true}},
			{name: "missing public_name", method: "POST", path: "/api/models", status: 400, errMsg: "public_name: is required",
				body: `{"provider_id":{p1},"upstream_model":"m"}`},
			{name: "missing everything names every field", method: "POST", path: "/api/models", status: 400,
				errMsg: "public_name: is required; provider_id: is required; upstream_model: is required", body: `{}`},
			{name: "star in the middle", method: "POST", path: "/api/models", status: 400, errMsg: "public_name: must have no spaces, and * only as its last character",
				body: `{"public_name":"claude-*-sonnet","provider_id":{p1},"upstream_model":"m"}`},
			{name: "space in public_name", method: "POST", path: "/api/models", status: 400, errMsg: "public_name:",
				body: `{"public_name":"gpt 4o","provider_id":{p1},"upstream_model":"m"}`},
			{name: "negative weight", method: "POST", path: "/api/models", status: 400, errMsg: "weight: must be 0 or more",
				body: `{"public_name":"x","provider_id":{p1},"upstream_model":"m","weight":-1}`},
			{name: "negative price", method: "POST", path: "/api/models", status: 400, errMsg: "output_price: must be 0 or more",
				body: `{"public_name":"x","provider_id":{p1},"upstream_model":"m","output_price":-0.5}`},
			{name: "zero timeout", method: "POST", path: "/api/models", status: 400, errMsg: "timeout_seconds: must be more than 0",
				body: `{"public_name":"x","provider_id":{p1},"upstream_model":"m","timeout_seconds":0}`},
			{name: "zero context window", method: "POST", path: "/api/models", status: 400, errMsg: "context_window: must be more than 0",
				body: `{"public_name":"x","provider_id":{p1},"upstream_model":"m","context_window":0}`},
			{name: "fractional cooldown", method: "POST", path: "/api/models", status: 400, errMsg: "cooldown_seconds: must be a whole number",
				body: `{"public_name":"x","provider_id":{p1},"upstream_model":"m","cooldown_seconds":1.5}`},
			{name: "provider_id as a string", method: "POST", path: "/api/models", status: 400, errMsg: "provider_id: must be a whole number",
				body: `{"public_name":"x","provider_id":"{p1}","upstream_model":"m"}`},
			{name: "enabled as a string", method: "POST", path: "/api/models", status: 400, errMsg: "enabled: must be true or false",
				body: `{"public_name":"x","provider_id":{p1},"upstream_model":"m","enabled":"yes"}`},
			{name: "unknown provider", method: "POST", path: "/api/models", status: 400, errMsg: "provider_id: no provider with id 9999",
				body: `{"public_name":"x","provider_id":9999,"upstream_model":"m"}`},
			{name: "unknown field", method: "POST", path: "/api/models", status: 400, errMsg: "model: unknown field",
				body: `{"public_name":"x","provider_id":{p1},"upstream_model":"m","model":"m"}`},
			{name: "nothing written by the failures", method: "GET", path: "/api/models", status: 200, count: n(4), verify: entryCount(4)},
			{name: "patch weight to 0 stays 0", method: "PATCH", path: "/api/models/{m2}", body: `{"weight":0}`, status: 200,
				want: map[string]any{"weight": 0, "public_name": "gpt-4o", "upstream_model": "gpt-4o", "enabled": true}},
			{name: "patch weight null becomes unset", method: "PATCH", path: "/api/models/{m2}", body: `{"weight":null}`, status: 200,
				want: map[string]any{"weight": nil}},
			{name: "absent fields are left alone", method: "PATCH", path: "/api/models/{m1}", body: `{"enabled":true}`, status: 200,
				want: map[string]any{"enabled": true, "weight": 2.5, "cooldown_seconds": 30, "cache_read_price": 1.25, "upstream_model": "gpt-4o-2024-08-06"}},
			{name: "null cooldown resets to the default", method: "PATCH", path: "/api/models/{m1}", body: `{"cooldown_seconds":null,"weight":1}`, status: 200,
				want: map[string]any{"cooldown_seconds": nil, "weight": 1}},
			{name: "patch negative weight", method: "PATCH", path: "/api/models/{m1}", body: `{"weight":-2,"upstream_model":"changed"}`, status: 400,
				errMsg: "weight: must be 0 or more"},
			{name: "patch unknown provider", method: "PATCH", path: "/api/models/{m1}", body: `{"provider_id":9999,"upstream_model":"changed"}`, status: 400,
				errMsg: "provider_id: no provider with id 9999"},
			{name: "patch star in the middle", method: "PATCH", path: "/api/models/{m1}", body: `{"public_name":"a*b"}`, status: 400, errMsg: "public_name:"},
			{name: "failed patches changed nothing", method: "GET", path: "/api/models", status: 200,
				verify: func(t *testing.T, s *models.Store) {
					ds, _ := s.ListDeployments(context.Background())
					for _, d := range ds {
						if d.UpstreamModel == "changed" || d.PublicName == "a*b" {
							t.Errorf("a failed patch was written: %+v", d)
						}
					}
				}},
			{name: "patch unknown id", method: "PATCH", path: "/api/models/9999", body: `{"weight":1}`, status: 404},
			{name: "provider in use", method: "DELETE", path: "/api/providers/{p1}", status: 409, errMsg: "model entries use it", verify: providerCount(1)},
			{name: "delete", method: "DELETE", path: "/api/models/{m1}", status: 204, verify: entryCount(3)},
			{name: "delete again", method: "DELETE", path: "/api/models/{m1}", status: 404},
		})
	})
}

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

func TestAPIFallbacksAndPools(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		runSteps(t, ta, []apiStep{
			{name: "set fallbacks", method: "POST", path: "/api/fallbacks", status: 201,
				body: `{"public_name":"gpt-4o","kind":"general","targets":["claude-sonnet","gpt-4o-mini"]}`,
				want: map[string]any{"public_name": "gpt-4o", "kind": "general", "targets": []string{"claude-sonnet", "gpt-4o-mini"}}},
			{name: "set context_window fallbacks", method: "POST", path: "/api/fallbacks", status: 201,
				body: `{"public_name":"gpt-4o","kind":"context_window","targets":["gpt-4.1"]}`},
			{name: "default fallbacks under *", method: "POST", path: "/api/fallbacks", status: 201,
				body: `{"public_name":"*","kind":"general","targets":["cheap"]}`},
			{name: "replace the list", method: "POST", path: "/api/fallbacks", status: 201,
				body: `{"public_name":"gpt-4o","kind":"general","targets":["claude-sonnet"]}`},
			{name: "bad kind", method: "POST", path: "/api/fallbacks", status: 400, errMsg: "kind: must be one of: general, context_window, content_policy",
				body: `{"public_name":"gpt-4o","kind":"sometimes","targets":["x"]}`},
			{name: "missing targets", method: "POST", path: "/api/fallbacks", status: 400, errMsg: "targets: is required",
				body: `{"public_name":"gpt-4o","kind":"general"}`},
			{name: "bad target", method: "POST", path: "/api/fallbacks", status: 400, errMsg: "targets[0]:",
				body: `{"public_name":"gpt-4o","kind":"general","targets":["a b"]}`},
			{name: "fallback to itself", method: "POST", path: "/api/fallbacks", status: 400, errMsg: `targets: "gpt-4o" cannot fall back to itself`,
				body: `{"public_name":"gpt-4o","kind":"general","targets":["gpt-4o"]}`},
			{name: "list", method: "GET", path: "/api/fallbacks", status: 200, count: n(3),
				verify: func(t *testing.T, s *models.Store) {
					fs, _ := s.ListFallbacks(context.Background())
					var general []string
					for _, f := range fs {
						if f.PublicName == "gpt-4o" && f.Kind == models.FallbackGeneral {
							general = append(general, f.Target)
						}
					}
					if strings.Join(general, ",") != "claude-sonnet" {
						t.Errorf("general fallbacks of gpt-4o = %v, want [claude-sonnet]", general)
					}
				}},
			{name: "list one name", method: "GET", path: "/api/fallbacks?public_name=gpt-4o", status: 200, count: n(2),
				check: func(t *testing.T, rec *httptest.ResponseRecorder) {
					got := decodeJSON[[]map[string]any](t, rec)
					want := `[{"kind":"context_window","public_name":"gpt-4o","targets":["gpt-4.1"]},{"kind":"general","public_name":"gpt-4o","targets":["claude-sonnet"]}]`
					if jsonOf(t, got) != want {
						t.Errorf("fallbacks of gpt-4o = %s, want %s", jsonOf(t, got), want)
					}
				}},
			{name: "list the defaults", method: "GET", path: "/api/fallbacks?public_name=%2A", status: 200, count: n(1)},
			{name: "list a name without fallbacks", method: "GET", path: "/api/fallbacks?public_name=cheap", status: 200, count: n(0),
				check: func(t *testing.T, rec *httptest.ResponseRecorder) {
					if got := strings.TrimSpace(rec.Body.String()); got != "[]" {
						t.Errorf("answer %s, want []", got)
					}
				}},
			{name: "list with an empty name", method: "GET", path: "/api/fallbacks?public_name=", status: 400, errMsg: "public_name: is required"},
			{name: "list with a bad name", method: "GET", path: "/api/fallbacks?public_name=a%20b", status: 400, errMsg: "public_name: must have no spaces"},
			{name: "list with an unknown parameter", method: "GET", path: "/api/fallbacks?model=gpt-4o", status: 400, errMsg: "model: unknown query parameter"},
			{name: "put pool settings by escaped name", method: "PUT", path: "/api/pools/anthropic%2F%2A", status: 200,
				body: `{"sticky_ttl_seconds":7200,"num_retries":3}`,
				want: map[string]any{"public_name": "anthropic/*", "sticky_ttl_seconds": 7200, "num_retries": 3, "allowed_fails": nil}},
			{name: "put with a literal star", method: "PUT", path: "/api/pools/openai%2F*", status: 200, body: `{"allowed_fails":0}`,
				want: map[string]any{"public_name": "openai/*", "allowed_fails": 0}},
			{name: "put replaces", method: "PUT", path: "/api/pools/anthropic%2F%2A", status: 200, body: `{"num_retries":0}`,
				want: map[string]any{"sticky_ttl_seconds": nil, "num_retries": 0}},
			{name: "negative retries", method: "PUT", path: "/api/pools/gpt-4o", status: 400, errMsg: "num_retries: must be 0 or more", body: `{"num_retries":-1}`},
			{name: "bad pool name", method: "PUT", path: "/api/pools/a%2A-b", status: 400, errMsg: "public_name:", body: `{}`},
			{name: "unknown pool field", method: "PUT", path: "/api/pools/gpt-4o", status: 400, errMsg: "retries: unknown field", body: `{"retries":1}`},
			{name: "list pools", method: "GET", path: "/api/pools", status: 200, count: n(2),
				verify: func(t *testing.T, s *models.Store) {
					ps, _ := s.ListPoolSettings(context.Background())
					if len(ps) != 2 || ps[0].PublicName != "anthropic/*" || ps[0].NumRetries == nil || *ps[0].NumRetries != 0 {
						t.Errorf("pool settings = %+v", ps)
					}
				}},
		})
	})
}

// TestAPIReloadFailure: when the routing table cannot be rebuilt after a
// committed write, the answer still says the write happened, with a warning;
// a new key's secret is not lost.
func TestAPIReloadFailure(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		ta.reloader.err = errReloadFailed
		wantWarning := func(t *testing.T, got map[string]any) {
			t.Helper()
			if w, _ := got["warning"].(string); !strings.Contains(w, "saved") || !strings.Contains(w, "routing table could not be rebuilt") {
				t.Errorf("warning %q should say the change was saved but the routing table was not rebuilt", w)
			}
		}
		rec := ta.api(t, "POST", "/api/keys", `{"name":"ci"}`)
		if rec.Code != http.StatusCreated {
			t.Fatalf("POST /api/keys: status %d, want 201: %s", rec.Code, rec.Body)
		}
		key := decodeJSON[map[string]any](t, rec)
		if k, _ := key["key"].(string); !strings.HasPrefix(k, "sk-") || key["name"] != "ci" || key["id"] == nil {
			t.Errorf("the new key is not in the answer: %s", rec.Body)
		}
		wantWarning(t, key)

		rec = ta.api(t, "POST", "/api/providers", openaiBody)
		if rec.Code != http.StatusCreated {
			t.Fatalf("POST /api/providers: status %d, want 201: %s", rec.Code, rec.Body)
		}
		p := decodeJSON[map[string]any](t, rec)
		wantWarning(t, p)
		providerCount(1)(t, s)

		path := fmt.Sprintf("/api/providers/%v", p["id"])
		rec = ta.api(t, "PATCH", path, `{"name":"renamed"}`)
		if got := decodeJSON[map[string]any](t, rec); rec.Code != http.StatusOK || got["name"] != "renamed" {
			t.Fatalf("PATCH: status %d: %s", rec.Code, rec.Body)
		} else {
			wantWarning(t, got)
		}
		// A 204 cannot carry a warning: the delete answers 200 with it.
		rec = ta.api(t, "DELETE", path, "")
		if rec.Code != http.StatusOK {
			t.Fatalf("DELETE: status %d, want 200: %s", rec.Code, rec.Body)
		}
		got := decodeJSON[map[string]any](t, rec)
		wantWarning(t, got)
		if len(got) != 1 {
			t.Errorf("DELETE answer %s, want only the warning", rec.Body)
		}
		providerCount(0)(t, s)
		if !strings.Contains(ta.logs.String(), errReloadFailed.Error()) {
			t.Errorf("the reload error is not logged:\n%s", ta.logs)
		}
		// Input errors are still errors.
		if rec := ta.api(t, "POST", "/api/keys", `{}`); rec.Code != http.StatusBadRequest {
			t.Errorf("bad input with a failing reload: status %d, want 400", rec.Code)
		}
	})
}

func TestAPIUnknownRoute(t *testing.T) {
	ta := newTestApp(t, dbtest.MustOpenStore(t, "", t.TempDir()))
	rec := ta.api(t, "GET", "/api/nothing-here", "")
	if rec.Code != http.StatusNotFound {
		t.Fatalf("status %d, want 404", rec.Code)
	}
	errorMessage(t, rec)
}
