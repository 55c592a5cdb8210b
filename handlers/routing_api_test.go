package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"gateway/models"
	"gateway/models/dbtest"
)

// Tests of the routing settings in the API: an entry's rpm_limit,
// tpm_limit and priority, a pool's routing_strategy, and what the pool's
// status says the strategy decides on.

// storedEntry checks the one stored entry of upstream model upstream.
func storedEntry(upstream string, check func(t *testing.T, d models.Deployment)) func(t *testing.T, s *models.Store) {
	return func(t *testing.T, s *models.Store) {
		t.Helper()
		ds, err := s.ListDeployments(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if d.UpstreamModel == upstream {
				check(t, d)
				return
			}
		}
		t.Errorf("no entry of %s stored", upstream)
	}
}

func limitsAre(rpm, tpm *int, priority int) func(t *testing.T, d models.Deployment) {
	return func(t *testing.T, d models.Deployment) {
		t.Helper()
		if fmt.Sprint(deref(d.RPMLimit)) != fmt.Sprint(deref(rpm)) || fmt.Sprint(deref(d.TPMLimit)) != fmt.Sprint(deref(tpm)) ||
			d.Priority != priority {
			t.Errorf("stored rpm %v tpm %v priority %d, want %v %v %d",
				deref(d.RPMLimit), deref(d.TPMLimit), d.Priority, deref(rpm), deref(tpm), priority)
		}
	}
}

// deref shows an optional number, nil as "nil".
func deref(p *int) any {
	if p == nil {
		return "nil"
	}
	return *p
}

