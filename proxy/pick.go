package proxy

import "gateway/proxy/catalog"

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
// the available ones of the lowest tier with any are candidates
// (catalog.Shares): the pool status page's planned and current shares, by
// the rule the router picks by.
func shares(members []*member, available func(*member) bool) []float64 {
	weights := make([]float64, len(members))
	tier, ok := 0, false
	for i, m := range members {
		weights[i] = m.weight
		if available(m) && (!ok || m.priority < tier) {
			tier, ok = m.priority, true
		}
	}
	return catalog.Shares(weights, func(i int) bool { return members[i].priority == tier && available(members[i]) })
}

// lowestTier moves the candidates of the lowest priority to the front and
// returns them: a higher tier serves only when the lower ones have no
// candidate left.
func lowestTier(candidates []*member) []*member {
	if len(candidates) < 2 {
		return candidates
	}
	first := candidates[0].priority
	for _, m := range candidates[1:] {
		if m.priority != first {
			return keepBest(candidates, func(m *member) float64 { return float64(m.priority) })
		}
	}
	return candidates
}
