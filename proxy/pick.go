package proxy

import (
	"math/rand/v2"

	"gateway/proxy/catalog"
)

// simpleShuffle picks the member that serves one attempt from the candidates
// (the router has already narrowed them and honoured sticky bindings). It is
// the design's Routing step 4: when some candidate carries a
// weight, pick with probability weight/sum, an unset weight counting as 0 and
// never picked; when none does, pick uniformly among all of them. It neither
// locks nor allocates: math/rand/v2's top-level functions use a per-thread
// generator.
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

// weightSum is the total weight of the candidates. Weights are never negative
// (newMember reads those as 0), so a sum of 0 means "no weighting in force":
// the seed's trap where all-zero weights mean uniform, not parked.
func weightSum(candidates []*member) float64 {
	var sum float64
	for _, m := range candidates {
		sum += m.weight
	}
	return sum
}

// pickWeighted returns the member whose cumulative weight first exceeds r.
func pickWeighted(candidates []*member, r float64) *member {
	for _, m := range candidates {
		if r < m.weight {
			return m
		}
		r -= m.weight
	}
	// Rounding can leave r just at the total: the last weighted member takes it.
	for i := len(candidates) - 1; i >= 0; i-- {
		if candidates[i].weight > 0 {
			return candidates[i]
		}
	}
	return candidates[len(candidates)-1]
}

// shares returns the probability simpleShuffle gives each member when only
// the available ones are candidates (catalog.Shares): the pool status page's
// planned and current shares, by the rule the router picks by.
func shares(members []*member, available func(*member) bool) []float64 {
	weights := make([]float64, len(members))
	for i, m := range members {
		weights[i] = m.weight
	}
	return catalog.Shares(weights, func(i int) bool { return available(members[i]) })
}
