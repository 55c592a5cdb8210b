package proxy

import (
	"fmt"
	"math"
	"net/http/httptest"
	"testing"
	"time"

	"gateway/models"
	"gateway/proxy/catalog"
	"gateway/proxy/pricing"
)

// testPool is a pool of members with the given weights under a strategy,
// each with its own state.
func testPool(st strategy, weights ...float64) *pool {
	p := &pool{Pool: &catalog.Pool{Name: "p"}, settings: poolSettings{strategy: st}}
	for i, w := range weights {
		p.members = append(p.members, &member{id: int64(i + 1), weight: w, state: &memberState{}, cooldown: -1})
	}
	return p
}

// picks routes n requests of estimate tokens through rq.pick at now, each
// settled at once with used tokens, and counts the members picked by id
// (0: no member).
func picks(p *pool, n, estimate int, used int64, now time.Time) map[int64]int {
	rq := &routing{s: &Server{}, x: &exchange{}, current: p.Name, estimate: estimate}
	counts := map[int64]int{}
	for range n {
		m := rq.pick(route{pool: p}, nil, now)
		if m == nil {
			counts[0]++
			continue
		}
		counts[m.id]++
		m.settle(rq.claim, used)
	}
	return counts
}

var t0 = time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)

func TestParseStrategyRoundTrips(t *testing.T) {
	for _, name := range []string{"simple-shuffle", "latency-based", "least-busy", "usage-based", "cost-based"} {
		if got := parseStrategy(name).String(); got != name {
			t.Errorf("parseStrategy(%q) reads back as %q", name, got)
		}
	}
	if parseStrategy("") != strategySimpleShuffle {
		t.Error(`"" is not simple-shuffle`)
	}
}

// TestLatencyBased: unmeasured members are explored first; then the fastest
// serves, and a member within the buffer of it shares; a slow member is
// explored again once its average is stale, and one back from a cooldown is
// measured afresh.
func TestLatencyBased(t *testing.T) {
	p := testPool(strategyLatencyBased, 1, 1, 1)
	a, b, c := p.members[0], p.members[1], p.members[2]
	a.state.observeLatency(t0, 100*time.Millisecond)
	b.state.observeLatency(t0, 400*time.Millisecond)
	if got := picks(p, 200, 0, 0, t0); got[3] != 200 {
		t.Fatalf("member 3 has no sample and is not explored: %v", got)
	}
	c.state.observeLatency(t0, 105*time.Millisecond) // within 10 % of the best
	got := picks(p, 4000, 0, 0, t0)
	if got[2] != 0 || math.Abs(float64(got[1])/4000-0.5) > 0.05 || got[1]+got[3] != 4000 {
		t.Fatalf("want members 1 and 3 sharing about evenly, 2 never: %v", got)
	}
	// The moving average follows: member 3 turns slow.
	for range 10 {
		c.state.observeLatency(t0, 300*time.Millisecond)
	}
	if got := picks(p, 200, 0, 0, t0); got[1] != 200 {
		t.Fatalf("after member 3 slowed to ~300 ms, want member 1 only: %v", got)
	}
	// Member 2's 400 ms are from t0; ten minutes on, with fresh samples of
	// the others, it is explored again.
	later := t0.Add(10 * time.Minute)
	a.state.observeLatency(later, 100*time.Millisecond)
	c.state.observeLatency(later, 300*time.Millisecond)
	if got := picks(p, 50, 0, 0, later); got[2] != 50 {
		t.Fatalf("a stale member is not explored again: %v", got)
	}
	// A cooldown clears the history: back from it, the member is explored.
	a.state.coolDown(later, time.Minute, "test")
	b.state.observeLatency(later, 50*time.Millisecond)
	back := later.Add(2 * time.Minute)
	b.state.observeLatency(back, 50*time.Millisecond)
	c.state.observeLatency(back, 300*time.Millisecond)
	if got := picks(p, 50, 0, 0, back); got[1] != 50 {
		t.Fatalf("a member back from its cooldown is not explored: %v", got)
	}
}

