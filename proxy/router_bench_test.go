package proxy

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"gateway/models"
	"gateway/proxy/catalog"
	"gateway/proxy/requestlog"
)

// BenchmarkPickFromPool is the router's whole pick for one attempt: narrow to
// the candidates, look up a sticky binding, shuffle.
func BenchmarkPickFromPool(b *testing.B) {
	s := &Server{}
	p := &pool{Pool: &catalog.Pool{Name: "p"}}
	for i, w := range []float64{0, 1, 9} {
		p.members = append(p.members, &member{id: int64(i + 1), weight: w, state: &memberState{}, cooldown: -1})
	}
	rq := &routing{s: s, x: &exchange{}, current: "p", r: httptest.NewRequest("POST", "/", nil)}
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
	p := &pool{Pool: &catalog.Pool{Name: "p"}}
	for i, w := range []float64{0, 1, 9} {
		p.members = append(p.members, &member{id: int64(i + 1), weight: w, state: &memberState{}, cooldown: -1})
	}
	rq := &routing{s: s, x: &exchange{}, current: "p"}
	now := time.Now()
	s.sticky.pin("other", 1, now.Add(time.Hour))
	if n := testing.AllocsPerRun(1000, func() { rq.pick(route{pool: p}, []int64{2}, now) }); n != 0 {
		t.Errorf("pick allocates %.1f times", n)
	}
}

// BenchmarkLogEnqueue is what a request pays to hand its log row over: one
// non-blocking channel send (the writer drains the queue meanwhile).
func BenchmarkLogEnqueue(b *testing.B) {
	w := requestlog.New(discardLogs{}, slog.New(slog.DiscardHandler), 10_000, "").Start()
	defer w.Close(context.Background())
	row := models.RequestLog{Model: "m", Status: 200, InputTokens: 10, OutputTokens: 5}
	b.ReportAllocs()
	for b.Loop() {
		w.EnqueueRow(row)
	}
}

// BenchmarkReserveAndSettle is a request's budget bookkeeping on a key with a
// budget, a user and a team.
func BenchmarkReserveAndSettle(b *testing.B) {
	s := &Server{logs: requestlog.New(discardLogs{}, slog.New(slog.DiscardHandler), 10, "")}
	k := &virtualKey{}
	for i := range k.budgets {
		k.budgets[i] = &budget{hard: 1e12}
	}
	now := time.Now()
	b.ReportAllocs()
	var seq int64
	for b.Loop() {
		r, err := s.reserve(k, 0.01, now)
		if err != nil {
			b.Fatal(err)
		}
		seq++
		s.settle(r, 0.005, seq)
	}
}

type discardLogs struct{}

func (discardLogs) SaveLogEntries(context.Context, []models.LogEntry, bool) error { return nil }
