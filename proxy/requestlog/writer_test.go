package requestlog

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gateway/models"
	"gateway/models/dbtest"
)

// writerEnv is a log writer on a real database, with a key whose spend the
// rows carry.
type writerEnv struct {
	t     *testing.T
	dsn   string
	store *models.Store
	key   models.VirtualKey
	logs  *lockedBuffer
	w     *Writer
}

// newWriterEnv opens the store of dsn (which may go through a dbtest.Link)
// and starts a writer with a short backoff and small batches; tune changes
// it before it starts. spoolDir "" keeps rows in memory only.
func newWriterEnv(t *testing.T, dsn, spoolDir string, tune ...func(*Writer)) *writerEnv {
	t.Helper()
	e := &writerEnv{t: t, dsn: dsn, store: dbtest.MustOpenStore(t, dsn, t.TempDir()), logs: &lockedBuffer{}}
	e.key = models.VirtualKey{Name: "k"}
	if _, err := e.store.CreateKey(context.Background(), &e.key); err != nil {
		t.Fatal(err)
	}
	e.w = e.startWriter(spoolDir, tune...)
	return e
}

func (e *writerEnv) startWriter(spoolDir string, tune ...func(*Writer)) *Writer {
	e.t.Helper()
	logger := slog.New(slog.NewTextHandler(e.logs, nil))
	w := New(e.store, logger, 1000, spoolDir)
	w.backoffMin, w.backoffMax, w.batchSize, w.flushInterval = time.Millisecond, 50*time.Millisecond, 20, 20*time.Millisecond
	w.insertTimeout = 2 * time.Second
	for _, f := range tune {
		f(w)
	}
	w.Start()
	if err := w.OpenSpool(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	return w
}

// row is a request log of the env's key costing usd.
func (e *writerEnv) row(n int, usd float64) models.RequestLog {
	return models.RequestLog{RequestID: fmt.Sprintf("req-%04d", n), Model: "m", Status: 200,
		KeyID: &e.key.ID, CostUSD: usd, CreatedAt: time.Now().UTC()}
}

// stored returns the rows in the database, oldest first, and the key's spend.
func (e *writerEnv) stored() ([]models.RequestLog, float64) {
	e.t.Helper()
	rows, spend, err := e.read()
	if err != nil {
		e.t.Fatal(err)
	}
	return rows, spend
}

// read returns the stored rows, oldest first, and the key's spend.
func (e *writerEnv) read() ([]models.RequestLog, float64, error) {
	rows, err := e.store.ListRequestLogs(context.Background(), models.LogFilter{Limit: 1000})
	if err != nil {
		return nil, 0, err
	}
	for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
		rows[i], rows[j] = rows[j], rows[i]
	}
	k, err := e.store.GetKey(context.Background(), e.key.ID)
	if err != nil {
		return nil, 0, err
	}
	return rows, k.SpendUSD, nil
}