// TestLeastBusy: fewest in flight, counting the other replicas' mirror.
func TestLeastBusy(t *testing.T) {
	p := testPool(strategyLeastBusy, 1, 1, 1)
	p.members[0].state.inflight.Store(3)
	p.members[1].state.inflight.Store(1)
	p.members[2].state.inflight.Store(1)
	got := picks(p, 4000, 0, 0, t0)
	if got[1] != 0 || math.Abs(float64(got[2])/4000-0.5) > 0.05 {
		t.Fatalf("want members 2 and 3 (1 in flight) sharing, 1 (3) never: %v", got)
	}
	p.members[2].state.remoteBusy.Store(5) // busy on another replica
	if got := picks(p, 100, 0, 0, t0); got[2] != 100 {
		t.Fatalf("another replica's in-flight requests are ignored: %v", got)
	}
}

// TestUsageBased: the most headroom under the limits this minute; without
// limits, the fewest tokens used.
func TestUsageBased(t *testing.T) {
	p := testPool(strategyUsageBased, 1, 1)
	a, b := p.members[0], p.members[1]
	a.rpmLimit, b.rpmLimit = 10, 100
	// Each pick takes a request: a's headroom falls ten times as fast, so
	// of 55 requests b takes those that keep its share of headroom larger.
	got := picks(p, 55, 0, 0, t0)
	if got[1] != 5 || got[2] != 50 {
		t.Fatalf("want 5 and 50 requests (headroom kept even), got %v", got)
	}
	// Without limits: the member with fewer tokens this minute.
	q := testPool(strategyUsageBased, 1, 1)
	got = picks(q, 100, 1000, 1000, t0)
	if got[1] != 50 || got[2] != 50 {
		t.Fatalf("without limits, want tokens balanced 50/50: %v", got)
	}
}

// TestCostBased: the cheapest by input + output price; ties by weight.
func TestCostBased(t *testing.T) {
	p := testPool(strategyCostBased, 1, 1, 3)
	setPrices(p.members[0], 3, 15)
	setPrices(p.members[1], 1, 2)
	setPrices(p.members[2], 2, 1)
	got := picks(p, 4000, 0, 0, t0)
	if got[1] != 0 || math.Abs(float64(got[3])/4000-0.75) > 0.03 {
		t.Fatalf("want the two at 3 USD sharing 1:3 by weight, the one at 18 never: %v", got)
	}
	// An unpriced member is not the cheapest: its price is unknown.
	p.members[1].prices = pricing.Prices{}
	if got := picks(p, 1000, 0, 0, t0); got[2] != 0 || got[3] != 1000 {
		t.Fatalf("the unpriced member was picked as the cheapest: %v", got)
	}
	setPrices(p.members[1], 1, 2)
	p.members[2].state.coolDown(t0, time.Minute, "test")
	if got := picks(p, 100, 0, 0, t0); got[2] != 100 {
		t.Fatalf("the cheapest cooling down, want the next cheapest: %v", got)
	}
}

// TestReservesUnderEveryStrategy: a weight-0 member is a reserve whatever
// the strategy, even when it is the fastest, idlest or cheapest.
func TestReservesUnderEveryStrategy(t *testing.T) {
	for st := strategySimpleShuffle; st <= strategyCostBased; st++ {
		p := testPool(st, 0, 5)
		p.members[0].state.observeLatency(t0, time.Millisecond)
		p.members[1].state.observeLatency(t0, time.Second)
		p.members[1].state.inflight.Store(4)
		setPrices(p.members[1], 10, 0)
		if got := picks(p, 100, 0, 0, t0); got[2] != 100 {
			t.Errorf("%s: the weight-0 reserve was picked: %v", st, got)
		}
		p.members[1].state.coolDown(t0, time.Minute, "test")
		if got := picks(p, 10, 0, 0, t0); got[1] != 10 {
			t.Errorf("%s: the reserve does not serve while the weighted member cools down: %v", st, got)
		}
	}
}

