package proxy

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"gateway/models"
)

// fakeLogStore records inserted rows; fail makes the first calls fail, block
// holds every insert until released or cancelled.
type fakeLogStore struct {
	mu       sync.Mutex
	rows     []models.RequestLog
	calls    int
	failures int    // the first n calls fail
	poison   string // a batch holding a row with this model fails
	spend    float64
	block    chan struct{}
}

func (f *fakeLogStore) ResetSpend(context.Context, string, int64, time.Time) error { return nil }

func (f *fakeLogStore) SaveLogsAndSpend(ctx context.Context, logs []models.RequestLog, spend []models.SpendDelta) error {
	if f.block != nil {
		select {
		case <-f.block:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.calls <= f.failures {
		return errors.New("database is down")
	}
	for _, l := range logs {
		if f.poison != "" && l.Model == f.poison {
			return errors.New("invalid byte sequence")
		}
	}
	f.rows = append(f.rows, logs...)
	for _, d := range spend {
		f.spend += d.USD
	}
	return nil
}

func (f *fakeLogStore) inserted() (rows, calls int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.rows), f.calls
}

// testLogWriter returns a writer with a short backoff; tune apply changes it
// before its goroutine starts.
func testLogWriter(store logInserter, queue int, logs *strings.Builder, tune ...func(*logWriter)) *logWriter {
	var logger *slog.Logger
	if logs != nil {
		logger = slog.New(slog.NewTextHandler(&lockedWriter{b: logs}, nil))
	} else {
		logger = slog.New(slog.DiscardHandler)
	}
	w := newLogWriter(store, logger, queue)
	w.backoff = time.Millisecond
	for _, f := range tune {
		f(w)
	}
	return w.start()
}

type lockedWriter struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func closeWriter(t *testing.T, w *logWriter) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// closeWriterAfter waits (5 s at most) until done holds, then closes w.
func closeWriterAfter(t *testing.T, w *logWriter, done func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !done() && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	closeWriter(t, w)
}

func TestLogWriterCloseDrains(t *testing.T) {
	store := &fakeLogStore{}
	w := testLogWriter(store, 1000, nil)
	for i := range 450 {
		w.enqueue(models.RequestLog{RequestID: string(rune('a' + i%26))})
	}
	closeWriter(t, w)
	rows, _ := store.inserted()
	if rows != 450 || w.dropped.Load() != 0 {
		t.Errorf("inserted %d, dropped %d; want 450 and 0", rows, w.dropped.Load())
	}
	w.enqueue(models.RequestLog{})
	if w.dropped.Load() != 1 {
		t.Error("a row enqueued after Close was not counted as dropped")
	}
}

func TestLogWriterDropsWhenFull(t *testing.T) {
	store := &fakeLogStore{block: make(chan struct{})}
	var logs strings.Builder
	w := testLogWriter(store, 10, &logs, func(w *logWriter) { w.batchSize = 1 })
	w.enqueue(models.RequestLog{}) // taken by the writer, which then blocks in the insert
	deadline := time.Now().Add(5 * time.Second)
	for len(w.queue) != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	for range 25 {
		w.enqueue(models.RequestLog{})
	}
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Errorf("enqueue blocked for %s on a full queue", elapsed)
	}
	if got := w.dropped.Load(); got != 15 {
		t.Errorf("dropped: got %d, want 15 (25 rows, room for 10)", got)
	}
	close(store.block)
	closeWriter(t, w)
	if rows, _ := store.inserted(); rows != 11 {
		t.Errorf("inserted: got %d, want 11", rows)
	}
	if !strings.Contains(logs.String(), "request logs dropped") {
		t.Errorf("drops were not logged: %s", logs.String())
	}
}

