package main

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countingOpenAI is a fake OpenAI upstream that counts its requests and
// may hold them until released.
type countingOpenAI struct {
	*fakeOpenAI
	calls atomic.Int64
	hold  chan struct{} // nil: answer at once
}

func newCountingOpenAI(t *testing.T, hold chan struct{}) *countingOpenAI {
	c := &countingOpenAI{fakeOpenAI: &fakeOpenAI{}, hold: hold}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.calls.Add(1)
		if c.hold != nil {
			<-c.hold
		}
		c.serve(w, r)
	}))
	t.Cleanup(c.Close)
	return c
}

// addMember adds a provider on upstream and one model entry of pool on it.
func addMember(t *testing.T, g *Gateway, pool, name, upstream string, fields map[string]any) {
	t.Helper()
	p := mustAPI(t, g, "POST", "/api/providers", map[string]any{"name": name, "api_type": "openai",
		"base_url": upstream + "/v1", "api_key": testProviderKey}, http.StatusCreated)
	body := map[string]any{"public_name": pool, "provider_id": p["id"], "upstream_model": name}
	for k, v := range fields {
		body[k] = v
	}
	mustAPI(t, g, "POST", "/api/models", body, http.StatusCreated)
}

// TestRedisEntryLimitOverTwoReplicas: an entry of 12 rpm behind two
// replicas serves 12 requests of 40 in a minute, not 12 on each; the rest go
// to the pool's tier-1 member.
func TestRedisEntryLimitOverTwoReplicas(t *testing.T) {
	rs := startReplicas(t, 2)
	g := rs.gws[0]
	metered, backup := newCountingOpenAI(t, nil), newCountingOpenAI(t, nil)
	// The key first: replica 1 reads its members before its keys at each
	// reload, so once its memory has both members it has the key too. (The
	// pool status's priority is the database's, not what replica 1 serves:
	// waiting on it, CI once saw 401s from a replica without the key.)
	key := mustAPI(t, g, "POST", "/api/keys", map[string]any{"name": "k"}, http.StatusCreated)["key"].(string)
	addMember(t, g, "metered", "metered", metered.URL, map[string]any{"rpm_limit": 12})
	addMember(t, g, "metered", "backup", backup.URL, map[string]any{"priority": 1})
	waitFor(t, "replica 1 serves both members", func() bool {
		ps, ok := rs.gws[1].proxy.PoolStatus("metered", func(int64) bool { return false })
		return ok && len(ps.Members) == 2
	})
	// The 40 requests must fall in one clock minute.
	if s := time.Now().Second(); s > 50 {
		time.Sleep(time.Duration(61-s) * time.Second)
	}
	metered.calls.Store(0)
	backup.calls.Store(0)
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			if status, _, _, body := call(t, rs.gws[i%2], key, "metered"); status != http.StatusOK {
				t.Errorf("status %d: %s", status, body)
			}
		})
	}
	wg.Wait()
	if metered.calls.Load() != 12 || backup.calls.Load() != 28 {
		t.Fatalf("metered entry served %d, backup %d of 40; want 12 and 28 (12 rpm over both replicas)",
			metered.calls.Load(), backup.calls.Load())
	}
}

// servedMembers is g's pool status, by provider.
func servedMembers(t *testing.T, g *Gateway, pool string) map[string]memberStatus {
	t.Helper()
	out := map[string]memberStatus{}
	for _, m := range poolMembers(t, g, pool) {
		out[m.Provider] = m
	}
	return out
}

// TestRedisLeastBusyOverTwoReplicas: while replica 0 holds three requests
// at one member of a least-busy pool, replica 1 sends its requests to the
// other member.
func TestRedisLeastBusyOverTwoReplicas(t *testing.T) {
	rs := startReplicas(t, 2)
	g := rs.gws[0]
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free) // a request that went astray must not hang the test
	slow, idle := newCountingOpenAI(t, release), newCountingOpenAI(t, nil)
	addMember(t, g, "busy", "slow", slow.URL, map[string]any{"weight": 1})
	mustAPI(t, g, "PUT", "/api/pools/busy", map[string]any{"routing_strategy": "least-busy"}, http.StatusOK)
	key := mustAPI(t, g, "POST", "/api/keys", map[string]any{"name": "k"}, http.StatusCreated)["key"].(string)
	var held sync.WaitGroup
	for range 3 {
		held.Go(func() {
			if status, _, _, body := call(t, g, key, "busy"); status != http.StatusOK {
				t.Errorf("held request: %d %s", status, body)
			}
		})
	}
	waitFor(t, "three requests held at the slow member", func() bool { return slow.calls.Load() == 3 })
	addMember(t, g, "busy", "idle", idle.URL, map[string]any{"weight": 1})
	waitFor(t, "replica 1 serves both and sees replica 0's requests in flight", func() bool {
		ms := servedMembers(t, rs.gws[1], "busy")
		return ms["idle"].PlannedShare > 0 && ms["slow"].InFlight == 3
	})
	for i := range 10 {
		status, _, provider, body := call(t, rs.gws[1], key, "busy")
		if status != http.StatusOK || provider != "idle" {
			t.Fatalf("request %d on replica 1: %d from %q (%s); want the idle member", i, status, provider, body)
		}
	}
	free()
	held.Wait()
	if slow.calls.Load() != 3 {
		t.Errorf("the slow member got %d requests; want the 3 held", slow.calls.Load())
	}
}
