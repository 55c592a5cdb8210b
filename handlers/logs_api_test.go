package handlers_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"gateway/models"
	"gateway/models/dbtest"
)

func TestAPILogsStatsAndSettings(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		ctx := context.Background()
		now := time.Now().UTC()
		k1, k2 := int64(1), int64(2)
		var rows []models.RequestLog
		for i := range 30 {
			k := &k1
			if i%3 == 0 {
				k = &k2
			}
			rows = append(rows, models.RequestLog{CreatedAt: now, KeyID: k, Model: "m", ProviderName: "p",
				Status: 200 + (i%2)*229, OutputTokens: 2, CostUSD: 0.01})
		}
		if err := s.InsertRequestLogs(ctx, rows); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			query string
			want  int
		}{{"", 30}, {"?limit=5", 5}, {"?status=429", 15}, {"?key_id=2", 10}, {"?model=nope", 0}, {"?provider=p&status=200&limit=3", 3}} {
			rec := ta.api(t, "GET", "/api/logs"+tc.query, "")
			if got := decodeJSON[[]map[string]any](t, rec); rec.Code != 200 || len(got) != tc.want {
				t.Fatalf("GET /api/logs%s: %d, %d logs, want %d", tc.query, rec.Code, len(got), tc.want)
			}
		}
		page := decodeJSON[[]map[string]any](t, ta.api(t, "GET", "/api/logs?limit=10", ""))
		older := decodeJSON[[]map[string]any](t, ta.api(t, "GET", fmt.Sprintf("/api/logs?limit=100&before=%v", page[9]["id"]), ""))
		if len(older) != 20 {
			t.Fatalf("page 2 has %d logs, want 20", len(older))
		}
		wantLogFields(t, ta, s)
		for _, bad := range []string{"?limit=x", "?before=-1", "?status=0"} {
			if rec := ta.api(t, "GET", "/api/logs"+bad, ""); rec.Code != 400 {
				t.Fatalf("%s: %d", bad, rec.Code)
			}
		}
		if rec := ta.do(t, "GET", "/api/logs", "", nil); rec.Code != 401 {
			t.Fatalf("without credentials: %d", rec.Code)
		}

		if got := decodeJSON[map[string]any](t, ta.api(t, "GET", "/api/settings", "")); got["responses_retention_days"] != 30.0 || got["allow_unpriced_with_budget"] != false {
			t.Fatalf("responses retention while unset: %v, want OpenAI's 30 days", got)
		}
		if rec := ta.api(t, "PUT", "/api/settings", `{"responses_retention_days": 0}`); rec.Code != 200 || !strings.Contains(rec.Body.String(), `"responses_retention_days":0`) {
			t.Fatalf("responses kept for ever: %d %s", rec.Code, rec.Body)
		}
		rec := ta.api(t, "PUT", "/api/settings", `{"log_retention_days": 30}`)
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"log_retention_days":30`) {
			t.Fatalf("PUT settings: %d %s", rec.Code, rec.Body)
		}
		if rec := ta.api(t, "PUT", "/api/settings", `{"log_retention_days": -1}`); rec.Code != 400 {
			t.Fatalf("negative retention: %d", rec.Code)
		}
		if v, _, _ := s.GetSetting(ctx, models.SettingLogRetentionDays); v != "30" {
			t.Fatalf("stored retention %q", v)
		}
		rec = ta.api(t, "PUT", "/api/settings", `{"health_check_interval_minutes": 15}`)
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"health_check_interval_minutes":15`) ||
			!strings.Contains(rec.Body.String(), `"log_retention_days":30`) {
			t.Fatalf("PUT the check interval, retention left out: %d %s", rec.Code, rec.Body)
		}
		// A bad field refuses the whole body: the good one is not written either.
		if rec := ta.api(t, "PUT", "/api/settings", `{"log_retention_days": 7, "health_check_interval_minutes": -5}`); rec.Code != 400 ||
			!strings.Contains(rec.Body.String(), "health_check_interval_minutes") {
			t.Fatalf("negative interval: %d %s", rec.Code, rec.Body)
		}
		if got := decodeJSON[map[string]any](t, ta.api(t, "GET", "/api/settings", "")); got["log_retention_days"] != 30.0 || got["health_check_interval_minutes"] != 15.0 {
			t.Fatalf("settings after a refused PUT: %v", got)
		}

		rec = ta.api(t, "POST", "/api/keys", `{"name":"soft","max_budget_usd":2,"soft_budget_usd":1}`)
		if rec.Code != 201 || !strings.Contains(rec.Body.String(), `"soft_budget_usd":1`) {
			t.Fatalf("key with a soft budget: %d %s", rec.Code, rec.Body)
		}
		if rec := ta.api(t, "GET", "/debug/pprof/", ""); rec.Code != 200 {
			t.Fatalf("pprof with the master key: %d", rec.Code)
		}
		if rec := ta.do(t, "GET", "/debug/pprof/", "", nil); rec.Code != 401 {
			t.Fatalf("pprof without credentials: %d", rec.Code)
		}
	})
}

