package proxy

import (
	"math"
	"testing"
)

func membersWithWeights(weights ...float64) []*member {
	ms := make([]*member, len(weights))
	for i, w := range weights {
		ms[i] = &member{id: int64(i + 1), weight: w}
	}
	return ms
}

// measuredShares picks n times and returns each member's share.
func measuredShares(ms []*member, n int) []float64 {
	counts := make(map[*member]int)
	for range n {
		counts[simpleShuffle{}.selectMember(ms)]++
	}
	out := make([]float64, len(ms))
	for i, m := range ms {
		out[i] = float64(counts[m]) / float64(n)
	}
	return out
}

// TestSimpleShuffleShares reproduces the seed's measurement: first member
// unset, others 1 and 9, 20,000 picks → 0 % / ~10 % / ~90 %; and an all-unset
// pool is uniform.
func TestSimpleShuffleShares(t *testing.T) {
	const picks, tolerance = 20_000, 0.015
	for _, tc := range []struct {
		name    string
		weights []float64 // 0 is how newMember reads an unset weight
		want    []float64
	}{
		{"unset, 1, 9", []float64{0, 1, 9}, []float64{0, 0.1, 0.9}},
		{"all unset", []float64{0, 0, 0}, []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}},
		{"all unset, four", []float64{0, 0, 0, 0}, []float64{0.25, 0.25, 0.25, 0.25}},
		{"5 and 3 and a reserve", []float64{0, 5, 3}, []float64{0, 0.625, 0.375}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms := membersWithWeights(tc.weights...)
			got := measuredShares(ms, picks)
			computed := shares(ms, func(*member) bool { return true })
			for i := range got {
				if math.Abs(got[i]-tc.want[i]) > tolerance {
					t.Errorf("member %d: share %.4f, want %.4f ± %.3f", i, got[i], tc.want[i], tolerance)
				}
				// The pool status page's share is computed, not measured: exact.
				if math.Abs(computed[i]-tc.want[i]) > 1e-9 {
					t.Errorf("member %d: computed share %.4f, want %.4f", i, computed[i], tc.want[i])
				}
			}
			if tc.want[0] == 0 && got[0] != 0 {
				t.Errorf("an unset weight was picked (%.4f) while others carry weights", got[0])
			}
		})
	}
}

func TestSimpleShuffleEdges(t *testing.T) {
	if m := (simpleShuffle{}).selectMember(nil); m != nil {
		t.Errorf("no candidates: got %v, want nil", m)
	}
	one := membersWithWeights(0)
	if m := (simpleShuffle{}).selectMember(one); m != one[0] {
		t.Error("a single candidate must be picked whatever its weight")
	}
	// r at the very total (float rounding) still lands on a weighted member.
	ms := membersWithWeights(0, 1, 9, 0)
	if m := pickWeighted(ms, 10); m != ms[2] {
		t.Errorf("r at the total: got member %d, want the last weighted one", m.id)
	}
}

func TestSimpleShuffleDoesNotAllocate(t *testing.T) {
	ms := membersWithWeights(0, 1, 9)
	if n := testing.AllocsPerRun(1000, func() { simpleShuffle{}.selectMember(ms) }); n != 0 {
		t.Errorf("selectMember allocates %.1f times per pick", n)
	}
}
