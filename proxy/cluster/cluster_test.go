package cluster_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"gateway/proxy/cluster"
	"gateway/proxy/cluster/redistest"
)

// mirror records what a replica was told, as a proxy's memory would hold it.
type mirror struct {
	mu        sync.Mutex
	cooldowns map[int64]cluster.Cooldown
	bindings  map[string]cluster.Binding
	replaced  int
}

func newMirror() *mirror {
	return &mirror{cooldowns: map[int64]cluster.Cooldown{}, bindings: map[string]cluster.Binding{}}
}

func (m *mirror) CoolDown(c cluster.Cooldown) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if cur, ok := m.cooldowns[c.DeploymentID]; !ok || c.Until.After(cur.Until) {
		m.cooldowns[c.DeploymentID] = c
	}
}

func (m *mirror) EndCooldown(id int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.cooldowns, id)
}

func (m *mirror) Bind(b cluster.Binding) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.bindings[b.Name] = b
}

func (m *mirror) Unbind(name string, id int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch b, ok := m.bindings[name]; {
	case name == "":
		m.bindings = map[string]cluster.Binding{}
	case ok && (id == 0 || b.DeploymentID == id):
		delete(m.bindings, name)
	}
}

func (m *mirror) LocalCooldowns() []cluster.Cooldown {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []cluster.Cooldown
	for _, c := range m.cooldowns {
		out = append(out, c)
	}
	return out
}

func (m *mirror) Replace(cs []cluster.Cooldown, bs []cluster.Binding) {
	m.mu.Lock()
	m.replaced++
	m.cooldowns = map[int64]cluster.Cooldown{}
	m.bindings = map[string]cluster.Binding{}
	m.mu.Unlock()
	for _, c := range cs {
		m.CoolDown(c)
	}
	for _, b := range bs {
		m.Bind(b)
	}
}

func (m *mirror) cooldown(id int64) (cluster.Cooldown, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.cooldowns[id]
	return c, ok
}

func (m *mirror) binding(name string) (cluster.Binding, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.bindings[name]
	return b, ok
}

// replica is one Cluster with its mirror.
type replica struct {
	*cluster.Cluster
	m *mirror
}

func startReplica(t *testing.T, url, ns string) replica {
	t.Helper()
	return startMirror(t, url, ns, newMirror())
}

