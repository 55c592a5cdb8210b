package proxy

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"gateway/models"
)

// logInserter is the store methods the writer needs; tests fake it.
type logInserter interface {
	SaveLogsAndSpend(ctx context.Context, logs []models.RequestLog, spend []models.SpendDelta) error
	ResetSpend(ctx context.Context, holder string, id int64, next time.Time) error
}

// logWriter writes request logs in batches from a bounded queue, so that a
// slow or down database never delays or fails a proxied request. What cannot
// be written is dropped and counted, never silently. Spend goes with the logs
// in the same transaction, but it is never dropped: while the database is
// down it adds up in memory and is written when it is back.
type logWriter struct {
	store logInserter
	log   *slog.Logger
	queue chan models.RequestLog

	spendMu sync.Mutex
	spend   map[holder]float64   // not yet written
	resets  map[holder]time.Time // budget periods to restart in the database

	closed   atomic.Bool
	dropped  atomic.Int64
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}
	// ctx is cancelled when Close runs out of time: inserts and backoffs in
	// progress give up at once.
	ctx    context.Context
	cancel context.CancelFunc

	batchSize     int
	flushInterval time.Duration
	attempts      int           // inserts of one batch before it is dropped
	backoff       time.Duration // before the second attempt, doubling after
	insertTimeout time.Duration
}

func newLogWriter(store logInserter, logger *slog.Logger, queueSize int) *logWriter {
	ctx, cancel := context.WithCancel(context.Background())
	w := &logWriter{
		store: store, log: logger,
		queue: make(chan models.RequestLog, queueSize),
		spend: make(map[holder]float64), resets: make(map[holder]time.Time),
		stop: make(chan struct{}), done: make(chan struct{}),
		ctx: ctx, cancel: cancel,
		batchSize: 200, flushInterval: 200 * time.Millisecond,
		attempts: 4, backoff: 250 * time.Millisecond, insertTimeout: 10 * time.Second,
	}
	return w
}

// start launches the writer goroutine; tuning fields are set before it.
func (w *logWriter) start() *logWriter {
	go w.run()
	return w
}

// enqueue hands a row to the writer without ever blocking: when the queue is
// full the row is dropped and counted, and the writer reports the count.
func (w *logWriter) enqueue(row models.RequestLog) {
	if w.closed.Load() {
		w.dropped.Add(1)
		return
	}
	select {
	case w.queue <- row:
	default:
		w.dropped.Add(1)
	}
}

// addSpend adds a request's cost to what the holder's row will get.
func (w *logWriter) addSpend(h holder, usd float64) {
	w.spendMu.Lock()
	w.spend[h] += usd
	w.spendMu.Unlock()
}

// resetSpend restarts a holder's budget period: what was not yet written
// belonged to the period that ends, which the reset zeroes anyway.
func (w *logWriter) resetSpend(h holder, next time.Time) {
	w.spendMu.Lock()
	delete(w.spend, h)
	w.resets[h] = next
	w.spendMu.Unlock()
}

// takeSpend takes what is to be written; giveBack returns what was not.
func (w *logWriter) takeSpend() ([]models.SpendDelta, map[holder]time.Time) {
	w.spendMu.Lock()
	defer w.spendMu.Unlock()
	deltas := make([]models.SpendDelta, 0, len(w.spend))
	for h, usd := range w.spend {
		deltas = append(deltas, models.SpendDelta{Holder: h.kind, ID: h.id, USD: usd})
	}
	resets := w.resets
	clear(w.spend)
	w.resets = make(map[holder]time.Time)
	return deltas, resets
}

// giveBack returns what a failed flush took. A reset still pending keeps its
// deltas (they belong to the new period); a holder reset again since the take
// loses them (they belonged to a period that is over).
func (w *logWriter) giveBack(deltas []models.SpendDelta, resets map[holder]time.Time) {
	w.spendMu.Lock()
	defer w.spendMu.Unlock()
	for h, next := range resets {
		if _, newer := w.resets[h]; !newer {
			w.resets[h] = next
		}
	}
	for _, d := range deltas {
		h := holder{d.Holder, d.ID}
		if _, reset := w.resets[h]; !reset || resets[h] == w.resets[h] {
			w.spend[h] += d.USD
		}
	}
}

// Close stops taking rows and writes what is queued, for as long as ctx allows.
// Rows enqueued while Close runs may be lost: callers close the writer only
// once no request is in flight.
func (w *logWriter) Close(ctx context.Context) error {
	w.stopOnce.Do(func() {
		w.closed.Store(true)
		close(w.stop)
	})
	select {
	case <-w.done:
		return nil
	case <-ctx.Done():
		w.cancel()
		<-w.done
		return fmt.Errorf("proxy: flush request logs: %w (%d dropped in all)", ctx.Err(), w.dropped.Load())
	}
}

