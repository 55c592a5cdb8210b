package proxy

import "math/rand/v2"

// selector picks the member that serves one attempt from the candidates. The
// router issue slots in here: it narrows the candidates (cooling down, already
// tried) and puts a sticky binding first, then defers to the shuffle.
type selector interface {
	selectMember(candidates []*member) *member
}

// simpleShuffle is the design's Routing step 4: when some candidate carries a
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
	var sum float64
	for _, m := range candidates {
		sum += m.weight // never negative: newMember reads those as 0
	}
	if sum <= 0 {
		return candidates[rand.IntN(len(candidates))]
	}
	return pickWeighted(candidates, rand.Float64()*sum)
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
