// Package requestlog writes the proxy's request logs, and the spend they
// carry, to the database in batches, so that a slow or down database never
// delays or fails a proxied request. While the database cannot be reached,
// rows wait in memory and, past a bound and at shutdown, in a spool of files
// (package spool), and are written in order once it is back, or at the next
// start.
package requestlog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"gateway/models"
	"gateway/proxy/providers"
	"gateway/proxy/spool"
)

// Inserter is the store method the writer needs; tests may fake it.
type Inserter interface {
	SaveLogEntries(ctx context.Context, entries []models.LogEntry, once bool) error
}

// Writer is the request-log writer. What a caller was answered for is not
// lost: rows wait in memory and in the spool in the data dir until the
// database takes them. Only a row the database refuses for its content is
// dropped, alone, counted and logged.
//
// Two goroutines: the pump (run) takes rows from the queue and decides where
// they wait, and never waits on the database; the inserter writes one batch
// at a time and reports back.
type Writer struct {
	store    Inserter
	log      *slog.Logger
	queue    chan models.LogEntry
	spoolDir string // "" keeps rows in memory only
	// spoolOpened: OpenSpool replayed the spool. Its callers run it one
	// at a time.
	spoolOpened bool

	closed   atomic.Bool
	dropped  atomic.Int64 // refused by the database, or no room left anywhere
	replayed atomic.Int64 // written from the spool
	inMemory atomic.Int64 // taken from the queue, waiting in memory
	spooled  atomic.Int64 // waiting in the spool
	// seq numbers the entries of this process in the order they are
	// enqueued, which is the order they are written in; committed is the
	// highest done with (stored, or refused). Budgets learn from it which
	// of the spend they settled the database has.
	seq       atomic.Int64
	committed atomic.Int64
	// order is held from numbering a spend to queueing its row.
	order sync.Mutex

	attach   chan *spool.Spool[models.LogEntry]
	closing  chan context.Context
	stopOnce sync.Once
	done     chan struct{}
	closeErr error // set by the pump before done closes
	// ctx is cancelled when Close has put everything left in the spool: an
	// insert still running gives up.
	ctx    context.Context
	cancel context.CancelFunc

	batchSize     int
	memLimit      int           // rows waiting in memory before the spool takes them
	spillAfter    time.Duration // of failed writes, after which memory goes to the spool
	flushInterval time.Duration // a batch smaller than batchSize waits at most this
	backoffMin    time.Duration // after a failed write, doubling up to backoffMax
	backoffMax    time.Duration
	insertTimeout time.Duration
}

// New returns a writer to store that queues up to queueSize entries and
// keeps as many in memory; spoolDir "" keeps rows in memory only. Start
// launches it.
func New(store Inserter, logger *slog.Logger, queueSize int, spoolDir string) *Writer {
	ctx, cancel := context.WithCancel(context.Background())
	return &Writer{
		store: store, log: logger, spoolDir: spoolDir,
		queue:  make(chan models.LogEntry, queueSize),
		attach: make(chan *spool.Spool[models.LogEntry]), closing: make(chan context.Context),
		done: make(chan struct{}), ctx: ctx, cancel: cancel,
		batchSize: 200, memLimit: queueSize, spillAfter: time.Second, flushInterval: 200 * time.Millisecond,
		backoffMin: 100 * time.Millisecond, backoffMax: 2 * time.Second, insertTimeout: 10 * time.Second,
	}
}

// Start launches the writer; tuning fields are set before it.
func (w *Writer) Start() *Writer {
	go w.run()
	return w
}

// Enqueue hands an entry to the writer without ever blocking. The queue is
// full only when the pump, which never waits on the database, cannot keep
// up with the disk: then the entry is dropped and counted.
func (w *Writer) Enqueue(e models.LogEntry) {
	if w.closed.Load() {
		w.dropped.Add(1)
		return
	}
	select {
	case w.queue <- e:
	default:
		w.dropped.Add(1)
	}
}

// EnqueueRow hands over a request's log row, which carries its spend.
func (w *Writer) EnqueueRow(row models.RequestLog) { w.Enqueue(models.LogEntry{Log: row}) }

// EnqueueSettled numbers a request's spend, has settle book it under that
// number, and queues its row with the number, all under one lock, so that
// rows are queued in the order of their numbers: the number Committed
// returns then says that every number below it is written too.
func (w *Writer) EnqueueSettled(row models.RequestLog, settle func(seq int64)) {
	w.order.Lock()
	seq := w.seq.Add(1)
	settle(seq)
	w.Enqueue(models.LogEntry{Log: row, Seq: seq})
	w.order.Unlock()
}

// ResetSpend restarts a holder's budget period in the database, between the
// rows of the period that ends (from) and those of the next. holder is
// models.SpendKey, SpendUser or SpendTeam.
func (w *Writer) ResetSpend(holder string, id int64, next, from time.Time) {
	w.Enqueue(models.LogEntry{Reset: &models.SpendReset{Holder: holder, ID: id, Next: next, From: from}})
}

// Committed is the highest sequence number done with (stored, or refused):
// every spend settled under a number up to it is in the database.
func (w *Writer) Committed() int64 { return w.committed.Load() }

// Waiting is how many entries are not written yet, for metrics.
func (w *Writer) Waiting() int64 { return int64(len(w.queue)) + w.inMemory.Load() }

// Spooled is how many entries wait in the spool.
func (w *Writer) Spooled() int64 { return w.spooled.Load() }

// Replayed is how many entries were written from the spool.
func (w *Writer) Replayed() int64 { return w.replayed.Load() }

