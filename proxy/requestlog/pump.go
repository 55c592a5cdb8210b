package requestlog

import (
	"context"
	"fmt"
	"time"

	"gateway/models"
	"gateway/proxy/spool"
)

// logPump is the state of the writer's pump goroutine. Order is kept: the
// memory queue holds the oldest entries, the spool the newer ones, and while
// the spool holds anything every new entry goes there too, so that memory is
// written first, then the spool from its oldest segment.
type logPump struct {
	w     *Writer
	spool *spool.Spool[models.LogEntry] // nil: memory only
	mem   []models.LogEntry
	// uncertain leading entries of mem were in a write whose outcome is not
	// known (it may have been committed): they are written with once.
	uncertain int

	jobs    chan logJob
	results chan logResult
	busy    bool   // a job is with the inserter
	job     logJob // that job

	seg       *spool.Segment[models.LogEntry] // the oldest segment, being written
	segOffset int                             // its entries done with

	retry     *time.Timer
	retryC    <-chan time.Time // set while waiting to try again
	backoff   time.Duration
	down      bool // the last write failed
	downSince time.Time
	downLog   time.Time
	due       bool // a tick passed: write memory even if short of a batch

	spoolErrLog time.Time
}

// logJob is a batch for the inserter: leading entries of mem, or the rest of
// the oldest spool segment (segment set).
type logJob struct {
	entries []models.LogEntry
	once    bool
	segment int64
}

type logResult struct {
	done, dropped int
	err           error
}

func (w *Writer) run() {
	defer close(w.done)
	p := &logPump{w: w, jobs: make(chan logJob), results: make(chan logResult, 1)}
	go p.insertLoop()
	defer close(p.jobs)
	ticker := time.NewTicker(w.flushInterval)
	defer ticker.Stop()
	var reported int64
	for {
		p.dispatch(false)
		select {
		case e := <-w.queue:
			p.add(e)
		case r := <-p.results:
			p.finished(r)
		case <-p.retryC:
			p.retryC = nil
		case <-ticker.C:
			p.tick()
			reported = w.reportDrops(reported)
		case sp := <-w.attach:
			p.spool = sp
		case ctx := <-w.closing:
			w.closeErr = p.shutdown(ctx)
			w.reportDrops(reported)
			return
		}
	}
}

// insertLoop writes the pump's jobs one at a time.
func (p *logPump) insertLoop() {
	for job := range p.jobs {
		done, dropped, err := p.w.write(p.w.ctx, job.entries, job.once)
		p.results <- logResult{done, dropped, err}
	}
}

// add puts an entry where it waits: memory while the spool is empty and
// memory has room, the spool otherwise.
func (p *logPump) add(e models.LogEntry) {
	fitEntry(&e, time.Now())
	switch {
	case p.spool != nil && (p.spool.Len() > 0 || len(p.mem) >= p.w.memLimit):
		p.toSpool(e)
	case len(p.mem) >= p.w.memLimit:
		p.w.dropped.Add(1)
	default:
		p.mem = append(p.mem, e)
		p.w.inMemory.Store(int64(len(p.mem)))
	}
}

func (p *logPump) toSpool(e models.LogEntry) {
	if err := p.spool.Append(e); err != nil {
		p.w.dropped.Add(1)
		if time.Since(p.spoolErrLog) > 10*time.Second {
			p.spoolErrLog = time.Now()
			p.w.log.Error("request logs dropped: the spool cannot take them", "err", err)
		}
	}
	p.w.spooled.Store(int64(p.spool.Len()))
}

// dispatch hands the inserter the next batch, if it is free and not waiting
// to try again: memory first (a whole batch, or what there is once a tick
// passed, or anything when stopping), then the oldest spool segment.
func (p *logPump) dispatch(stopping bool) {
	if p.busy || p.retryC != nil {
		return
	}
	if len(p.mem) > 0 {
		if len(p.mem) < p.w.batchSize && !p.due && !stopping {
			return
		}
		n := min(len(p.mem), p.w.batchSize)
		p.due = false // what comes next waits for a batch or the next tick
		p.send(logJob{entries: p.mem[:n:n], once: p.uncertain > 0})
		return
	}
	p.due = false
	if p.spool == nil || p.spool.Len() == 0 {
		return
	}
	if p.seg == nil && !p.readSegment() {
		return
	}
	if p.segOffset >= len(p.seg.Items) { // every line unreadable
		p.segmentWritten()
		return
	}
	p.send(logJob{entries: p.seg.Items[p.segOffset:], once: true, segment: p.seg.Number})
}

// readSegment loads the oldest spool segment; a failure waits like a failed write.
func (p *logPump) readSegment() bool {
	seg, ok, err := p.spool.Oldest()
	if err != nil {
		p.w.log.Error("reading the request-log spool failed; will retry", "err", err)
		p.wait()
		return false
	}
	if !ok {
		return false
	}
	p.w.countUnreadable(seg)
	p.seg, p.segOffset = &seg, 0
	return true
}

func (p *logPump) send(job logJob) {
	p.busy, p.job = true, job
	p.jobs <- job
}

