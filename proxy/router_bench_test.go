package proxy

import (
	"net/http/httptest"
	"testing"
	"time"
)

// BenchmarkPickFromPool is the router's whole pick for one attempt: narrow to
// the candidates, look up a sticky binding, shuffle.
func BenchmarkPickFromPool(b *testing.B) {
	s := &Server{selector: simpleShuffle{}}
	p := &pool{name: "p"}
	for i, w := range []float64{0, 1, 9} {
		p.members = append(p.members, &member{id: int64(i + 1), weight: w, state: &memberState{}, cooldown: -1})
	}
	rq := &routing{s: s, current: "p", r: httptest.NewRequest("POST", "/", nil)}
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		if rq.pick(route{pool: p}, nil, now) == nil {
			b.Fatal("no pick")
		}
	}
}

// TestPickDoesNotAllocate: the router's pick for a small pool stays on the
// stack, with a sticky binding to look up too.
func TestPickDoesNotAllocate(t *testing.T) {
	s := &Server{}
	p := &pool{name: "p"}
	for i, w := range []float64{0, 1, 9} {
		p.members = append(p.members, &member{id: int64(i + 1), weight: w, state: &memberState{}, cooldown: -1})
	}
	rq := &routing{s: s, current: "p"}
	now := time.Now()
	s.sticky.pin("other", 1, now.Add(time.Hour))
	if n := testing.AllocsPerRun(1000, func() { rq.pick(route{pool: p}, []int64{2}, now) }); n != 0 {
		t.Errorf("pick allocates %.1f times", n)
	}
}