func (w *logWriter) run() {
	defer close(w.done)
	ticker := time.NewTicker(w.flushInterval)
	defer ticker.Stop()
	batch := make([]models.RequestLog, 0, w.batchSize)
	var reported int64
	for {
		select {
		case row := <-w.queue:
			if batch = append(batch, row); len(batch) >= w.batchSize {
				batch = w.flush(batch)
			}
		case <-ticker.C:
			batch = w.flush(batch)
			reported = w.reportDrops(reported)
		case <-w.stop:
			w.flush(w.drain(batch))
			w.reportDrops(reported)
			return
		}
	}
}

// drain moves what is left in the queue into batches, writing full ones.
func (w *logWriter) drain(batch []models.RequestLog) []models.RequestLog {
	for {
		select {
		case row := <-w.queue:
			if batch = append(batch, row); len(batch) >= w.batchSize {
				batch = w.flush(batch)
			}
		default:
			return batch
		}
	}
}

// flush writes a batch, retrying with backoff; a batch that still fails is
// dropped and counted. It returns the emptied batch for reuse.
func (w *logWriter) flush(batch []models.RequestLog) []models.RequestLog {
	deltas, resets := w.takeSpend()
	if len(batch) == 0 && len(deltas) == 0 && len(resets) == 0 {
		return batch
	}
	for i := range batch {
		fitColumns(&batch[i])
	}
	if err := w.applyResets(resets); err != nil {
		w.log.Warn("restarting budget periods failed; will retry", "err", err)
		w.giveBack(deltas, resets)
		deltas = nil
	}
	if err := w.insertWithRetry(batch, deltas); err != nil {
		w.giveBack(deltas, nil)
		w.insertOneByOne(batch, err)
	}
	clear(batch)
	return batch[:0]
}

// applyResets restarts budget periods in the database; on failure all are
// kept for the next flush (ResetSpend is idempotent).
func (w *logWriter) applyResets(resets map[holder]time.Time) error {
	for h, next := range resets {
		ctx, cancel := context.WithTimeout(w.ctx, w.insertTimeout)
		err := w.store.ResetSpend(ctx, h.kind, h.id, next)
		cancel()
		if err != nil {
			return err
		}
	}
	return nil
}

func (w *logWriter) insertWithRetry(batch []models.RequestLog, deltas []models.SpendDelta) error {
	wait := w.backoff
	var err error
	for attempt := 1; ; attempt++ {
		if err = w.insert(batch, deltas); err == nil || attempt == w.attempts {
			return err
		}
		w.log.Warn("writing request logs failed; will retry", "attempt", attempt, "err", err)
		select {
		case <-time.After(wait):
		case <-w.ctx.Done():
			return fmt.Errorf("%w (then gave up: %w)", err, w.ctx.Err())
		}
		wait *= 2
	}
}

// insertOneByOne writes a refused batch row by row, so that one row the
// database will not take (or a database that is down) drops only what it must.
func (w *logWriter) insertOneByOne(batch []models.RequestLog, batchErr error) {
	var dropped int64
	for i := range batch {
		if w.ctx.Err() != nil {
			dropped += int64(len(batch) - i)
			break
		}
		if err := w.insert(batch[i:i+1], nil); err != nil {
			dropped++
		}
	}
	if dropped > 0 {
		w.dropped.Add(dropped)
		w.log.Error("request logs dropped: the database refused them", "rows", dropped, "err", batchErr)
	}
}

func (w *logWriter) insert(batch []models.RequestLog, deltas []models.SpendDelta) error {
	for i := range batch {
		batch[i].ID = 0 // a failed attempt may have assigned ids
	}
	ctx, cancel := context.WithTimeout(w.ctx, w.insertTimeout)
	defer cancel()
	return w.store.SaveLogsAndSpend(ctx, batch, deltas)
}

// reportDrops logs drops since the last report: one line per interval at
// most, so that a flood of drops does not become a flood of log lines.
func (w *logWriter) reportDrops(reported int64) int64 {
	total := w.dropped.Load()
	if total != reported {
		w.log.Warn("request logs dropped", "since_last_report", total-reported, "total", total)
	}
	return total
}

// fitColumns trims text to the column sizes and to valid UTF-8: PostgreSQL
// refuses a whole batch for one caller's 600-character model name.
func fitColumns(r *models.RequestLog) {
	r.RequestID = fit(r.RequestID, 64)
	r.Model = fit(r.Model, 500)
	r.ProviderName = fit(r.ProviderName, 200)
	r.UpstreamModel = fit(r.UpstreamModel, 500)
	r.Endpoint = fit(r.Endpoint, 100)
	r.Fallback = fit(r.Fallback, 500)
	r.Error = fit(maskSecrets(r.Error), 2000)
}

// secretLike matches what looks like an API key in an upstream's error text
// (OpenAI's 401 quotes part of the key it was sent).
var secretLike = regexp.MustCompile(`\b(sk|key)-[A-Za-z0-9_*.-]{6,}`)

// maskSecrets hides key-like words in text that is stored or logged.
func maskSecrets(s string) string {
	if !strings.Contains(s, "sk-") && !strings.Contains(s, "key-") {
		return s
	}
	return secretLike.ReplaceAllString(s, "$1-…")
}

// fit cuts s to at most n bytes (so at most n characters) on a rune boundary,
// without NUL, which PostgreSQL refuses in text.
func fit(s string, n int) string {
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