// finished takes the inserter's result: what it is done with leaves memory
// or the spool; after a failure the rest waits for the next try.
func (p *logPump) finished(r logResult) {
	p.busy = false
	if p.job.segment == 0 {
		p.popMem(r.done)
		if r.err != nil {
			p.uncertain = max(p.uncertain, len(p.job.entries)-r.done)
		}
	} else {
		p.w.replayed.Add(int64(r.done - r.dropped))
		if p.segOffset += r.done; p.segOffset >= len(p.seg.Items) {
			p.segmentWritten()
		}
	}
	p.job = logJob{}
	if r.err != nil {
		p.failed(r.err)
		return
	}
	if p.down {
		p.down = false
		p.w.log.Info("request logs: the database answers again", "in_memory", len(p.mem), "spooled", p.w.spooled.Load())
	}
	p.backoff = 0
}

// popMem removes the first n entries of memory. Nothing is in flight, so
// they can be moved over.
func (p *logPump) popMem(n int) {
	rest := copy(p.mem, p.mem[n:])
	clear(p.mem[rest:])
	p.mem = p.mem[:rest]
	p.uncertain = max(p.uncertain-n, 0)
	p.w.inMemory.Store(int64(len(p.mem)))
}

func (p *logPump) segmentWritten() {
	if err := p.spool.Remove(p.seg.Number); err != nil {
		p.w.log.Error("removing a written spool segment failed", "err", err)
	}
	p.seg = nil
	p.w.spooled.Store(int64(p.spool.Len()))
}

// failed notes a write that did not happen and waits before the next try.
// Once the database has failed for spillAfter, memory goes to the spool:
// a process killed during a long outage then loses only what came since
// the spool's last sync, not all that memory held.
func (p *logPump) failed(err error) {
	now := time.Now()
	if !p.down {
		p.downSince = now
	}
	if p.spool != nil && len(p.mem) > 0 && now.Sub(p.downSince) >= p.w.spillAfter {
		p.spill()
	}
	if !p.down || now.Sub(p.downLog) > 30*time.Second {
		where := "in memory and then in the spool"
		if p.spool == nil {
			where = "in memory (no spool: past the bound they are dropped)"
		}
		p.w.log.Warn("request logs cannot be written yet; they wait "+where, "err", err,
			"in_memory", len(p.mem), "spooled", p.w.spooled.Load())
		p.downLog = now
	}
	p.down = true
	p.wait()
}

func (p *logPump) wait() {
	p.backoff = min(max(p.backoff*2, p.w.backoffMin), p.w.backoffMax)
	if p.retry == nil {
		p.retry = time.NewTimer(p.backoff)
	} else {
		p.retry.Reset(p.backoff)
	}
	p.retryC = p.retry.C
}

// tick lets a short batch go and puts what the spool took on disk.
func (p *logPump) tick() {
	p.due = true
	if p.spool == nil {
		return
	}
	if err := p.spool.Sync(); err != nil && time.Since(p.spoolErrLog) > 10*time.Second {
		p.spoolErrLog = time.Now()
		p.w.log.Error("syncing the request-log spool failed", "err", err)
	}
}

// shutdown takes what is queued, writes while the database answers and ctx
// lasts, and puts the rest in the spool.
func (p *logPump) shutdown(ctx context.Context) error {
	for drained := false; !drained; {
		select {
		case e := <-p.w.queue:
			p.add(e)
		default:
			drained = true
		}
	}
	for !p.down && ctx.Err() == nil {
		p.dispatch(true)
		if !p.busy {
			break // nothing left, or nothing that can go
		}
		select {
		case r := <-p.results:
			p.finished(r)
		case <-ctx.Done():
		}
	}
	err := p.persist()
	p.w.cancel()
	if p.busy {
		// Its entries are in the spool (or were already): if it stored them
		// after all, the spool's next write, made with once, skips them.
		select {
		case <-p.results:
		case <-time.After(5 * time.Second):
		}
	}
	if p.spool != nil {
		p.spool.Close() //nolint:errcheck // persist synced what it holds
	}
	return err
}

// spill puts memory in front of the spool, where it belongs in order. The
// inserter is idle: its failed job's entries are among them, and the spool
// writes them with once.
func (p *logPump) spill() {
	if err := p.spool.Prepend(p.mem); err != nil {
		if time.Since(p.spoolErrLog) > 10*time.Second {
			p.spoolErrLog = time.Now()
			p.w.log.Error("moving request logs from memory to the spool failed; they stay in memory", "err", err)
		}
		return
	}
	p.popMem(len(p.mem))
	p.uncertain = 0
	p.w.spooled.Store(int64(p.spool.Len()))
}

// persist puts memory in front of the spool, where it belongs in order, and
// syncs it; without a spool it is dropped and counted.
func (p *logPump) persist() error {
	left := len(p.mem)
	if p.spool == nil {
		if left == 0 {
			return nil
		}
		p.w.dropped.Add(int64(left))
		return fmt.Errorf("requestlog: %d request logs could not be written and there is no spool (%d dropped in all)", left, p.w.dropped.Load())
	}
	err := p.spool.Prepend(p.mem)
	if err == nil {
		err = p.spool.Sync()
	}
	if err != nil {
		p.w.dropped.Add(int64(left))
		return fmt.Errorf("requestlog: spool %d request logs: %w", left, err)
	}
	p.w.spooled.Store(int64(p.spool.Len()))
	if n := p.spool.Len(); n > 0 {
		p.w.log.Warn("request logs spooled for the next start", "rows", n, "dir", p.w.spoolDir)
	}
	return nil
}

// reportDrops logs drops since the last report: one line per interval at
// most, so that a flood of drops does not become a flood of log lines.
func (w *Writer) reportDrops(reported int64) int64 {
	total := w.dropped.Load()
	if total != reported {
		w.log.Warn("request logs dropped", "since_last_report", total-reported, "total", total)
	}
	return total
}
