package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gateway/models/dbtest"
	"gateway/proxy/cluster/redistest"
)

// Replicas: several gateways on one PostgreSQL and one Redis, as behind a
// load balancer. Each test's gateways share a scratch database, so their
// state in Redis is under a namespace of their own.

type replicaSet struct {
	t     *testing.T
	dsn   string
	redis *redistest.Server
	cfgs  []Config
	gws   []*Gateway
}

func startReplicas(t *testing.T, n int) *replicaSet {
	t.Helper()
	rs := &replicaSet{t: t, dsn: dbtest.PostgresDSN(t), redis: redistest.Start(t)}
	for range n {
		cfg := testConfig(rs.dsn, t.TempDir())
		cfg.Secret, cfg.RedisURL, cfg.LogLevel = "shared-secret", rs.redis.URL(), "warn"
		g, _ := startGateway(t, cfg)
		rs.cfgs, rs.gws = append(rs.cfgs, cfg), append(rs.gws, g)
	}
	return rs
}

// restart stops replica i and starts it again on its data dir.
func (rs *replicaSet) restart(i int) {
	rs.t.Helper()
	if err := rs.gws[i].Shutdown(context.Background()); err != nil {
		rs.t.Fatal(err)
	}
	rs.gws[i], _ = startGateway(rs.t, rs.cfgs[i])
}

// call sends one chat request and returns the status, the cost the gateway
// told, the provider that answered and the body.
func call(t *testing.T, g *Gateway, key, model string) (int, float64, string, string) {
	t.Helper()
	body := fmt.Sprintf(`{"model":%q,"max_tokens":10,"messages":[{"role":"user","content":"say hello"}]}`, model)
	req, _ := http.NewRequest("POST", "http://"+g.ProxyAddr()+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0, 0, "", ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	cost, _ := strconv.ParseFloat(resp.Header.Get("X-Gateway-Cost-Usd"), 64)
	return resp.StatusCode, cost, resp.Header.Get("X-Gateway-Provider"), string(b)
}

// slowOpenAI answers like fakeOpenAI after a pause, so that requests overlap.
func slowOpenAI(t *testing.T, pause time.Duration) string {
	f := newFakeOpenAI(t)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(pause)
		f.serve(w, r)
	}))
	t.Cleanup(slow.Close)
	return slow.URL
}

// TestRedisBudgetOverThreeReplicas: a key's budget over three replicas
// under 60 concurrent requests at a time: together they spend at most the
// budget (each on its own would spend it three times over), and the stored
// spend is the sum of the answered costs.
func TestRedisBudgetOverThreeReplicas(t *testing.T) {
	rs := startReplicas(t, 3)
	key := setupPool(t, rs.gws[0], slowOpenAI(t, 20*time.Millisecond))
	keyID := int64(keyNamed(t, rs.gws[0], "e2e")["id"].(float64))
	const budget = 0.002 // about 20 answers of $0.0000975
	mustAPI(t, rs.gws[0], "PATCH", fmt.Sprintf("/api/keys/%d", keyID), map[string]any{"max_budget_usd": budget, "budget_duration": "30d"}, http.StatusOK)
	time.Sleep(200 * time.Millisecond) // the others reload on the change notice

	var mu sync.Mutex
	acked := map[string]float64{}
	var spent float64
	refusals := 0
	for wave := 0; wave < 10; wave++ {
		var wg sync.WaitGroup
		admitted := 0
		for i := range 60 {
			wg.Go(func() {
				status, cost, _, body := call(t, rs.gws[i%3], key, "team-model")
				mu.Lock()
				defer mu.Unlock()
				switch {
				case status == http.StatusOK:
					admitted++
					spent += cost
					acked[fmt.Sprint(wave, "-", i)] = cost
				case status == http.StatusTooManyRequests && strings.Contains(body, "budget exceeded"):
					refusals++
				default:
					t.Errorf("status %d: %s", status, body)
				}
			})
		}
		wg.Wait()
		if admitted == 0 {
			break
		}
	}
	t.Logf("three replicas answered %d requests for $%.7f of a $%.4f budget, refused %d", len(acked), spent, budget, refusals)
	if spent > budget+1e-9 {
		t.Fatalf("spent $%.7f over three replicas, more than the budget of $%.4f", spent, budget)
	}
	if spent < budget-0.0004 {
		t.Errorf("spent only $%.7f of $%.4f: the replicas stopped early", spent, budget)
	}
	waitRows(t, rs.dsn, keyID, len(acked))
	checkSpend(t, rs.dsn, keyID, spent)
	// Every replica answers the same spend: the key's and the report's, the
	// sum of its rows.
	for i, g := range rs.gws {
		k := mustAPI(t, g, "GET", fmt.Sprintf("/api/keys/%d", keyID), nil, http.StatusOK)
		_, b := api(t, g, "GET", "/api/spend?group_by=key", nil)
		var rows []struct {
			Group   string  `json:"group"`
			CostUSD float64 `json:"cost_usd"`
		}
		if err := json.Unmarshal(b, &rows); err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 || rows[0].Group != fmt.Sprint(keyID) || !closeTo(rows[0].CostUSD, spent) || !closeTo(k["spend_usd"].(float64), spent) {
			t.Errorf("replica %d: key spend_usd %v, spend report %s; want $%v", i, k["spend_usd"], b, spent)
		}
	}
	// Every replica shows the same statistics: those of all three (each
	// adds its own to Redis's every 250 ms).
	var seen []float64
	sameStats := func() bool {
		seen = seen[:0]
		for _, g := range rs.gws {
			seen = append(seen, statsRequests(t, g))
		}
		return seen[0] == float64(len(acked)) && seen[1] == seen[0] && seen[2] == seen[0]
	}
	for deadline := time.Now().Add(5 * time.Second); !sameStats(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("requests in /api/stats on each replica: %v, want %d on every one", seen, len(acked))
		}
	}
}

