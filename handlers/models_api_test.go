package handlers_test

import (
	"context"
	"testing"

	"gateway/models"
	"gateway/models/dbtest"
)

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