// Dropped is how many entries were dropped: refused by the database for
// their content, or no room left in memory and spool.
func (w *Writer) Dropped() int64 { return w.dropped.Load() }

// OpenSpool writes what an earlier run left in the spool, then has the pump
// keep the spool. Only its first call does anything; the proxy makes it in
// its first Reload, before budgets are read from the database, so that they
// include the spooled spend. Calls are not to overlap.
func (w *Writer) OpenSpool(ctx context.Context) error {
	if w.spoolDir == "" || w.spoolOpened {
		return nil
	}
	sp, err := spool.Open[models.LogEntry](w.spoolDir, w.batchSize)
	if err != nil {
		return fmt.Errorf("requestlog: open the spool: %w", err)
	}
	if n := sp.Len(); n > 0 {
		w.log.Info("writing request logs spooled by an earlier run", "rows", n, "dir", w.spoolDir)
	}
	for {
		seg, ok, err := sp.Oldest()
		if err == nil && ok {
			err = w.replaySegment(ctx, seg)
			if err == nil {
				err = sp.Remove(seg.Number)
			}
		}
		if err != nil {
			sp.Close() //nolint:errcheck // the error that matters is err
			return fmt.Errorf("requestlog: write spooled request logs (%d rows left in %s): %w", sp.Len(), w.spoolDir, err)
		}
		if !ok {
			break
		}
	}
	select {
	case w.attach <- sp:
	case <-w.done:
		sp.Close() //nolint:errcheck // nothing was appended
		return errors.New("requestlog: the request-log writer is closed")
	}
	w.spoolOpened = true
	return nil
}

func (w *Writer) replaySegment(ctx context.Context, seg spool.Segment[models.LogEntry]) error {
	w.countUnreadable(seg)
	n, dropped, err := w.write(ctx, seg.Items, true)
	w.replayed.Add(int64(n - dropped))
	return err
}

func (w *Writer) countUnreadable(seg spool.Segment[models.LogEntry]) {
	if seg.Skipped > 0 {
		w.dropped.Add(int64(seg.Skipped))
		w.log.Error("request logs dropped: unreadable lines in the spool", "rows", seg.Skipped, "segment", seg.Number)
	}
}

// write stores entries and, when the database refuses them for their
// content, tries them one by one so that only the refused rows are dropped.
// It returns how many of the leading entries are done with (stored or
// dropped), how many of those were dropped, and the error that stopped it,
// which is never a refusal: what it stopped at is to be tried again.
func (w *Writer) write(ctx context.Context, entries []models.LogEntry, once bool) (done, dropped int, err error) {
	defer func() { w.commit(entries[:done]) }()
	if err = w.save(ctx, entries, once); err == nil {
		return len(entries), 0, nil
	}
	if !models.Refused(err) {
		return 0, 0, err
	}
	for i := range entries {
		err := w.save(ctx, entries[i:i+1], once)
		switch {
		case err == nil:
		case models.Refused(err):
			dropped++
			w.dropped.Add(1)
			w.log.Error("request log dropped: the database refused it", "request_id", entries[i].Log.RequestID, "err", err)
		default:
			return i, dropped, err
		}
	}
	return len(entries), dropped, nil
}

// commit notes the highest sequence number among entries done with.
func (w *Writer) commit(entries []models.LogEntry) {
	var top int64
	for i := range entries {
		top = max(top, entries[i].Seq)
	}
	for {
		cur := w.committed.Load()
		if top <= cur || w.committed.CompareAndSwap(cur, top) {
			return
		}
	}
}

func (w *Writer) save(ctx context.Context, entries []models.LogEntry, once bool) error {
	ctx, cancel := context.WithTimeout(ctx, w.insertTimeout)
	defer cancel()
	return w.store.SaveLogEntries(ctx, entries, once)
}

// Close stops taking entries and writes what is left for as long as ctx
// allows and the database answers; what is left then goes to the spool
// (that takes as long as the disk does), or, without one, is dropped and
// counted. Entries enqueued while Close runs may be lost: callers close the
// writer only once no request is in flight.
func (w *Writer) Close(ctx context.Context) error {
	w.stopOnce.Do(func() {
		w.closed.Store(true)
		select {
		case w.closing <- ctx:
		case <-w.done:
		}
	})
	<-w.done
	return w.closeErr
}

// fitEntry makes a row storable: text cut to its columns, a time set.
func fitEntry(e *models.LogEntry, now time.Time) {
	if e.Reset != nil {
		return
	}
	fitColumns(&e.Log)
	if e.Log.CreatedAt.IsZero() {
		e.Log.CreatedAt = now.UTC()
	}
}

// fitColumns trims text to the column sizes and to valid UTF-8: PostgreSQL
// refuses a whole batch for one caller's 600-character model name.
func fitColumns(r *models.RequestLog) {
	r.RequestID = Fit(r.RequestID, 64)
	r.Model = Fit(r.Model, 500)
	r.ProviderName = Fit(r.ProviderName, 200)
	r.UpstreamModel = Fit(r.UpstreamModel, 500)
	r.Endpoint = Fit(r.Endpoint, 100)
	r.Fallback = Fit(r.Fallback, 500)
	r.Error = Fit(providers.MaskSecrets(r.Error), 2000)
}

// Fit makes s storable in a text column of n bytes: cut to at most n bytes
// (so at most n characters) on a rune boundary, valid UTF-8, without NUL,
// which PostgreSQL refuses in text.
func Fit(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "")
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