// checkSpend compares the key's stored spend with the costs answered.
func checkSpend(t *testing.T, dsn string, keyID int64, answered float64) {
	t.Helper()
	s := dbtest.MustOpenStore(t, dsn, t.TempDir())
	k, err := s.GetKey(context.Background(), keyID)
	if err != nil {
		t.Fatal(err)
	}
	if !closeTo(k.SpendUSD, answered) {
		t.Errorf("stored spend $%v, answered costs $%v: want equal", k.SpendUSD, answered)
	}
}

// statsRequests is the number of requests /api/stats counts in all.
func statsRequests(t *testing.T, g *Gateway) float64 {
	t.Helper()
	status, b := api(t, g, "GET", "/api/stats", nil)
	var st struct {
		Deployments []struct {
			Requests float64 `json:"requests"`
		} `json:"deployments"`
	}
	if err := json.Unmarshal(b, &st); status != http.StatusOK || err != nil {
		t.Fatalf("/api/stats: %d %s", status, b)
	}
	var n float64
	for _, d := range st.Deployments {
		n += d.Requests
	}
	return n
}

// TestRedisRateLimitOverTwoReplicas: rpm_limit 30 admits 30 requests a
// minute over two replicas, not 30 on each.
func TestRedisRateLimitOverTwoReplicas(t *testing.T) {
	rs := startReplicas(t, 2)
	setupPool(t, rs.gws[0], newFakeOpenAI(t).URL)
	k := mustAPI(t, rs.gws[0], "POST", "/api/keys", map[string]any{"name": "limited", "rpm_limit": 30}, http.StatusCreated)
	key := k["key"].(string)
	waitServed(t, rs.gws[1], key)
	var ok, limited atomic.Int64
	var wg sync.WaitGroup
	for i := range 80 {
		wg.Go(func() {
			switch status, _, _, body := call(t, rs.gws[i%2], key, "team-model"); {
			case status == http.StatusOK:
				ok.Add(1)
			case status == http.StatusTooManyRequests && strings.Contains(body, "30 requests per minute"):
				limited.Add(1)
			default:
				t.Errorf("status %d: %s", status, body)
			}
		})
	}
	wg.Wait()
	// waitServed made one request on replica 1.
	if ok.Load() != 29 || limited.Load() != 51 {
		t.Fatalf("admitted %d, limited %d of 80 after one; want 29 and 51", ok.Load(), limited.Load())
	}
}

// waitServed waits until g serves key (it has heard of the key).
func waitServed(t *testing.T, g *Gateway, key string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if status, _, _, _ := call(t, g, key, "team-model"); status == http.StatusOK {
			return
		}
	}
	t.Fatal("the replica never served the key")
}