// TestTiers: the lowest priority with a candidate serves; a higher tier
// only while every member of the lower ones is cooling down or at its
// limit, and the lower tier takes over again when one is back.
func TestTiers(t *testing.T) {
	p := testPool(strategySimpleShuffle, 1, 1, 5, 1)
	p.members[0].priority, p.members[1].priority = 0, 0
	p.members[2].priority, p.members[3].priority = 1, 2
	got := picks(p, 2000, 0, 0, t0)
	if got[3] != 0 || got[4] != 0 || math.Abs(float64(got[1])/2000-0.5) > 0.05 {
		t.Fatalf("want tier 0 only, its two members even: %v", got)
	}
	p.members[0].state.coolDown(t0, time.Minute, "test")
	if got := picks(p, 100, 0, 0, t0); got[2] != 100 {
		t.Fatalf("with one tier-0 member left, want it only: %v", got)
	}
	p.members[1].rpmLimit = 1 // takes one more this minute, then is at its limit
	got = picks(p, 100, 0, 0, t0)
	if got[2] != 1 || got[3] != 99 || got[4] != 0 {
		t.Fatalf("tier 0 cooling down and at its limit: want tier 1 (after the last place), got %v", got)
	}
	p.members[2].state.coolDown(t0, 2*time.Minute, "test")
	if got := picks(p, 10, 0, 0, t0); got[4] != 10 {
		t.Fatalf("tiers 0 and 1 set aside: want tier 2, got %v", got)
	}
	back := t0.Add(61 * time.Second) // member 1 back; member 2's minute over
	got = picks(p, 2000, 0, 0, back)
	if got[1] == 0 || got[2] != 1 || got[1]+got[2] != 2000 {
		t.Fatalf("tier 0 back: want it only (member 2 one request, its limit), got %v", got)
	}
}

// TestStickyAndTiers: an admin's pin holds in any tier; an automatic binding
// made while the lower tier was away yields when it is back.
func TestStickyAndTiers(t *testing.T) {
	p := testPool(strategySimpleShuffle, 1, 1)
	p.members[1].priority = 1
	s := &Server{}
	rq := &routing{s: s, x: &exchange{}, current: p.Name}
	s.sticky.bindAfterSuccess(p.Name, 2, time.Hour, t0)
	if m := rq.pick(route{pool: p}, nil, t0); m.id != 1 {
		t.Fatalf("an automatic binding to tier 1 beat tier 0: picked %d", m.id)
	}
	s.sticky.pin(p.Name, 2, t0.Add(time.Hour))
	if m := rq.pick(route{pool: p}, nil, t0); m.id != 2 {
		t.Fatalf("an admin's pin to tier 1 did not hold: picked %d", m.id)
	}
}

// TestEntryLimits: at its rpm or tpm limit a member is no candidate until
// the next minute; tokens are reserved from the estimate and settled from
// the usage; the 429 says when the first is back.
func TestEntryLimits(t *testing.T) {
	p := testPool(strategySimpleShuffle, 1)
	m := p.members[0]
	m.rpmLimit, m.tpmLimit = 5, 1000
	// 300 tokens estimated, 100 used: the window counts what was used.
	if got := picks(p, 3, 300, 100, t0); got[1] != 3 {
		t.Fatalf("%v", got)
	}
	if reqs, tokens := m.state.window.usage(t0); reqs != 3 || tokens != 300 {
		t.Fatalf("usage %d requests, %d tokens; want 3, 300", reqs, tokens)
	}
	// A 700-token answer takes it to its token limit.
	if got := picks(p, 1, 300, 700, t0); got[1] != 1 {
		t.Fatalf("%v", got)
	}
	if got := picks(p, 1, 10, 10, t0.Add(30*time.Second)); got[0] != 1 {
		t.Fatalf("at 1000 of 1000 tokens the member is still picked: %v", got)
	}
	if !p.allSetAside(t0) {
		t.Fatal("the pool is not set aside with its only member at its limit")
	}
	rq := &routing{s: &Server{}, x: &exchange{}, current: "p"}
	f := rq.allSetAside(route{pool: p}, t0.Add(45*time.Second))
	if f.err.Status != 429 || f.retryAfter != 15*time.Second || f.err.Code != "all_members_at_limit" {
		t.Fatalf("got %d %s after %v; want 429 all_members_at_limit after 15s", f.err.Status, f.err.Code, f.retryAfter)
	}
	if got := picks(p, 5, 0, 0, t0.Add(time.Minute)); got[1] != 5 {
		t.Fatalf("next minute: want 5 requests (its rpm), got %v", got)
	}
	if got := picks(p, 1, 0, 0, t0.Add(time.Minute)); got[0] != 1 {
		t.Fatalf("a sixth request in a minute of rpm 5 was served: %v", got)
	}
}

