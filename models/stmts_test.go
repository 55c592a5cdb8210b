package models_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"gateway/models"
	"gateway/models/dbtest"
)

// insertShapes is how many INSERT shapes of request logs a store prepares
// for shapes used: on PostgreSQL request logs are copied (COPY), with no
// INSERT at all.
func insertShapes(s *models.Store, shapes int) int {
	if s.DB().Dialect == models.DialectPostgres {
		return 0
	}
	return shapes
}

// TestLogInsertsPreparedOnce: the INSERT of each shape (columns set, rows)
// is compiled on its first use and prepared after it; later batches, across
// transactions and connections, run the prepared statements and store the
// same rows. On PostgreSQL the same rows are copied.
func TestLogInsertsPreparedOnce(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		created := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
		batch := func(n int) []models.RequestLog {
			logs := make([]models.RequestLog, 23) // two statements of 10 rows and one of 3
			for i := range logs {
				logs[i] = models.RequestLog{CreatedAt: created.Add(time.Duration(n*100+i) * time.Millisecond),
					RequestID: fmt.Sprintf("r%d-%d", n, i), Model: "m", Status: 200, InputTokens: int64(i)}
			}
			return logs
		}
		if err := s.InsertRequestLogs(ctx, batch(0)); err != nil {
			t.Fatal(err)
		}
		want := insertShapes(s, 2)
		if prepared, missed := s.PreparedStatements(); prepared != want || missed != want {
			t.Fatalf("after the first batch %d statements prepared, %d missed; want %d and %d", prepared, missed, want, want)
		}
		for n := 1; n < 10; n++ {
			if err := s.InsertRequestLogs(ctx, batch(n)); err != nil {
				t.Fatal(err)
			}
		}
		if prepared, missed := s.PreparedStatements(); prepared != want || missed != want {
			t.Fatalf("after ten batches %d statements prepared, %d missed; want still %d and %d", prepared, missed, want, want)
		}
		got, err := s.ListRequestLogs(ctx, models.LogFilter{Limit: 1000})
		if err != nil || len(got) != 230 {
			t.Fatalf("read back %d rows (%v), want 230", len(got), err)
		}
		for i, g := range got {
			n, r := (229-i)/23, (229-i)%23 // newest first
			if g.RequestID != fmt.Sprintf("r%d-%d", n, r) || g.InputTokens != int64(r) || g.Status != 200 ||
				!g.CreatedAt.Equal(created.Add(time.Duration(n*100+r)*time.Millisecond)) {
				t.Fatalf("row %d read back as %+v", i, g)
			}
		}
	})
}

// TestSpendAddPrepared: the spend of key, user and team is added by
// statements prepared after the first batch, and adds up across batches.
func TestSpendAddPrepared(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		f := newSpendFixture(t, s)
		at := time.Now()
		for n := range 5 {
			entries := []models.LogEntry{f.row(fmt.Sprintf("a%d", n), at, 1), f.row(fmt.Sprintf("b%d", n), at, 0.5)}
			if err := s.SaveLogEntries(ctx, entries, false); err != nil {
				t.Fatal(err)
			}
		}
		// one INSERT shape and the updates of virtual_keys, users and teams
		want := insertShapes(s, 1) + 3
		if prepared, missed := s.PreparedStatements(); prepared != want || missed != want {
			t.Fatalf("%d statements prepared, %d missed; want %d and %d", prepared, missed, want, want)
		}
		if got := f.spend(t, s); got != [3]float64{7.5, 7.5, 7.5} {
			t.Fatalf("spend of key, user, team %v, want 7.5 each", got)
		}
	})
}

// TestLogInsertsConcurrent: writers on several connections at once share the
// prepared statements.
func TestLogInsertsConcurrent(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for g := range 4 {
			wg.Go(func() {
				for n := range 5 {
					logs := make([]models.RequestLog, 12)
					for i := range logs {
						logs[i] = models.RequestLog{RequestID: fmt.Sprintf("g%d-%d-%d", g, n, i), Model: "m", Status: 200}
					}
					if err := s.InsertRequestLogs(ctx, logs); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		got, err := s.ListRequestLogs(ctx, models.LogFilter{Limit: 1000})
		if err != nil || len(got) != 4*5*12 {
			t.Fatalf("read back %d rows (%v), want %d", len(got), err, 4*5*12)
		}
	})
}

// TestLogInsertsBounded: past MaxPrepared shapes, a new one is compiled
// on each use, not kept.
func TestLogInsertsBounded(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		// 16 column sets (four columns each set or not) times 1 to 5 rows: 80 shapes.
		for set := range 16 {
			l := models.RequestLog{Model: "m"}
			if set&1 != 0 {
				l.Status = 200
			}
			if set&2 != 0 {
				l.InputTokens = 1
			}
			if set&4 != 0 {
				l.OutputTokens = 1
			}
			if set&8 != 0 {
				l.LatencyMS = 1
			}
			for n := 1; n <= 5; n++ {
				logs := make([]models.RequestLog, n)
				for i := range logs {
					logs[i] = l
				}
				if err := s.InsertRequestLogs(ctx, logs); err != nil {
					t.Fatal(err)
				}
			}
		}
		if prepared, missed := s.PreparedStatements(); prepared != insertShapes(s, models.MaxPrepared) || missed != insertShapes(s, 16*5) {
			t.Fatalf("%d statements prepared, %d missed; want the most, %d, and every shape, %d",
				prepared, missed, insertShapes(s, models.MaxPrepared), insertShapes(s, 16*5))
		}
		got, err := s.ListRequestLogs(ctx, models.LogFilter{Limit: 1000})
		if err != nil || len(got) != 16*15 {
			t.Fatalf("read back %d rows (%v), want %d", len(got), err, 16*15)
		}
	})
}