func TestAPIModelLimitsAndPriority(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		entry := func(extra string) string {
			return `{"public_name":"gpt-4o","provider_id":{p1},"upstream_model":"x"` + extra + `}`
		}
		runSteps(t, ta, []apiStep{
			{name: "provider", method: "POST", path: "/api/providers", body: openaiBody, status: 201, save: "p1"},
			{name: "create with limits and a tier", method: "POST", path: "/api/models", status: 201, save: "m1",
				body:   `{"public_name":"gpt-4o","provider_id":{p1},"upstream_model":"limited","rpm_limit":60,"tpm_limit":100000,"priority":1}`,
				want:   map[string]any{"rpm_limit": 60, "tpm_limit": 100000, "priority": 1},
				verify: storedEntry("limited", limitsAre(ptr(60), ptr(100000), 1))},
			{name: "create without: no limits, tier 0", method: "POST", path: "/api/models", status: 201, save: "m2",
				body: `{"public_name":"gpt-4o","provider_id":{p1},"upstream_model":"plain"}`,
				want: map[string]any{"rpm_limit": nil, "tpm_limit": nil, "priority": 0}},
			{name: "null limits are no limits", method: "POST", path: "/api/models", status: 201,
				body: `{"public_name":"gpt-4o","provider_id":{p1},"upstream_model":"nulls","rpm_limit":null,"tpm_limit":null,"priority":-1000}`,
				want: map[string]any{"rpm_limit": nil, "tpm_limit": nil, "priority": -1000}},
			{name: "rpm 0", method: "POST", path: "/api/models", body: entry(`,"rpm_limit":0`), status: 400,
				errMsg: "rpm_limit: must be 1 or more (null is no limit)"},
			{name: "negative tpm", method: "POST", path: "/api/models", body: entry(`,"tpm_limit":-5`), status: 400,
				errMsg: "tpm_limit: must be 1 or more (null is no limit)"},
			{name: "fractional rpm", method: "POST", path: "/api/models", body: entry(`,"rpm_limit":1.5`), status: 400,
				errMsg: "rpm_limit: must be a whole number"},
			{name: "rpm as a string", method: "POST", path: "/api/models", body: entry(`,"rpm_limit":"60"`), status: 400,
				errMsg: "rpm_limit: must be a whole number"},
			{name: "priority above the range", method: "POST", path: "/api/models", body: entry(`,"priority":1001`), status: 400,
				errMsg: "priority: must be 1000 or less"},
			{name: "priority below the range", method: "POST", path: "/api/models", body: entry(`,"priority":-1001`), status: 400,
				errMsg: "priority: must be -1000 or more"},
			{name: "fractional priority", method: "POST", path: "/api/models", body: entry(`,"priority":0.5`), status: 400,
				errMsg: "priority: must be a whole number"},
			{name: "every bad field named", method: "POST", path: "/api/models", status: 400,
				body:   entry(`,"rpm_limit":0,"tpm_limit":0,"priority":5000`),
				errMsg: "rpm_limit: must be 1 or more (null is no limit); tpm_limit: must be 1 or more (null is no limit); priority: must be 1000 or less"},
			{name: "nothing written by the refusals", method: "GET", path: "/api/models", status: 200, count: n(3), verify: entryCount(3),
				check: func(t *testing.T, rec *httptest.ResponseRecorder) {
					for _, e := range decodeJSON[[]map[string]any](t, rec) {
						for _, k := range []string{"rpm_limit", "tpm_limit", "priority"} {
							if _, ok := e[k]; !ok {
								t.Errorf("GET /api/models: entry without %s: %v", k, e)
							}
						}
					}
				}},
			{name: "patch the tier keeps the limits", method: "PATCH", path: "/api/models/{m1}", body: `{"priority":-3}`, status: 200,
				want: map[string]any{"priority": -3, "rpm_limit": 60, "tpm_limit": 100000}},
			{name: "patch rpm null lifts it, tpm kept", method: "PATCH", path: "/api/models/{m1}", body: `{"rpm_limit":null}`, status: 200,
				want: map[string]any{"rpm_limit": nil, "tpm_limit": 100000, "priority": -3}},
			{name: "patch a limit onto an entry without", method: "PATCH", path: "/api/models/{m2}", body: `{"rpm_limit":5}`, status: 200,
				want: map[string]any{"rpm_limit": 5, "tpm_limit": nil, "priority": 0}},
			{name: "patch rpm 0 with a good tier", method: "PATCH", path: "/api/models/{m1}", body: `{"rpm_limit":0,"priority":7}`, status: 400,
				errMsg: "rpm_limit: must be 1 or more", verify: storedEntry("limited", limitsAre(nil, ptr(100000), -3))},
			{name: "patch the tier out of range with a good limit", method: "PATCH", path: "/api/models/{m1}", body: `{"rpm_limit":9,"priority":2000}`,
				status: 400, errMsg: "priority: must be 1000 or less", verify: storedEntry("limited", limitsAre(nil, ptr(100000), -3))},
			{name: "patch priority null is tier 0", method: "PATCH", path: "/api/models/{m1}", body: `{"priority":null}`, status: 200,
				want: map[string]any{"priority": 0}, verify: storedEntry("limited", limitsAre(nil, ptr(100000), 0))},
		})
	})
}