// TestLimitedWithCooldownBackIn: a member cooling down until after the
// minute and at its limit in the minute it comes back waits for both.
func TestLimitedWithCooldownBackIn(t *testing.T) {
	p := testPool(strategySimpleShuffle, 1)
	m := p.members[0]
	m.rpmLimit = 1
	picks(p, 1, 0, 0, t0)
	m.state.coolDown(t0, 10*time.Second, "test")
	if d := m.backIn(t0); d != time.Minute {
		t.Fatalf("back in %v; want 1m0s (cooldown 10 s, then the minute's limit)", d)
	}
	m.state.coolDown(t0, 90*time.Second, "test")
	if d := m.backIn(t0); d != 90*time.Second {
		t.Fatalf("back in %v; want 1m30s (its cooldown: the next minute's window is empty)", d)
	}
}

// TestPickDoesNotAllocateUnderAnyStrategy: narrowing happens in place.
func TestPickDoesNotAllocateUnderAnyStrategy(t *testing.T) {
	for st := strategySimpleShuffle; st <= strategyCostBased; st++ {
		p := testPool(st, 1, 1, 1, 0)
		for i, m := range p.members {
			m.state.observeLatency(t0, time.Duration(i+1)*time.Millisecond)
			m.rpmLimit, m.priority = 1<<40, i/3
		}
		rq := &routing{s: &Server{}, x: &exchange{}, current: "p"}
		if n := testing.AllocsPerRun(1000, func() { rq.pick(route{pool: p}, nil, t0) }); n != 0 {
			t.Errorf("%s: pick allocates %.1f times", st, n)
		}
	}
}

// BenchmarkPickStrategy is the whole pick for one attempt under each
// strategy, beside BenchmarkPickFromPool (simple-shuffle without limits).
func BenchmarkPickStrategy(b *testing.B) {
	for st := strategySimpleShuffle; st <= strategyCostBased; st++ {
		for _, limited := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/limits=%v", st, limited), func(b *testing.B) {
				p := testPool(st, 0, 5, 3, 2)
				for i, m := range p.members {
					m.state.observeLatency(t0, time.Duration(10+i)*time.Millisecond)
					setPrices(m, float64(i%2), 0)
					if limited {
						m.rpmLimit, m.tpmLimit = 1<<40, 1<<40
					}
				}
				rq := &routing{s: &Server{}, x: &exchange{}, current: "p", r: httptest.NewRequest("POST", "/", nil)}
				b.ReportAllocs()
				for b.Loop() {
					m := rq.pick(route{pool: p}, nil, t0)
					if m == nil {
						b.Fatal("no pick")
					}
					m.settle(rq.claim, 0)
				}
			})
		}
	}
}

// setPrices gives m an input and an output price of its own.
func setPrices(m *member, in, out float64) {
	m.prices = pricing.Effective(models.PricesOf(in, out), nil, pricing.FamilyOther)
}
