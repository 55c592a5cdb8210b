package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
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

// TestRedisOneRoundTripPerRequest: a request whose key has a shared limit
// and a budget, routed to an entry with a limit of its own, makes one
// round trip to Redis before the upstream: its admission claims the entry
// in the same script (Redis's MONITOR sees every command). A request the
// key's limit refuses leaves the entry's minute untouched, and one for a
// model no pool serves is still refused by the key's limit first.
func TestRedisOneRoundTripPerRequest(t *testing.T) {
	rs := startReplicas(t, 1)
	g := rs.gws[0]
	upstream := newCountingOpenAI(t, nil)
	k := mustAPI(t, g, "POST", "/api/keys", map[string]any{"name": "k", "rpm_limit": 6}, http.StatusCreated)
	mustAPI(t, g, "PATCH", fmt.Sprintf("/api/keys/%v", k["id"]), map[string]any{"max_budget_usd": 100}, http.StatusOK)
	key := k["key"].(string)
	// Priced: a key under a budget is served by priced members only.
	addMember(t, g, "metered", "metered", upstream.URL, map[string]any{"rpm_limit": 100, "input_price": 1, "output_price": 2})
	waitFor(t, "the gateway serves the member", func() bool {
		ps, ok := g.proxy.PoolStatus("metered", func(int64) bool { return false })
		return ok && len(ps.Members) == 1
	})
	// The requests must fall in one clock minute.
	if s := time.Now().Second(); s > 45 {
		time.Sleep(time.Duration(61-s) * time.Second)
	}

	rdb := redis.NewClient(&redis.Options{Addr: rs.redis.Addr()})
	t.Cleanup(func() { rdb.Close() })
	lines := monitor(t, rs.redis.Addr())
	monitorMark(t, rdb, lines, "start")
	statuses := map[int]int{}
	for range 8 {
		status, _, _, body := call(t, g, key, "metered")
		if status != http.StatusOK && !strings.Contains(body, "6 requests per minute") {
			t.Fatalf("status %d: %s", status, body)
		}
		statuses[status]++
	}
	status, _, _, body := call(t, g, key, "no-such-model")
	if status != http.StatusTooManyRequests || !strings.Contains(body, "6 requests per minute") {
		t.Errorf("a model no pool serves, over the key's limit: status %d: %s; want the limit's 429 first", status, body)
	}
	var combined, alone int
	var entryKey string
	for _, l := range monitorMark(t, rdb, lines, "end") {
		f := strings.Split(l, `" "`)
		if len(f) < 4 || !strings.HasSuffix(strings.ToLower(f[0]), `"evalsha`) {
			continue
		}
		// f[1] the script, f[2] how many keys, then the keys.
		n, _ := strconv.Atoi(f[2])
		keys := f[3:min(3+n, len(f))]
		switch last := keys[len(keys)-1]; {
		case strings.Contains(last, ":entry:") && n == 1:
			alone++
		case strings.Contains(last, ":entry:"):
			combined, entryKey = combined+1, last
		}
	}
	if statuses[http.StatusOK] != 6 || statuses[http.StatusTooManyRequests] != 2 || upstream.calls.Load() != 6 {
		t.Fatalf("answers %v, upstream calls %d; want 6 served and 2 refused by the key's 6 rpm", statuses, upstream.calls.Load())
	}
	// Every request's admission went with the entry's claim: 8 on the
	// metered model (2 refused before the claim), none claimed on its own.
	if combined != 8 || alone != 0 {
		t.Errorf("admissions carrying the entry's claim %d, entry claims on their own %d; want 8 and 0", combined, alone)
	}
	if r, err := rdb.HGet(context.Background(), entryKey, "r").Int(); err != nil || r != 6 {
		t.Errorf("the entry's minute %s counts %d requests (%v); want the 6 admitted", entryKey, r, err)
	}
}

// monitor runs MONITOR on a connection of its own (go-redis's Monitor
// loses its connection to the pool's checks) and sends each command Redis
// reports, until the test ends.
func monitor(t *testing.T, addr string) <-chan string {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := conn.Write([]byte("MONITOR\r\n")); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 10000)
	go func() {
		r := bufio.NewReader(conn)
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				return
			}
			select {
			case lines <- strings.TrimRight(strings.TrimPrefix(l, "+"), "\r\n"):
			default: // a test that stopped reading
			}
		}
	}()
	return lines
}

// monitorMark sends ECHO mark until MONITOR's lines show it and returns the
// lines before it.
func monitorMark(t *testing.T, rdb *redis.Client, lines <-chan string, mark string) []string {
	t.Helper()
	var before []string
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	rdb.Echo(context.Background(), mark)
	for {
		select {
		case l := <-lines:
			if strings.Contains(l, `"`+mark+`"`) {
				return before
			}
			before = append(before, l)
		case <-tick.C:
			rdb.Echo(context.Background(), mark) // MONITOR may not have been on yet
		case <-deadline:
			t.Fatalf("MONITOR never showed the mark %q", mark)
		}
	}
}