// quotaPool is a pool of two members: "spent", whose provider answers 429
// with retry-after 309788 (3.6 days: a monthly quota gone) and is always
// picked while it is a candidate, and "reserve" at weight 0.
type quotaPool struct {
	spentCalls atomic.Int64
	spentID    int64
	reserveID  int64
	key        string
}

func setupQuotaPool(t *testing.T, g *Gateway) *quotaPool {
	t.Helper()
	q := &quotaPool{}
	spent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q.spentCalls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "309788")
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `{"error":{"message":"monthly quota exhausted","type":"rate_limit_error","code":"rate_limit_exceeded"}}`)
	}))
	t.Cleanup(spent.Close)
	reserve := newFakeOpenAI(t)
	pSpent := mustAPI(t, g, "POST", "/api/providers", map[string]any{"name": "spent", "api_type": "openai", "base_url": spent.URL + "/v1", "api_key": testProviderKey}, http.StatusCreated)
	pReserve := mustAPI(t, g, "POST", "/api/providers", map[string]any{"name": "reserve", "api_type": "openai", "base_url": reserve.URL + "/v1", "api_key": testProviderKey}, http.StatusCreated)
	m1 := mustAPI(t, g, "POST", "/api/models", map[string]any{"public_name": "pool", "provider_id": pSpent["id"], "upstream_model": "a", "weight": 1}, http.StatusCreated)
	m2 := mustAPI(t, g, "POST", "/api/models", map[string]any{"public_name": "pool", "provider_id": pReserve["id"], "upstream_model": "b", "weight": 0}, http.StatusCreated)
	q.spentID, q.reserveID = int64(m1["id"].(float64)), int64(m2["id"].(float64))
	q.key = mustAPI(t, g, "POST", "/api/keys", map[string]any{"name": "quota"}, http.StatusCreated)["key"].(string)
	return q
}

// memberStatus is one member in GET /api/pools/{name}/status.
type memberStatus struct {
	ID            int64      `json:"id"`
	Provider      string     `json:"provider"`
	CoolingDown   bool       `json:"cooling_down"`
	CooldownUntil *time.Time `json:"cooldown_until"`
	Share         float64    `json:"share"`
	PlannedShare  float64    `json:"planned_share"`
	Priority      int        `json:"priority"`
	InFlight      int64      `json:"in_flight"`
}

func poolMembers(t *testing.T, g *Gateway, name string) map[int64]memberStatus {
	t.Helper()
	status, b := api(t, g, "GET", "/api/pools/"+url.PathEscape(name)+"/status", nil)
	var st struct {
		Members []memberStatus `json:"members"`
	}
	if err := json.Unmarshal(b, &st); status != http.StatusOK || err != nil {
		t.Fatalf("pool status: %d %s", status, b)
	}
	out := map[int64]memberStatus{}
	for _, m := range st.Members {
		out[m.ID] = m
	}
	return out
}

