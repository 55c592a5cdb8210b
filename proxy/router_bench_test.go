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