// wantLogFields: a request log answers every column in snake_case, like
// every other answer of the API.
func wantLogFields(t *testing.T, ta *testApp, s *models.Store) {
	t.Helper()
	at := time.Now().UTC().Add(time.Minute).Truncate(time.Second)
	key, user, team, dep, prov := int64(7), int64(8), int64(9), int64(10), int64(11)
	row := models.RequestLog{CreatedAt: at, RequestID: "req-1", KeyID: &key, UserID: &user, TeamID: &team,
		Model: "team-model", DeploymentID: &dep, ProviderID: &prov, ProviderName: "openai-main", UpstreamModel: "gpt-4o",
		Endpoint: "/v1/chat/completions", Stream: true, Status: 502, LatencyMS: 120, TTFBMS: 40, InputTokens: 12,
		OutputTokens: 5, CacheReadTokens: 4, CacheWriteTokens: 3, CacheWrite1hTokens: 1, ReasoningTokens: 2, CostUSD: 0.25,
		CostInputUSD: 0.05, CostCacheReadUSD: 0.01, CostCacheWriteUSD: 0.04, CostOutputUSD: 0.15, PriceSource: "catalog",
		LongContext: true, UsageEstimated: true, Attempts: 2, Fallback: "backup",
		Error: "upstream 502: bad gateway", Trace: models.Trace{{DeploymentID: 10, Provider: "openai-main", UpstreamModel: "gpt-4o",
			Status: 502, StartMS: 1, LatencyMS: 60, Reason: "5xx", Error: "bad gateway", Fallback: "backup"}}}
	if err := s.InsertRequestLogs(context.Background(), []models.RequestLog{row}); err != nil {
		t.Fatal(err)
	}
	got := decodeJSON[[]map[string]any](t, ta.api(t, "GET", "/api/logs?limit=1", ""))[0]
	if id, ok := got["id"].(float64); !ok || id <= 0 {
		t.Errorf("id = %v, want a positive number", got["id"])
	}
	want := map[string]any{"id": got["id"], "created_at": at.Format(time.RFC3339), "request_id": "req-1",
		"key_id": 7.0, "user_id": 8.0, "team_id": 9.0, "model": "team-model", "deployment_id": 10.0, "provider_id": 11.0,
		"provider": "openai-main", "upstream_model": "gpt-4o", "endpoint": "/v1/chat/completions", "stream": true,
		"status": 502.0, "latency_ms": 120.0, "ttfb_ms": 40.0, "input_tokens": 12.0, "output_tokens": 5.0,
		"cache_read_tokens": 4.0, "cache_write_tokens": 3.0, "cache_write_5m_tokens": 2.0, "cache_write_1h_tokens": 1.0,
		"reasoning_tokens": 2.0, "cost_usd": 0.25, "cost_breakdown": map[string]any{"input": 0.05, "cache_read": 0.01,
			"cache_write": 0.04, "output": 0.15}, "price_source": "catalog", "long_context": true,
		"usage_estimated": true, "attempts": 2.0, "fallback": "backup",
		"error": "upstream 502: bad gateway", "trace": []any{map[string]any{"deployment_id": 10.0, "provider": "openai-main",
			"upstream_model": "gpt-4o", "status": 502.0, "start_ms": 1.0, "latency_ms": 60.0, "reason": "5xx", "error": "bad gateway",
			"fallback": "backup"}}}
	if c, ok := got["created_at"].(string); ok {
		if ct, err := time.Parse(time.RFC3339Nano, c); err == nil && ct.Equal(at) {
			got["created_at"] = at.Format(time.RFC3339) // however many zeros the database keeps
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("GET /api/logs row:\n got %v\nwant %v", got, want)
	}
	// A cost that is unknown (a token had no price) is null, not 0.
	row.ID, row.CreatedAt, row.PriceSource, row.CostUSD = 0, at.Add(time.Second), models.PriceSourceNone, 0.01
	if err := s.InsertRequestLogs(context.Background(), []models.RequestLog{row}); err != nil {
		t.Fatal(err)
	}
	got = decodeJSON[[]map[string]any](t, ta.api(t, "GET", "/api/logs?limit=1", ""))[0]
	if v, ok := got["cost_usd"]; !ok || v != nil || got["price_source"] != "none" {
		t.Errorf("unknown cost: cost_usd %v, price_source %v; want null and none", got["cost_usd"], got["price_source"])
	}
}
