package handlers_test

import (
	"context"
	"testing"

	"gateway/models"
	"gateway/models/dbtest"
)

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