// TestRedisCooldownReachesEveryReplica: a provider that said "come back in
// 3.6 days" on one replica is skipped by the other within 100 ms, without a
// request of its own, and still after that replica restarts; an admin ends
// the cooldown on one, and both send to it again.
func TestRedisCooldownReachesEveryReplica(t *testing.T) {
	rs := startReplicas(t, 2)
	q := setupQuotaPool(t, rs.gws[0])
	waitPool := func(g *Gateway) {
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if _, ok := poolMembers(t, g, "pool")[q.reserveID]; ok {
				return
			}
		}
		t.Fatal("the replica never served the pool")
	}
	waitPool(rs.gws[1])
	status, _, provider, body := call(t, rs.gws[0], q.key, "pool")
	answered := time.Now()
	if status != http.StatusOK || provider != "reserve" || q.spentCalls.Load() != 1 {
		t.Fatalf("first request: %d from %q after %d calls to the spent provider: %s", status, provider, q.spentCalls.Load(), body)
	}
	var took time.Duration
	for time.Since(answered) < 5*time.Second {
		if poolMembers(t, rs.gws[1], "pool")[q.spentID].CoolingDown {
			took = time.Since(answered)
			break
		}
		time.Sleep(time.Millisecond)
	}
	t.Logf("the other replica showed the cooldown %s after the answer", took)
	time.Sleep(max(100*time.Millisecond-time.Since(answered), 0))
	for range 5 {
		if status, _, provider, body := call(t, rs.gws[1], q.key, "pool"); status != http.StatusOK || provider != "reserve" {
			t.Fatalf("on the other replica: %d from %q: %s", status, provider, body)
		}
	}
	if n := q.spentCalls.Load(); n != 1 {
		t.Fatalf("the spent provider was called %d times, want once: the other replica did not skip it", n)
	}
	m := poolMembers(t, rs.gws[1], "pool")[q.spentID]
	if m.CooldownUntil == nil || m.CooldownUntil.Sub(answered) < 309787*time.Second {
		t.Fatalf("cooldown on the other replica until %v, want 309788 s from the answer", m.CooldownUntil)
	}

	rs.restart(1)
	if m := poolMembers(t, rs.gws[1], "pool")[q.spentID]; !m.CoolingDown || m.Share != 0 {
		t.Fatalf("after a restart the replica shows %+v, want the member still cooling down", m)
	}
	if status, _, provider, _ := call(t, rs.gws[1], q.key, "pool"); status != http.StatusOK || provider != "reserve" || q.spentCalls.Load() != 1 {
		t.Fatalf("after a restart: %d from %q, %d calls to the spent provider; want the reserve and no new call", status, provider, q.spentCalls.Load())
	}

	mustAPI(t, rs.gws[1], "DELETE", fmt.Sprintf("/api/pools/pool/cooldowns/%d", q.spentID), nil, http.StatusNoContent)
	for deadline := time.Now().Add(5 * time.Second); poolMembers(t, rs.gws[0], "pool")[q.spentID].CoolingDown; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first replica never heard that the cooldown ended")
		}
	}
	call(t, rs.gws[0], q.key, "pool")
	if n := q.spentCalls.Load(); n != 2 {
		t.Fatalf("after the cooldown ended the spent provider was called %d times in all, want 2", n)
	}
	mustAPI(t, rs.gws[0], "DELETE", "/api/pools/pool/cooldowns/999999", nil, http.StatusNotFound)
}

// TestRedisStickyPinReachesEveryReplica: a pin made on one replica's API is
// honoured and listed by the other; clearing it on the other ends it on both.
func TestRedisStickyPinReachesEveryReplica(t *testing.T) {
	rs := startReplicas(t, 2)
	up := newFakeOpenAI(t)
	g0 := rs.gws[0]
	p1 := mustAPI(t, g0, "POST", "/api/providers", map[string]any{"name": "first", "api_type": "openai", "base_url": up.URL + "/v1", "api_key": testProviderKey}, http.StatusCreated)
	p2 := mustAPI(t, g0, "POST", "/api/providers", map[string]any{"name": "second", "api_type": "openai", "base_url": up.URL + "/v1", "api_key": testProviderKey}, http.StatusCreated)
	mustAPI(t, g0, "POST", "/api/models", map[string]any{"public_name": "team-model", "provider_id": p1["id"], "upstream_model": "a", "weight": 1}, http.StatusCreated)
	m2 := mustAPI(t, g0, "POST", "/api/models", map[string]any{"public_name": "team-model", "provider_id": p2["id"], "upstream_model": "b", "weight": 0}, http.StatusCreated)
	key := mustAPI(t, g0, "POST", "/api/keys", map[string]any{"name": "sticky"}, http.StatusCreated)["key"].(string)
	waitServed(t, rs.gws[1], key)

	mustAPI(t, g0, "POST", "/api/sticky", map[string]any{"model_name": "team-model", "deployment_id": m2["id"], "ttl_ms": 3600000}, http.StatusCreated)
	var provider string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && provider != "second"; time.Sleep(5 * time.Millisecond) {
		_, _, provider, _ = call(t, rs.gws[1], key, "team-model")
	}
	for range 10 {
		if _, _, provider, _ := call(t, rs.gws[1], key, "team-model"); provider != "second" {
			t.Fatalf("the other replica sent a pinned pool's request to %q, want the pinned member", provider)
		}
	}
	listed := mustAPI(t, rs.gws[1], "GET", "/api/sticky", nil, http.StatusOK)["bindings"].([]any)
	if len(listed) != 1 || listed[0].(map[string]any)["manual"] != true {
		t.Fatalf("the other replica lists %v, want the one pin", listed)
	}
	mustAPI(t, rs.gws[1], "DELETE", "/api/sticky?model_name=team-model", nil, http.StatusOK)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if len(mustAPI(t, g0, "GET", "/api/sticky", nil, http.StatusOK)["bindings"].([]any)) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first replica kept the pin cleared on the other")
		}
	}
	if _, _, provider, _ := call(t, g0, key, "team-model"); provider != "first" {
		t.Fatalf("after the pin was cleared: %q, want the weighted member", provider)
	}
}

