package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openai/openai-go/v3/option"

	"gateway/models/dbtest"
)

// scriptedUpstream answers every chat completion with one status, counting calls.
func scriptedUpstream(t *testing.T, status int, retryAfter string, delay time.Duration) (*httptest.Server, *atomic.Int64) {
	var calls atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		// Read the body: only then does the server notice a caller that left.
		io.Copy(io.Discard, r.Body)
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"message":"scripted %d","type":"rate_limit_error","param":null,"code":null}}`, status)
	}))
	t.Cleanup(s.Close)
	return s, &calls
}

func addProvider(t *testing.T, g *Gateway, name, url string) any {
	t.Helper()
	p := mustAPI(t, g, "POST", "/api/providers", map[string]any{
		"name": name, "api_type": "openai", "base_url": url + "/v1", "api_key": testProviderKey,
	}, http.StatusCreated)
	return p["id"]
}

// TestRoutingThroughTheRunningGateway drives several real upstreams through
// the whole gateway: a 429 with a three-day retry-after sets its member aside
// and the reserve takes over, the pool status shows it, a member that times
// out sends the request to its fallback, and the statistics count it all.
func TestRoutingThroughTheRunningGateway(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dsn, dataDir string) {
		g, _ := startGateway(t, testConfig(dsn, dataDir))
		limited, limitedCalls := scriptedUpstream(t, 429, "309788", 0)
		slow, _ := scriptedUpstream(t, 200, "", 10*time.Second)
		healthy := newFakeOpenAI(t)
		for name, url := range map[string]string{"limited": limited.URL, "slow": slow.URL, "healthy": healthy.URL} {
			id := addProvider(t, g, name, url)
			weight := 0.0
			if name == "limited" {
				weight = 1
			}
			mustAPI(t, g, "POST", "/api/models", map[string]any{"public_name": "team", "provider_id": id,
				"upstream_model": name + "-model", "weight": weight, "enabled": name != "slow"}, http.StatusCreated)
			if name == "slow" {
				mustAPI(t, g, "POST", "/api/models", map[string]any{"public_name": "slow-model", "provider_id": id,
					"upstream_model": "slow-model", "timeout_seconds": 1, "cooldown_seconds": 0}, http.StatusCreated)
			}
		}
		mustAPI(t, g, "PUT", "/api/pools/slow-model", map[string]any{"num_retries": 0}, http.StatusOK)
		mustAPI(t, g, "POST", "/api/fallbacks", map[string]any{"public_name": "slow-model", "kind": "general", "targets": []string{"team"}}, http.StatusCreated)
		key := mustAPI(t, g, "POST", "/api/keys", map[string]any{"name": "routing"}, http.StatusCreated)["key"].(string)
		client := sdk(g, key)
		ctx := context.Background()

		var resp *http.Response
		p := chatParams()
		p.Model = "team"
		if _, err := client.Chat.Completions.New(ctx, p, option.WithResponseInto(&resp)); err != nil {
			t.Fatal(err)
		}
		if resp.Header.Get("X-Gateway-Provider") != "healthy" || resp.Header.Get("X-Gateway-Attempts") != "2" {
			t.Fatalf("served by %s after %s attempts, want healthy after 2", resp.Header.Get("X-Gateway-Provider"), resp.Header.Get("X-Gateway-Attempts"))
		}
		status := poolStatus(t, g, "team")
		lim, rest := status["limited-model"], status["healthy-model"]
		until, _ := time.Parse(time.RFC3339, lim.CooldownUntil)
		if !lim.CoolingDown || time.Until(until) < 309000*time.Second || lim.Share != 0 || lim.PlannedShare != 1 || rest.Share != 1 {
			t.Fatalf("pool status: limited %+v, healthy %+v", lim, rest)
		}
		if s := status["slow-model"]; s.Enabled || s.Share != 0 {
			t.Fatalf("disabled member: %+v", s)
		}
		for range 10 {
			if _, err := client.Chat.Completions.New(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		if n := limitedCalls.Load(); n != 1 {
			t.Fatalf("the limited upstream was called %d times, want 1: its retry-after was not honoured", n)
		}

		p.Model = "slow-model"
		start := time.Now()
		if _, err := client.Chat.Completions.New(ctx, p, option.WithResponseInto(&resp)); err != nil {
			t.Fatal(err)
		}
		if resp.Header.Get("X-Gateway-Fallback") != "team" || time.Since(start) > 5*time.Second {
			t.Fatalf("fallback %q after %s", resp.Header.Get("X-Gateway-Fallback"), time.Since(start))
		}

		var stats struct {
			Deployments []struct {
				Provider  string  `json:"provider"`
				Requests  int64   `json:"requests"`
				Successes int64   `json:"successes"`
				Rate      float64 `json:"success_rate"`
				LastError string  `json:"last_error"`
			} `json:"deployments"`
		}
		_, body := api(t, g, "GET", "/api/stats", nil)
		if err := json.Unmarshal(body, &stats); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, d := range stats.Deployments {
			got[d.Provider] += fmt.Sprintf("%d/%d ", d.Successes, d.Requests)
		}
		if got["limited"] != "0/1 " || got["healthy"] != "12/12 " || got["slow"] != "0/1 " {
			t.Fatalf("stats (successes/requests by provider) %v", got)
		}
	})
}

type memberView struct {
	Enabled       bool    `json:"enabled"`
	Share         float64 `json:"share"`
	PlannedShare  float64 `json:"planned_share"`
	CoolingDown   bool    `json:"cooling_down"`
	CooldownUntil string  `json:"cooldown_until"`
	UpstreamModel string  `json:"upstream_model"`
}

func poolStatus(t *testing.T, g *Gateway, name string) map[string]memberView {
	t.Helper()
	status, body := api(t, g, "GET", "/api/pools/"+name+"/status", nil)
	var v struct {
		Members []memberView `json:"members"`
	}
	if err := json.Unmarshal(body, &v); status != 200 || err != nil {
		t.Fatalf("pool status: %d %s", status, body)
	}
	out := map[string]memberView{}
	for _, m := range v.Members {
		out[m.UpstreamModel] = m
	}
	return out
}