func TestAPIPoolRoutingStrategy(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		stored := func(name, want string) func(t *testing.T, s *models.Store) {
			return func(t *testing.T, s *models.Store) {
				t.Helper()
				ps, err := s.ListPoolSettings(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range ps {
					if p.PublicName == name {
						if p.RoutingStrategy != want {
							t.Errorf("stored strategy of %s = %q, want %q", name, p.RoutingStrategy, want)
						}
						return
					}
				}
				t.Errorf("no settings stored for %s", name)
			}
		}
		var steps []apiStep
		for _, strategy := range models.RoutingStrategies[1:] {
			steps = append(steps, apiStep{name: "put " + strategy, method: "PUT", path: "/api/pools/gpt-4o", status: 200,
				body: `{"routing_strategy":"` + strategy + `","num_retries":1}`,
				want: map[string]any{"routing_strategy": strategy, "num_retries": 1}, verify: stored("gpt-4o", strategy)})
		}
		allowed := "routing_strategy: must be one of: simple-shuffle, latency-based, least-busy, usage-based, cost-based"
		steps = append(steps, []apiStep{
			{name: "a LiteLLM name is refused, naming ours", method: "PUT", path: "/api/pools/gpt-4o", status: 400,
				body: `{"routing_strategy":"usage-based-routing-v2"}`, errMsg: allowed, verify: stored("gpt-4o", "cost-based")},
			{name: "unknown strategy", method: "PUT", path: "/api/pools/gpt-4o", status: 400,
				body: `{"routing_strategy":"round-robin","num_retries":5}`, errMsg: allowed, verify: stored("gpt-4o", "cost-based")},
			{name: "strategy of the wrong type", method: "PUT", path: "/api/pools/gpt-4o", status: 400,
				body: `{"routing_strategy":3}`, errMsg: "routing_strategy: must be a string"},
			{name: "refusals changed nothing", method: "GET", path: "/api/pools", status: 200, count: n(1),
				check: func(t *testing.T, rec *httptest.ResponseRecorder) {
					if got := jsonOf(t, decodeJSON[[]map[string]any](t, rec)[0]["routing_strategy"]); got != `"cost-based"` {
						t.Errorf("GET /api/pools routing_strategy = %s, want cost-based", got)
					}
				}},
			{name: "put replaces: absent is the default", method: "PUT", path: "/api/pools/gpt-4o", status: 200, body: `{"num_retries":2}`,
				want: map[string]any{"routing_strategy": "simple-shuffle"}, verify: stored("gpt-4o", "")},
			{name: "the default by name is stored as the default", method: "PUT", path: "/api/pools/anthropic%2F%2A", status: 200,
				body: `{"routing_strategy":"simple-shuffle"}`,
				want: map[string]any{"routing_strategy": "simple-shuffle"}, verify: stored("anthropic/*", "")},
			{name: "blank is the default", method: "PUT", path: "/api/pools/claude", status: 200, body: `{"routing_strategy":""}`,
				want: map[string]any{"routing_strategy": "simple-shuffle"}, verify: stored("claude", "")},
			{name: "null is the default", method: "PUT", path: "/api/pools/claude", status: 200, body: `{"routing_strategy":null}`,
				want: map[string]any{"routing_strategy": "simple-shuffle"}},
			{name: "list names the default", method: "GET", path: "/api/pools", status: 200, count: n(3),
				check: func(t *testing.T, rec *httptest.ResponseRecorder) {
					for _, p := range decodeJSON[[]map[string]any](t, rec) {
						if p["routing_strategy"] != "simple-shuffle" {
							t.Errorf("pool %v: routing_strategy %v, want simple-shuffle", p["public_name"], p["routing_strategy"])
						}
					}
				}},
		}...)
		runSteps(t, ta, steps)
	})
}

// poolStatusOf is GET /api/pools/{name}/status as generic JSON.
func poolStatusOf(t *testing.T, ta *testApp, name string) (map[string]any, map[string]map[string]any) {
	t.Helper()
	rec := ta.api(t, "GET", "/api/pools/"+name+"/status", "")
	if rec.Code != http.StatusOK {
		t.Fatalf("status of %s: %d %s", name, rec.Code, rec.Body)
	}
	st := decodeJSON[map[string]any](t, rec)
	members := map[string]map[string]any{}
	for _, m := range st["members"].([]any) {
		mm := m.(map[string]any)
		members[mm["upstream_model"].(string)] = mm
	}
	return st, members
}

// wantFields compares fields of a JSON object as JSON.
func wantFields(t *testing.T, what string, got map[string]any, want map[string]any) {
	t.Helper()
	for k, v := range want {
		if g, w := jsonOf(t, got[k]), jsonOf(t, v); g != w {
			t.Errorf("%s: %s = %s, want %s", what, k, g, w)
		}
	}
}