// TestLogWriterDropsOnlyTheBadRow: a row the database refuses costs only
// itself, not the whole batch of other callers' rows.
func TestLogWriterDropsOnlyTheBadRow(t *testing.T) {
	store := &fakeLogStore{poison: "bad"}
	w := testLogWriter(store, 100, nil, func(w *logWriter) { w.batchSize = 3 })
	for _, m := range []string{"a", "bad", "c"} {
		w.enqueue(models.RequestLog{Model: m})
	}
	closeWriter(t, w)
	if rows, _ := store.inserted(); rows != 2 || w.dropped.Load() != 1 {
		t.Errorf("inserted %d, dropped %d; want 2 and 1", rows, w.dropped.Load())
	}
}

func TestFitColumnsMasksAndStrips(t *testing.T) {
	r := models.RequestLog{Model: "a\x00b", Error: "upstream 401: Incorrect API key provided: sk-proj-abc123XYZ"}
	fitColumns(&r)
	if r.Model != "ab" || strings.Contains(r.Error, "abc123") {
		t.Errorf("model %q, error %q", r.Model, r.Error)
	}
}

// TestSpendSurvivesADownDatabase: while inserts fail, spend adds up in
// memory; it is written, whole, once the database answers again.
func TestSpendSurvivesADownDatabase(t *testing.T) {
	store := &fakeLogStore{failures: 8} // two flushes of four attempts each
	w := testLogWriter(store, 100, nil)
	h := holder{models.SpendKey, 1}
	for range 3 {
		w.addSpend(h, 0.25)
		w.enqueue(models.RequestLog{})
	}
	closeWriterAfter(t, w, func() bool {
		store.mu.Lock()
		defer store.mu.Unlock()
		return store.spend > 0
	})
	store.mu.Lock()
	defer store.mu.Unlock()
	if store.spend != 0.75 {
		t.Fatalf("spend written: %v, want 0.75", store.spend)
	}
}

func TestLogWriterRetries(t *testing.T) {
	t.Run("recovers", func(t *testing.T) {
		store := &fakeLogStore{failures: 2}
		w := testLogWriter(store, 100, nil)
		w.enqueue(models.RequestLog{})
		closeWriter(t, w)
		if rows, calls := store.inserted(); rows != 1 || calls != 3 || w.dropped.Load() != 0 {
			t.Errorf("rows %d, calls %d, dropped %d; want 1, 3, 0", rows, calls, w.dropped.Load())
		}
	})
	t.Run("gives up and counts", func(t *testing.T) {
		store := &fakeLogStore{failures: 1000}
		var logs strings.Builder
		w := testLogWriter(store, 100, &logs)
		w.enqueue(models.RequestLog{})
		w.enqueue(models.RequestLog{})
		closeWriter(t, w)
		if _, calls := store.inserted(); calls != w.attempts+2 {
			t.Errorf("calls: got %d, want %d attempts and then one per row", calls, w.attempts+2)
		}
		if w.dropped.Load() != 2 {
			t.Errorf("dropped: got %d, want 2", w.dropped.Load())
		}
		if !strings.Contains(logs.String(), "database is down") {
			t.Errorf("the failure was not logged: %s", logs.String())
		}
	})
}

func TestLogWriterCloseIsBounded(t *testing.T) {
	store := &fakeLogStore{block: make(chan struct{})} // never released
	w := testLogWriter(store, 100, nil)
	w.enqueue(models.RequestLog{})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := w.Close(ctx); err == nil {
		t.Error("Close returned nil although rows could not be written")
	}
	if elapsed := time.Since(start); elapsed > 3*time.Second {
		t.Errorf("Close took %s with a 100 ms budget", elapsed)
	}
	if w.dropped.Load() != 1 {
		t.Errorf("dropped: got %d, want 1", w.dropped.Load())
	}
}

func TestFitColumns(t *testing.T) {
	r := models.RequestLog{Model: strings.Repeat("é", 400), Error: "bad \xff byte"}
	fitColumns(&r)
	if len(r.Model) > 500 || !strings.HasPrefix(r.Model, "é") || strings.ContainsRune(r.Model, '\uFFFD') {
		t.Errorf("model: %d bytes, cut mid-rune or not at all", len(r.Model))
	}
	if r.Error != "bad \uFFFD byte" {
		t.Errorf("error: got %q", r.Error)
	}
}
