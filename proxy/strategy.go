package proxy

import (
	"math"
	"math/rand/v2"
	"time"

	"gateway/models"
)

// strategy is a pool's routing strategy (design, "Routing strategies, tiers
// and per-entry limits"). Each one only narrows a tier's candidates to those
// it would choose among; simpleShuffle then picks among what is left by the
// seed's weight rules. So a weight-0 reserve stays a reserve under every
// strategy, ties go by weight (uniformly when no weights are set), and the
// pool status page's "share as the strategy sees it" is the shuffle's share
// of the narrowed set.
type strategy uint8

const (
	strategySimpleShuffle strategy = iota
	strategyLatencyBased
	strategyLeastBusy
	strategyUsageBased
	strategyCostBased
)

// parseStrategy reads a pool setting; "" and unknown names (the API refuses
// them) are simple-shuffle.
func parseStrategy(s string) strategy {
	switch s {
	case models.StrategyLatencyBased:
		return strategyLatencyBased
	case models.StrategyLeastBusy:
		return strategyLeastBusy
	case models.StrategyUsageBased:
		return strategyUsageBased
	case models.StrategyCostBased:
		return strategyCostBased
	}
	return strategySimpleShuffle
}

func (st strategy) String() string {
	return [...]string{models.StrategySimpleShuffle, models.StrategyLatencyBased, models.StrategyLeastBusy,
		models.StrategyUsageBased, models.StrategyCostBased}[st]
}

// Latency-based routing's tuning. A member within latencyBuffer of the
// fastest shares its traffic, so two members of about the same speed both
// keep being measured; a member with no sample for latencyStale is explored
// again, so one slow spell does not keep it out for good.
const (
	latencyBuffer = 0.10
	latencyAlpha  = 0.3 // weight of a new sample in the moving average
	latencyStale  = 5 * time.Minute
)

// choose picks the member for one attempt among one tier's candidates.
func (st strategy) choose(candidates []*member, now time.Time) *member {
	return simpleShuffle{}.selectMember(st.narrow(candidates, now))
}

// narrow reorders candidates in place and returns the prefix the strategy
// chooses among. It neither locks (beyond a limited member's window) nor
// allocates.
func (st strategy) narrow(candidates []*member, now time.Time) []*member {
	if st == strategySimpleShuffle || len(candidates) < 2 {
		return candidates // the shuffle keeps reserves aside itself
	}
	if candidates = withoutReserves(candidates); len(candidates) < 2 {
		return candidates
	}
	switch st {
	case strategyLatencyBased:
		return narrowLatency(candidates, now)
	case strategyLeastBusy:
		return keepBest(candidates, func(m *member) float64 { return float64(m.state.busy()) })
	case strategyUsageBased:
		return narrowUsage(candidates, now)
	case strategyCostBased:
		return keepBest(candidates, listPrice)
	}
	return candidates
}

// withoutReserves drops the weight-0 members when some candidate carries a
// weight: those are reserves, picked only when no weighted member is left.
func withoutReserves(candidates []*member) []*member {
	if weightSum(candidates) <= 0 {
		return candidates
	}
	n := 0
	for _, m := range candidates {
		if m.weight > 0 {
			candidates[n], n = m, n+1
		}
	}
	return candidates[:n]
}

// keepBest moves the candidates with the lowest cost to the front and
// returns them.
func keepBest(candidates []*member, cost func(*member) float64) []*member {
	best := cost(candidates[0])
	n := 1
	for i := 1; i < len(candidates); i++ {
		m := candidates[i]
		switch c := cost(m); {
		case c < best:
			best = c
			candidates[0], candidates[i] = m, candidates[0]
			n = 1
		case c == best:
			candidates[n], candidates[i] = m, candidates[n]
			n++
		}
	}
	return candidates[:n]
}

// narrowLatency: members without a recent sample first (they are explored),
// else those within latencyBuffer of the fastest moving average.
func narrowLatency(candidates []*member, now time.Time) []*member {
	n := 0
	for i, m := range candidates {
		if _, ok := m.state.latency(now); !ok {
			candidates[n], candidates[i] = m, candidates[n]
			n++
		}
	}
	if n > 0 {
		return candidates[:n]
	}
	best := time.Duration(1<<63 - 1)
	for _, m := range candidates {
		l, _ := m.state.latency(now)
		best = min(best, l)
	}
	limit := best + time.Duration(float64(best)*latencyBuffer)
	for i, m := range candidates {
		if l, _ := m.state.latency(now); l <= limit {
			candidates[n], candidates[i] = m, candidates[n]
			n++
		}
	}
	return candidates[:n]
}

// narrowUsage: the members with the most headroom left under their limits
// this minute (the smaller of the request and token fractions left; a member
// without limits has all of it), then the fewest tokens used.
func narrowUsage(candidates []*member, now time.Time) []*member {
	return keepBest(candidates, func(m *member) float64 {
		reqs, tokens := m.state.window.usage(now)
		left := 1.0
		if m.rpmLimit > 0 {
			left = min(left, 1-float64(reqs)/float64(m.rpmLimit))
		}
		if m.tpmLimit > 0 {
			left = min(left, 1-float64(tokens)/float64(m.tpmLimit))
		}
		// Headroom first; among equal headroom, fewer tokens used. Tokens
		// in a minute stay far below 1e12, so the two never mix.
		return -left*1e12 + float64(tokens)
	})
}

// simpleShuffle is the weighted pick over the candidates it is given: when
// some candidate carries a weight, pick with probability weight/sum, an
// unset weight counting as 0 and never picked; when none does, pick
// uniformly among all of them. It neither locks nor allocates:
// math/rand/v2's top-level functions use a per-thread generator.
type simpleShuffle struct{}

func (simpleShuffle) selectMember(candidates []*member) *member {
	switch len(candidates) {
	case 0:
		return nil
	case 1:
		return candidates[0]
	}
	sum := weightSum(candidates)
	if sum <= 0 {
		return candidates[rand.IntN(len(candidates))]
	}
	return pickWeighted(candidates, rand.Float64()*sum)
}

// listPrice is what a cost-based pool compares: a member's input and output
// prices added; one without a price comes last.
func listPrice(m *member) float64 {
	if p, ok := m.prices.ListPrice(); ok {
		return p
	}
	return math.Inf(1)
}
