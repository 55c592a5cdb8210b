package catalog

import "gateway/models"

// Weight is what an entry's weight counts for when members are picked:
// unset and negative weights count as 0.
func Weight(d *models.Deployment) float64 {
	if d.Weight != nil && *d.Weight > 0 {
		return *d.Weight
	}
	return 0
}

// Shares is the probability simple-shuffle gives each member when only the
// available ones are candidates: weight/sum when some available weight is
// positive (a weight-0 member is then never picked: a reserve), else uniform
// over the available ones. The pool pages' planned and current shares and
// the router's pick follow this one rule.
func Shares(weights []float64, available func(i int) bool) []float64 {
	out := make([]float64, len(weights))
	var n int
	var sum float64
	for i, w := range weights {
		if available(i) {
			n++
			sum += w
		}
	}
	for i, w := range weights {
		switch {
		case !available(i):
		case sum > 0:
			out[i] = w / sum
		default:
			out[i] = 1 / float64(n)
		}
	}
	return out
}

// ZeroWeightTrap: two or more members whose weights are all 0 or unset, at
// least one of them explicitly 0. Shares are then uniform, and the admin who
// set 0 to park a member gets it picked as often as the others.
func (p *Pool) ZeroWeightTrap() bool {
	zeros := 0
	for _, d := range p.Members {
		switch {
		case d.Weight == nil:
		case *d.Weight == 0:
			zeros++
		default:
			return false
		}
	}
	return len(p.Members) >= 2 && zeros > 0
}