// TestRedisStoppedUnderLoad: Redis stopped while two replicas serve: every
// request still succeeds, each says it is degraded (readiness, metrics), a
// cooldown set meanwhile reaches the other replica once Redis is back.
func TestRedisStoppedUnderLoad(t *testing.T) {
	rs := startReplicas(t, 2)
	key := setupPool(t, rs.gws[0], newFakeOpenAI(t).URL)
	q := setupQuotaPool(t, rs.gws[0])
	waitServed(t, rs.gws[1], key)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var served, failed atomic.Int64
	for i := range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				case <-time.After(5 * time.Millisecond):
				}
				if status, _, _, body := call(t, rs.gws[i], key, "team-model"); status == http.StatusOK {
					served.Add(1)
				} else {
					failed.Add(1)
					t.Errorf("replica %d: %d %s", i, status, body)
				}
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	rs.redis.Stop()
	for _, g := range rs.gws {
		waitFor(t, "the replica to see Redis gone", func() bool { return metricValue(t, g, "gateway_redis_up") == 0 })
		if r := readiness(t, g); r != `{"status":"degraded","database":"ok","redis":"unreachable"}` {
			t.Errorf("readiness with Redis down: %s", r)
		}
	}
	// Meanwhile replica 0 is told to come back in 3.6 days by a provider.
	if status, _, provider, _ := call(t, rs.gws[0], q.key, "pool"); status != http.StatusOK || provider != "reserve" {
		t.Fatalf("with Redis down: %d from %q", status, provider)
	}
	// An admin's change to the runtime state cannot reach the other
	// replica: it is refused, and nothing changes here either.
	down := mustAPI(t, rs.gws[0], "POST", "/api/sticky", map[string]any{"model_name": "pool", "deployment_id": q.reserveID}, http.StatusServiceUnavailable)
	if msg := fmt.Sprint(down["error"]); !strings.Contains(msg, "redis is unreachable: nothing was changed") {
		t.Errorf("pin with Redis down: %v", down)
	}
	if b := mustAPI(t, rs.gws[0], "GET", "/api/sticky", nil, http.StatusOK)["bindings"].([]any); len(b) != 0 {
		t.Errorf("a refused pin is listed: %v", b)
	}
	mustAPI(t, rs.gws[0], "DELETE", fmt.Sprintf("/api/pools/pool/cooldowns/%d", q.spentID), nil, http.StatusServiceUnavailable)
	if !poolMembers(t, rs.gws[0], "pool")[q.spentID].CoolingDown {
		t.Error("a refused end of a cooldown ended it on this replica")
	}
	mustAPI(t, rs.gws[0], "DELETE", "/api/sticky", nil, http.StatusServiceUnavailable)
	time.Sleep(500 * time.Millisecond)
	rs.redis.Restart()
	for _, g := range rs.gws {
		waitFor(t, "the replica to see Redis back", func() bool { return metricValue(t, g, "gateway_redis_up") == 1 })
		if r := readiness(t, g); r != `{"status":"ready","database":"ok","redis":"ok"}` {
			t.Errorf("readiness with Redis back: %s", r)
		}
	}
	waitFor(t, "the cooldown set while Redis was down to reach the other replica", func() bool {
		return poolMembers(t, rs.gws[1], "pool")[q.spentID].CoolingDown
	})
	time.Sleep(300 * time.Millisecond)
	close(stop)
	wg.Wait()
	t.Logf("%d requests served through a Redis outage, %d failed", served.Load(), failed.Load())
	if served.Load() < 50 {
		t.Errorf("only %d requests were served", served.Load())
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited 10 s for %s", what)
		}
	}
}

func readiness(t *testing.T, g *Gateway) string {
	t.Helper()
	resp, err := http.Get("http://" + g.ProxyAddr() + "/health/readiness")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