// waitStored waits (20 s at most) until n rows are stored. A read that
// fails is tried again: after an outage through a cut link, the test's own
// pooled connection may be one the cut broke.
func (e *writerEnv) waitStored(n int) []models.RequestLog {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		rows, _, err := e.read()
		if err == nil && len(rows) >= n || time.Now().After(deadline) {
			return rows
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkAll holds the stored rows to n rows in order, req-0000 first, and the
// key's spend to the sum of their costs.
func (e *writerEnv) checkAll(n int, wantSpend float64) {
	e.t.Helper()
	rows, spend := e.stored()
	if len(rows) != n {
		e.t.Fatalf("stored %d rows, want %d\nlog:\n%s", len(rows), n, e.logs)
	}
	var sum float64
	for i, r := range rows {
		if want := fmt.Sprintf("req-%04d", i); r.RequestID != want {
			e.t.Fatalf("row %d is %s, want %s: out of order or twice", i, r.RequestID, want)
		}
		sum += r.CostUSD
	}
	if math.Abs(spend-sum) > 1e-9 || math.Abs(spend-wantSpend) > 1e-9 {
		e.t.Errorf("key spend %v, sum of row costs %v, want %v", spend, sum, wantSpend)
	}
}

// lockedBuffer is a log sink the writer's goroutines and the test share.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// restart is the next start of the gateway on the same data dir: a new
// connection pool and a new writer, which writes the spool first.
func (e *writerEnv) restart(spoolDir string) {
	e.t.Helper()
	e.store = dbtest.MustOpenStore(e.t, e.dsn, e.t.TempDir())
	e.w = e.startWriter(spoolDir)
}

func closeWriter(t *testing.T, w *Writer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestLogWriterCloseDrains(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dsn, _ string) {
		e := newWriterEnv(t, dsn, "")
		for i := range 450 {
			e.w.EnqueueRow(e.row(i, 0.01))
		}
		closeWriter(t, e.w)
		e.checkAll(450, 4.5)
		e.w.EnqueueRow(models.RequestLog{})
		if e.w.dropped.Load() != 1 {
			t.Error("a row enqueued after Close was not counted as dropped")
		}
	})
}

// TestLogWriterKeepsRowsThroughAnOutage: with the database unreachable, rows
// wait in memory and, past its bound, in the spool; once it is back they
// are all written, in order, once each, with their spend.
func TestLogWriterKeepsRowsThroughAnOutage(t *testing.T) {
	link, dsn := dbtest.NewLink(t, dbtest.PostgresDSN(t))
	e := newWriterEnv(t, dsn, filepath.Join(t.TempDir(), "spool"), func(w *Writer) { w.memLimit = 30 })
	for i := range 10 {
		e.w.EnqueueRow(e.row(i, 0.5))
	}
	e.waitStored(10)
	link.Cut()
	for i := 10; i < 200; i++ {
		e.w.EnqueueRow(e.row(i, 0.5))
		time.Sleep(time.Millisecond)
	}
	waitFor(t, "rows to reach the spool", func() bool { return e.w.spooled.Load() >= 200-10-30 })
	if got := e.w.inMemory.Load(); got > 30 {
		t.Errorf("%d rows in memory, more than its bound of 30", got)
	}
	link.Restore()
	e.waitStored(200)
	waitFor(t, "the spool to empty", func() bool { return e.w.spooled.Load() == 0 })
	closeWriter(t, e.w)
	e.checkAll(200, 100)
	if e.w.dropped.Load() != 0 || e.w.replayed.Load() < 160 {
		t.Errorf("dropped %d, replayed %d; want 0 and at least 160", e.w.dropped.Load(), e.w.replayed.Load())
	}
	if !strings.Contains(e.logs.String(), "cannot be written yet") {
		t.Errorf("the outage was not logged:\n%s", e.logs)
	}
}

// TestLogWriterSpillsMemoryInALongOutage: once the database has failed for
// a while, what memory holds goes to the spool and is synced, so a process
// killed then (nothing closes it) loses none of it.
func TestLogWriterSpillsMemoryInALongOutage(t *testing.T) {
	link, dsn := dbtest.NewLink(t, dbtest.PostgresDSN(t))
	dir := filepath.Join(t.TempDir(), "spool")
	e := newWriterEnv(t, dsn, dir, func(w *Writer) { w.spillAfter = 100 * time.Millisecond })
	link.Cut()
	for i := range 50 {
		e.w.EnqueueRow(e.row(i, 1))
	}
	waitFor(t, "memory to reach the spool", func() bool { return e.w.inMemory.Load() == 0 && e.w.spooled.Load() == 50 })
	waitFor(t, "the spool on disk", func() bool { return spooledLines(t, dir) == 50 })
	link.Restore()
	e.waitStored(50)
	closeWriter(t, e.w)
	e.checkAll(50, 50)
}

// spooledLines counts the rows in the spool's files as another process
// would find them.
func spooledLines(t *testing.T, dir string) int {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n += strings.Count(string(b), "\n")
	}
	return n
}

// TestLogWriterSpoolsAtShutdown: a writer closed while the database is down
// puts what it holds in the spool at once; the next start writes it before
// anything else, so that budgets read after include its spend.
func TestLogWriterSpoolsAtShutdown(t *testing.T) {
	link, dsn := dbtest.NewLink(t, dbtest.PostgresDSN(t))
	dir := filepath.Join(t.TempDir(), "spool")
	e := newWriterEnv(t, dsn, dir, func(w *Writer) { w.memLimit = 25 })
	link.Cut()
	for i := range 100 {
		e.w.EnqueueRow(e.row(i, 0.25))
	}
	waitFor(t, "a failed write", func() bool { return strings.Contains(e.logs.String(), "cannot be written yet") })
	start := time.Now()
	closeWriter(t, e.w)
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("Close took %s with the database down", elapsed)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("nothing in the spool")
	}
	link.Restore()
	e.restart(dir) // openSpool writes the spool
	if rows, _ := e.stored(); len(rows) != 100 {
		t.Fatalf("after the next start's replay: %d rows, want 100", len(rows))
	}
	closeWriter(t, e.w)
	e.checkAll(100, 25)
	if left, _ := filepath.Glob(filepath.Join(dir, "*.jsonl")); len(left) != 0 {
		t.Errorf("spool not emptied: %v", left)
	}
}

// TestLogWriterCloseIsBounded: a database that takes connections and never
// answers holds Close no longer than its context (and the spool's sync).
func TestLogWriterCloseIsBounded(t *testing.T) {
	link, dsn := dbtest.NewLink(t, dbtest.PostgresDSN(t))
	dir := filepath.Join(t.TempDir(), "spool")
	e := newWriterEnv(t, dsn, dir, func(w *Writer) { w.insertTimeout = time.Minute })
	link.Stall()
	for i := range 5 {
		e.w.EnqueueRow(e.row(i, 1))
	}
	time.Sleep(100 * time.Millisecond) // the batch is with the inserter, which hangs
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := e.w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed > 3*time.Second {
		t.Errorf("Close took %s with a 300 ms budget", elapsed)
	}
	link.Restore()
	e.restart(dir)
	closeWriter(t, e.w)
	e.checkAll(5, 5)
}