// startMirror starts a replica whose memory already holds m.
func startMirror(t *testing.T, url, ns string, m *mirror) replica {
	t.Helper()
	c, err := cluster.New(cluster.Options{URL: url, Namespace: ns, Mirror: m, PingInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return replica{c, m}
}

// eventually polls cond for up to 5 s and returns how long it took.
func eventually(t *testing.T, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for time.Since(start) < 5*time.Second {
		if cond() {
			return time.Since(start)
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("%s: not within 5 s", what)
	return 0
}

func TestRedisCooldownsReachEveryReplica(t *testing.T) {
	srv := redistest.Start(t)
	a, b := startReplica(t, srv.URL(), "cool"), startReplica(t, srv.URL(), "cool")
	other := startReplica(t, srv.URL(), "another-gateway")
	until := time.Now().Add(309788 * time.Second).Truncate(time.Millisecond)
	a.CoolDown(cluster.Cooldown{DeploymentID: 7, Until: until, Reason: "429 | quota"})
	took := eventually(t, "b hears of the cooldown", func() bool { _, ok := b.m.cooldown(7); return ok })
	t.Logf("cooldown reached the other replica in %s", took)
	if took > 100*time.Millisecond {
		t.Errorf("cooldown took %s to reach the other replica, want within 100 ms", took)
	}
	if c, _ := b.m.cooldown(7); !c.Until.Equal(until) || c.Reason != "429 | quota" {
		t.Errorf("b has %+v, want until %s for %q", c, until, "429 | quota")
	}
	// Shorter: ignored everywhere, so the 3-day one stands.
	a.CoolDown(cluster.Cooldown{DeploymentID: 7, Until: time.Now().Add(time.Minute), Reason: "short"})
	// A replica that starts later loads the live ones first.
	c := startReplica(t, srv.URL(), "cool")
	if got, ok := c.m.cooldown(7); !ok || !got.Until.Equal(until) {
		t.Errorf("a replica started later has %+v (%v), want the cooldown until %s", got, ok, until)
	}
	if _, ok := other.m.cooldown(7); ok {
		t.Error("a gateway of another namespace heard of the cooldown")
	}
	if err := b.EndCooldown(context.Background(), 7); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a hears the cooldown ended", func() bool { _, ok := a.m.cooldown(7); return !ok })
	eventually(t, "c hears the cooldown ended", func() bool { _, ok := c.m.cooldown(7); return !ok })
}

func TestRedisStickyBindingsReachEveryReplica(t *testing.T) {
	srv := redistest.Start(t)
	a, b := startReplica(t, srv.URL(), "sticky"), startReplica(t, srv.URL(), "sticky")
	ctx := context.Background()
	hour := time.Now().Add(time.Hour).Truncate(time.Millisecond)
	if err := a.Pin(ctx, cluster.Binding{Name: "gpt|x", DeploymentID: 3, Until: hour}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "b hears the pin", func() bool { got, ok := b.m.binding("gpt|x"); return ok && got.Manual && got.DeploymentID == 3 })
	// An automatic binding to another member does not replace an admin's pin.
	b.BindAfterSuccess(cluster.Binding{Name: "gpt|x", DeploymentID: 4, Until: hour})
	b.UnbindFailed("gpt|x", 4) // and a failure of a member it does not point at leaves it
	a.BindAfterSuccess(cluster.Binding{Name: "other", DeploymentID: 9, Until: hour})
	eventually(t, "b hears the later binding", func() bool { _, ok := b.m.binding("other"); return ok })
	if got, _ := a.m.binding("gpt|x"); got.DeploymentID != 3 || !got.Manual {
		t.Errorf("after an automatic binding to 4 the pin is %+v, want the pin to 3", got)
	}
	b.UnbindFailed("gpt|x", 3)
	eventually(t, "a hears the pin dropped after its member failed", func() bool { _, ok := a.m.binding("gpt|x"); return !ok })
	n, err := b.Unbind(ctx, "")
	if err != nil || n != 1 {
		t.Fatalf("unbind all: %d, %v; want the one binding left", n, err)
	}
	eventually(t, "a hears every binding dropped", func() bool { _, ok := a.m.binding("other"); return !ok })
}

// TestRedisRateLimitOverReplicas: a limit of 20 a minute admits 20 in total
// over three replicas asking at once.
func TestRedisRateLimitOverReplicas(t *testing.T) {
	srv := redistest.Start(t)
	var reps []replica
	for range 3 {
		reps = append(reps, startReplica(t, srv.URL(), "rpm"))
	}
	keys := reps[0].Keys(cluster.Holder{Kind: "key", ID: 1})
	var admitted sync.WaitGroup
	var mu sync.Mutex
	counts := map[int]int{}
	for i := range 60 {
		admitted.Add(1)
		go func() {
			defer admitted.Done()
			a := &cluster.Admission{RequestID: strconv.Itoa(i), Limits: []cluster.Limit{{Window: keys.Window, RPM: 20}}}
			v, err := reps[i%3].Admit(context.Background(), a)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			counts[v.Refusal]++
			mu.Unlock()
			if v.Refusal == cluster.OverRPM && (v.RetryAfter < time.Second || v.RetryAfter > time.Minute) {
				t.Errorf("retry after %s, want within the minute", v.RetryAfter)
			}
		}()
	}
	admitted.Wait()
	if counts[cluster.Admitted] != 20 || counts[cluster.OverRPM] != 40 {
		t.Fatalf("admitted %d, refused %d; want 20 and 40", counts[cluster.Admitted], counts[cluster.OverRPM])
	}
}

// TestRedisWindowTotals: a limit's window keeps its minute's totals, and an
// admission takes off only the seconds that left the minute since the last
// one. Seeded as an earlier admission would have left it: the second 64 s
// ago has left the minute since, the one 30 s ago has not.
func TestRedisWindowTotals(t *testing.T) {
	srv := redistest.Start(t)
	r := startReplica(t, srv.URL(), "totals")
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	t.Cleanup(func() { rdb.Close() })
	ctx := context.Background()
	win := r.Keys(cluster.Holder{Kind: "key", ID: 7}).Window
	now, err := rdb.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	sec := func(ago int64) string { return strconv.FormatInt(now.Unix()-ago, 10) }
	admit := func(id string, l cluster.Limit) cluster.Verdict {
		t.Helper()
		l.Window = win
		v, err := r.Admit(ctx, &cluster.Admission{RequestID: id, Limits: []cluster.Limit{l}})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	field := func(f string) int64 {
		t.Helper()
		n, err := rdb.HGet(ctx, win, f).Int64()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		return n
	}
	rdb.HSet(ctx, win, "r"+sec(64), 4, "t"+sec(64), 400, "r"+sec(30), 3, "t"+sec(30), 50,
		"R", 7, "T", 450, "b", sec(5))

	if v := admit("a", cluster.Limit{RPM: 4}); v.Refusal != cluster.Admitted {
		t.Fatalf("refused with 3 requests in the minute and room for 4: %+v (the second that left still counted)", v)
	}
	if got := field("R"); got != 4 {
		t.Fatalf("requests in the minute: %d, want 4", got)
	}
	if n, _ := rdb.HExists(ctx, win, "r"+sec(64)).Result(); n {
		t.Error("the second that left the minute is still in the window")
	}
	switch v := admit("b", cluster.Limit{RPM: 4}); {
	case v.Refusal != cluster.OverRPM:
		t.Fatalf("admitted a fifth request at 4 a minute: %+v", v)
	case v.RetryAfter < 25*time.Second || v.RetryAfter > 31*time.Second:
		// The oldest request in the minute came 30 s before the seeding
		// (a slow test may have taken a second or more since).
		t.Errorf("retry after %s, want about 30 s", v.RetryAfter)
	}
	if v := admit("c", cluster.Limit{TPM: 50}); v.Refusal != cluster.OverTPM {
		t.Fatalf("admitted with 50 tokens in the minute at 50 a minute: %+v", v)
	}

	// A settlement counts its tokens in the totals too.
	a := &cluster.Admission{RequestID: "d", Limits: []cluster.Limit{{Window: win}}}
	if _, err := r.Admit(ctx, a); err != nil {
		t.Fatal(err)
	}
	r.Settle(a, 0, 25)
	eventually(t, "the settlement's tokens in the total", func() bool {
		n, _ := rdb.HGet(ctx, win, "T").Int64()
		return n == 75
	})

	// A window without totals, as a settlement leaves one that had lapsed,
	// is counted from its seconds.
	rdb.Del(ctx, win)
	rdb.HSet(ctx, win, "r"+sec(20), 2, "t"+sec(20), 100, "r"+sec(70), 9)
	if v := admit("e", cluster.Limit{RPM: 3}); v.Refusal != cluster.Admitted {
		t.Fatalf("refused with 2 requests in the minute and room for 3: %+v", v)
	}
	if v := admit("f", cluster.Limit{RPM: 3}); v.Refusal != cluster.OverRPM {
		t.Fatalf("admitted a fourth request at 3 a minute: %+v", v)
	}
	if got := field("T"); got != 100 {
		t.Errorf("tokens in the minute: %d, want 100", got)
	}
}

// TestRedisBudgetOverReplicas: holds and settlements over three replicas keep a
// budget: the spend seeded from the database, what requests in flight hold,
// and lapsed holds.
func TestRedisBudgetOverReplicas(t *testing.T) {
	srv := redistest.Start(t)
	var reps []replica
	for range 3 {
		reps = append(reps, startReplica(t, srv.URL(), "budget"))
	}
	keys := reps[0].Keys(cluster.Holder{Kind: "team", ID: 2})
	const cent = int64(10_000_000) // nanodollars
	budget := func(seed int64) cluster.Budget {
		return cluster.Budget{Spent: keys.Spent(0), Held: keys.Held, HeldSum: keys.HeldSum, Hard: 10 * cent, Seed: seed}
	}
	// Spent 3 cents already, says the database: room for 7 more.
	var adm []*cluster.Admission
	for i := range 10 {
		a := &cluster.Admission{RequestID: fmt.Sprint("r", i), Amount: cent, Budgets: []cluster.Budget{budget(3 * cent)}}
		v, err := reps[i%3].Admit(context.Background(), a)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case i < 7 && v.Refusal != cluster.Admitted:
			t.Fatalf("request %d refused: %+v", i, v)
		case i >= 7 && (v.Refusal != cluster.OverBudget || v.Spent[0] != 3*cent || v.Held != 7*cent):
			t.Fatalf("request %d: %+v, want refused with 3 cents spent and 7 held", i, v)
		case i < 7:
			adm = append(adm, a)
		}
	}
	// Each settles for half its hold: room for the rest again.
	for i, a := range adm {
		reps[i%3].Settle(a, cent/2, 10)
	}
	a := &cluster.Admission{RequestID: "after", Amount: 3 * cent, Budgets: []cluster.Budget{budget(0)}}
	eventually(t, "the settled spend frees the held room", func() bool {
		v, err := reps[0].Admit(context.Background(), a)
		if err != nil {
			t.Fatal(err)
		}
		if v.Refusal == cluster.Admitted {
			if want := 3*cent + 7*cent/2; v.Spent[0] != want {
				t.Errorf("spent %d, want %d: the seed plus the settled costs", v.Spent[0], want)
			}
			return true
		}
		return false
	})
	// The floor from the database lifts a spend that fell behind.
	reps[1].Raise(map[string]int64{keys.Spent(0): 9 * cent})
	eventually(t, "the raised spend refuses", func() bool {
		v, err := reps[2].Admit(context.Background(), &cluster.Admission{RequestID: "late", Amount: 1, Budgets: []cluster.Budget{budget(0)}})
		return err == nil && v.Refusal == cluster.OverBudget && v.Spent[0] == 9*cent
	})
}

// TestRedisOutageAndResync: a replica knows at once that Redis is gone,
// refuses to wait for it, and when Redis is back (empty: it kept nothing)
// every replica shares again the cooldowns it knows of, the ones it set
// meanwhile included.
func TestRedisOutageAndResync(t *testing.T) {
	srv := redistest.Start(t)
	a, b := startReplica(t, srv.URL(), "outage"), startReplica(t, srv.URL(), "outage")
	before := time.Now().Add(time.Hour).Truncate(time.Millisecond)
	a.CoolDown(cluster.Cooldown{DeploymentID: 4, Until: before, Reason: "set before the outage"})
	eventually(t, "b hears of the first cooldown", func() bool { _, ok := b.m.cooldown(4); return ok })
	srv.Stop()
	eventually(t, "a sees Redis down", func() bool { return !a.Up() })
	if _, err := a.Admit(context.Background(), &cluster.Admission{RequestID: "x"}); err == nil {
		t.Error("admission with Redis down did not fail")
	}
	until := time.Now().Add(2 * time.Hour).Truncate(time.Millisecond)
	a.CoolDown(cluster.Cooldown{DeploymentID: 5, Until: until, Reason: "set while Redis was down"})
	a.m.CoolDown(cluster.Cooldown{DeploymentID: 5, Until: until, Reason: "set while Redis was down"})
	srv.Restart()
	eventually(t, "a sees Redis back", a.Up)
	eventually(t, "b takes the cooldown a set while Redis was down", func() bool {
		c, ok := b.m.cooldown(5)
		return ok && c.Until.Equal(until)
	})
	c := startReplica(t, srv.URL(), "outage")
	if got, ok := c.m.cooldown(4); !ok || !got.Until.Equal(before) {
		t.Errorf("the cooldown of before the outage, which the restarted Redis lost: a new replica has %+v (%v), want until %s", got, ok, before)
	}
}

// TestRedisPartitionedReplica: a replica cut off from Redis while the
// others carry on misses a cooldown being ended; when its link is back it
// ends it too, and does not bring it back to the others. A cooldown it set
// while cut off reaches them.
func TestRedisPartitionedReplica(t *testing.T) {
	srv := redistest.Start(t)
	link := srv.NewLink(t)
	a, b := startReplica(t, link.URL(), "part"), startReplica(t, srv.URL(), "part")
	hour := time.Now().Add(time.Hour).Truncate(time.Millisecond)
	b.CoolDown(cluster.Cooldown{DeploymentID: 7, Until: hour, Reason: "429"})
	eventually(t, "a hears of the cooldown", func() bool { _, ok := a.m.cooldown(7); return ok })
	link.Cut()
	eventually(t, "a sees Redis down", func() bool { return !a.Up() })
	if err := b.EndCooldown(context.Background(), 7); err != nil {
		t.Fatal(err)
	}
	eventually(t, "b ends it", func() bool { _, ok := b.m.cooldown(7); return !ok })
	a.CoolDown(cluster.Cooldown{DeploymentID: 8, Until: hour, Reason: "set while cut off"})
	a.m.CoolDown(cluster.Cooldown{DeploymentID: 8, Until: hour, Reason: "set while cut off"})
	if _, ok := a.m.cooldown(7); !ok {
		t.Fatal("a heard of the end while cut off: the link was not cut")
	}
	link.Mend()
	eventually(t, "a sees Redis back", a.Up)
	eventually(t, "a ends the cooldown that was ended while it was cut off", func() bool { _, ok := a.m.cooldown(7); return !ok })
	eventually(t, "b takes the cooldown a set while cut off", func() bool { _, ok := b.m.cooldown(8); return ok })
	if _, ok := b.m.cooldown(7); ok {
		t.Error("the ended cooldown came back on b")
	}
	if c := startReplica(t, srv.URL(), "part"); func() bool { _, ok := c.m.cooldown(7); return ok }() {
		t.Error("the ended cooldown is back in Redis")
	}
}

// TestRedisSettleAfterScriptsLost: Redis that forgot its scripts (SCRIPT
// FLUSH, as after a restart) refuses the next pipeline's scripts; the
// settlement is sent again, not dropped, so the hold is released at once.
func TestRedisSettleAfterScriptsLost(t *testing.T) {
	srv := redistest.Start(t)
	a := startReplica(t, srv.URL(), "noscript")
	keys := a.Keys(cluster.Holder{Kind: "key", ID: 3})
	const cent = int64(10_000_000)
	budget := cluster.Budget{Spent: keys.Spent(0), Held: keys.Held, HeldSum: keys.HeldSum, Hard: 2 * cent}
	first := &cluster.Admission{RequestID: "first", Amount: 2 * cent, Budgets: []cluster.Budget{budget}}
	if v, err := a.Admit(context.Background(), first); err != nil || v.Refusal != cluster.Admitted {
		t.Fatalf("first admission: %+v, %v", v, err)
	}
	raw := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer raw.Close()
	if err := raw.ScriptFlush(context.Background()).Err(); err != nil {
		t.Fatalf("SCRIPT FLUSH: %v", err)
	}
	a.Settle(first, cent/2, 10)
	eventually(t, "the settlement releases the hold", func() bool {
		v, err := a.Admit(context.Background(), &cluster.Admission{RequestID: "second", Amount: cent, Budgets: []cluster.Budget{budget}})
		return err == nil && v.Refusal == cluster.Admitted && v.Spent[0] == cent/2
	})
	if n := a.Dropped(); n != 0 {
		t.Errorf("%d writes dropped, want none", n)
	}
}

// TestRedisSlowThenBack: Redis too slow to answer a ping (CLIENT PAUSE)
// is taken for down though no connection broke; a cooldown set meanwhile
// reaches the other replica once Redis answers again, without a new
// subscription to trigger it.
func TestRedisSlowThenBack(t *testing.T) {
	srv := redistest.Start(t)
	start := func() replica {
		m := newMirror()
		c, err := cluster.New(cluster.Options{URL: srv.URL(), Namespace: "slow", Mirror: m,
			PingInterval: 50 * time.Millisecond, CommandTimeout: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(5 * time.Second); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return replica{c, m}
	}
	a, b := start(), start()
	raw := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer raw.Close()
	if err := raw.Do(context.Background(), "CLIENT", "PAUSE", 1500, "ALL").Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a takes Redis for down", func() bool { return !a.Up() })
	a.CoolDown(cluster.Cooldown{DeploymentID: 9, Until: time.Now().Add(time.Hour), Reason: "set while Redis was slow"})
	eventually(t, "a sees Redis back", a.Up)
	eventually(t, "b gets the cooldown set while Redis was taken for down", func() bool { _, ok := b.m.cooldown(9); return ok })
}