// TestAPIPoolStatusStrategyAndLimits: the status says which strategy serves
// the pool and, per member, its tier, its limits with this minute's usage,
// whether it is at a limit, what is in flight, its latency and its price;
// the current share follows tiers and limits.
func TestAPIPoolStatusStrategyAndLimits(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		e := newRuntimeEnv(t, s)
		post := func(body string) string {
			t.Helper()
			rec := e.api(t, "POST", "/api/models", body)
			if rec.Code != http.StatusCreated {
				t.Fatalf("POST /api/models: %d %s", rec.Code, rec.Body)
			}
			return fmt.Sprint(decodeJSON[map[string]any](t, rec)["id"])
		}
		pid := e.provider.ID
		ids := map[string]string{}
		ids["first"] = post(fmt.Sprintf(`{"public_name":"tiered","provider_id":%d,"upstream_model":"first","weight":1,"rpm_limit":2,"input_price":1,"output_price":2}`, pid))
		ids["second"] = post(fmt.Sprintf(`{"public_name":"tiered","provider_id":%d,"upstream_model":"second","weight":1,"priority":1,"tpm_limit":100000,"input_price":0.25,"output_price":0.5}`, pid))
		post(fmt.Sprintf(`{"public_name":"tiered","provider_id":%d,"upstream_model":"off","priority":-1,"rpm_limit":9,"enabled":false}`, pid))

		st, ms := poolStatusOf(t, e.testApp, "tiered")
		if st["routing_strategy"] != "simple-shuffle" {
			t.Errorf("routing_strategy = %v, want simple-shuffle", st["routing_strategy"])
		}
		wantFields(t, "first, fresh", ms["first"], map[string]any{"priority": 0, "rpm_limit": 2, "tpm_limit": nil,
			"requests_this_minute": 0, "tokens_this_minute": 0, "at_limit": false, "in_flight": 0, "latency_ms": nil,
			"price_per_million": 3, "share": 1, "planned_share": 1})
		wantFields(t, "second, fresh", ms["second"], map[string]any{"priority": 1, "rpm_limit": nil, "tpm_limit": 100000,
			"at_limit": false, "price_per_million": 0.75, "share": 0, "planned_share": 0})
		// A disabled entry shows its settings, and no usage.
		wantFields(t, "off", ms["off"], map[string]any{"priority": -1, "rpm_limit": 9, "requests_this_minute": 0, "share": 0})

		// Two requests fill first's 2 rpm: the third goes to the higher tier.
		for i, want := range []string{"first", "first", "second"} {
			if status, servedBy := e.chat(t, "tiered"); status != http.StatusOK || servedBy != ids[want] {
				t.Fatalf("chat %d: %d served by %s, want 200 from %s (%s)", i, status, servedBy, want, ids[want])
			}
		}
		st, ms = poolStatusOf(t, e.testApp, "tiered")
		wantFields(t, "first at its limit", ms["first"], map[string]any{"requests_this_minute": 2, "tokens_this_minute": 10,
			"at_limit": true, "in_flight": 0, "share": 0, "planned_share": 1})
		wantFields(t, "second serving", ms["second"], map[string]any{"requests_this_minute": 1, "tokens_this_minute": 5,
			"at_limit": false, "share": 1})

		// The strategy set through the API is the one served.
		if rec := e.api(t, "PUT", "/api/pools/tiered", `{"routing_strategy":"cost-based"}`); rec.Code != http.StatusOK {
			t.Fatalf("PUT strategy: %d %s", rec.Code, rec.Body)
		}
		if st, _ = poolStatusOf(t, e.testApp, "tiered"); st["routing_strategy"] != "cost-based" {
			t.Errorf("routing_strategy = %v, want cost-based", st["routing_strategy"])
		}
		// A pool no one serves (every entry disabled) says its stored one.
		e.entry(t, "retired", "old", nil, false)
		if rec := e.api(t, "PUT", "/api/pools/retired", `{"routing_strategy":"least-busy"}`); rec.Code != http.StatusOK {
			t.Fatalf("PUT strategy: %d %s", rec.Code, rec.Body)
		}
		if st, _ = poolStatusOf(t, e.testApp, "retired"); st["routing_strategy"] != "least-busy" {
			t.Errorf("retired: routing_strategy = %v, want least-busy", st["routing_strategy"])
		}
	})
}
