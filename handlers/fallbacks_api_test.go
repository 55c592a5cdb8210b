package handlers_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"gateway/models"
	"gateway/models/dbtest"
)

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