// TestLogWriterWithoutSpoolBoundsMemory: without a spool, rows past the
// memory bound are dropped and counted, never held without limit.
func TestLogWriterWithoutSpoolBoundsMemory(t *testing.T) {
	link, dsn := dbtest.NewLink(t, dbtest.PostgresDSN(t))
	e := newWriterEnv(t, dsn, "", func(w *Writer) { w.memLimit = 40 })
	link.Cut()
	for i := range 100 {
		e.w.EnqueueRow(e.row(i, 1))
	}
	waitFor(t, "drops past the bound", func() bool { return e.w.dropped.Load() >= 60 })
	link.Restore()
	e.waitStored(40)
	closeWriter(t, e.w)
	e.checkAll(40, 40)
	if got := e.w.dropped.Load(); got != 60 {
		t.Errorf("dropped %d, want 60", got)
	}
}

// TestLogWriterDropsOnlyTheRefusedRow: a row the database refuses for its
// content (PostgreSQL has no year 300000) costs only itself, not the other
// callers' rows of its batch, and is counted and logged.
func TestLogWriterDropsOnlyTheRefusedRow(t *testing.T) {
	e := newWriterEnv(t, dbtest.PostgresDSN(t), "")
	for i := range 5 {
		r := e.row(i, 1)
		if i == 2 {
			r.RequestID = "refused"
			r.CreatedAt = time.Date(300000, 1, 1, 0, 0, 0, 0, time.UTC)
		}
		e.w.EnqueueRow(r)
	}
	closeWriter(t, e.w)
	rows, spend := e.stored()
	if len(rows) != 4 || spend != 4 || e.w.dropped.Load() != 1 {
		t.Errorf("stored %d rows, spend %v, dropped %d; want 4, 4 and 1", len(rows), spend, e.w.dropped.Load())
	}
	if !strings.Contains(e.logs.String(), "refused") {
		t.Errorf("the refused row was not logged:\n%s", e.logs)
	}
}

// TestLogWriterKeepsResetsBetweenTheirRows: a budget period restarted
// between two requests zeroes the first's spend and keeps the second's,
// also when both waited out an outage in the spool.
func TestLogWriterKeepsResetsBetweenTheirRows(t *testing.T) {
	link, dsn := dbtest.NewLink(t, dbtest.PostgresDSN(t))
	dir := filepath.Join(t.TempDir(), "spool")
	e := newWriterEnv(t, dsn, dir, func(w *Writer) { w.memLimit = 1 })
	link.Cut()
	e.w.EnqueueRow(e.row(0, 3))
	e.w.EnqueueRow(e.row(1, 5))
	e.w.ResetSpend(models.SpendKey, e.key.ID, time.Now().Add(time.Hour), time.Time{})
	e.w.EnqueueRow(e.row(2, 7))
	closeWriter(t, e.w)
	link.Restore()
	e.restart(dir)
	closeWriter(t, e.w)
	rows, spend := e.stored()
	if len(rows) != 3 || spend != 7 {
		t.Errorf("stored %d rows with the key's spend at %v; want 3 and 7 (the reset after 3 and 5)", len(rows), spend)
	}
}

func TestFitColumnsMasksAndStrips(t *testing.T) {
	r := models.RequestLog{Model: "a\x00b", Error: "upstream 401: Incorrect API key provided: sk-proj-abc123XYZ"}
	fitColumns(&r)
	if r.Model != "ab" || strings.Contains(r.Error, "abc123") {
		t.Errorf("model %q, error %q", r.Model, r.Error)
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

// waitFor polls cond for 20 s at most.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestEnqueueSettledQueuesInNumberOrder: from many goroutines at once, each
// row is queued with the number its settle saw, and the queue holds the
// numbers 1..n in order (what Committed's promise rests on).
func TestEnqueueSettledQueuesInNumberOrder(t *testing.T) {
	const goroutines, each = 8, 100
	w := New(nil, slog.New(slog.DiscardHandler), goroutines*each, "")
	var mu sync.Mutex
	settled := map[string]int64{}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				id := fmt.Sprintf("%d-%d", g, i)
				w.EnqueueSettled(models.RequestLog{RequestID: id}, func(seq int64) {
					mu.Lock()
					settled[id] = seq
					mu.Unlock()
				})
			}
		})
	}
	wg.Wait()
	if len(w.queue) != goroutines*each {
		t.Fatalf("%d rows queued, want %d", len(w.queue), goroutines*each)
	}
	for want := int64(1); want <= goroutines*each; want++ {
		e := <-w.queue
		if e.Seq != want {
			t.Fatalf("queued row %d has number %d", want, e.Seq)
		}
		if got := settled[e.Log.RequestID]; got != e.Seq {
			t.Fatalf("row %s queued as %d, settled as %d", e.Log.RequestID, e.Seq, got)
		}
	}
}
