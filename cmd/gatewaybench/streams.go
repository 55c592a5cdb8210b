package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"time"
)

// openStream is one stream of the -streams mode, timed from a common start.
type openStream struct {
	firstByte, end time.Duration
	err            error
}

// holdStreams opens cfg.streams OpenAI streams at once while the upstream
// sends each chunk cfg.upstream.chunkGap apart, on each target in turn, and
// reports whether every one completed, how many were open together and what
// they cost in memory: the gateway's own cost is its figures minus the
// proxy's.
func holdStreams(ctx context.Context, e *env, cfg config, w io.Writer) error {
	c := findCase(allCasesWith(cfg.upstream.chunks), "chat-stream")
	perStream := time.Duration(c.chunks+3) * cfg.upstream.chunkGap
	fmt.Fprintf(w, "streams: %d concurrent %s streams on each target; %d chunks %s apart (about %s a stream)\n",
		cfg.streams, c.name, c.chunks, cfg.upstream.chunkGap, perStream)
	var errs []error
	for _, t := range e.targets {
		r := holdOn(ctx, t, c, cfg.streams, e.gateway.key, perStream+time.Minute)
		errs = append(errs, r.print(w, t.name))
		t.close() // so that the next target's baseline holds none of these connections
	}
	return errors.Join(errs...)
}

// streamsResult is what holding the streams on one target showed.
type streamsResult struct {
	streams             []openStream
	took                time.Duration
	rssBefore, rssPeak  int64
	heapBefore, heapMax uint64 // in use, the baseline after a GC
	goroutinesBefore    int
	goroutinesMax       int
}

func holdOn(ctx context.Context, t *target, c *benchCase, n int, key string, timeout time.Duration) streamsResult {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	r := streamsResult{rssBefore: currentRSS(), heapBefore: ms.HeapInuse, goroutinesBefore: runtime.NumGoroutine()}
	resetPeakRSS()
	s := startSampler()
	start := time.Now()
	r.streams = make([]openStream, n)
	var wg sync.WaitGroup
	for i := range r.streams {
		wg.Go(func() { r.streams[i] = openOne(ctx, t, c, key, start) })
	}
	wg.Wait()
	r.took = time.Since(start)
	r.goroutinesMax, r.heapMax = s.stop()
	r.rssPeak = peakRSS()
	return r
}

// allCasesWith is every case for an upstream sending chunks per stream.
func allCasesWith(chunks int) []benchCase {
	cases := allCases()
	for i := range cases {
		cases[i].chunks = chunks
	}
	return cases
}

func openOne(ctx context.Context, t *target, c *benchCase, key string, start time.Time) openStream {
	sent := time.Since(start)
	ttfb, latency, _, err := t.send(ctx, c, t.base+c.path, nil, []string{"Bearer " + key}, []string{key})
	return openStream{firstByte: sent + ttfb, end: sent + latency, err: err}
}

// sampler records the peak goroutine count and heap in use while streams are open.
type sampler struct {
	done           chan struct{}
	wg             sync.WaitGroup
	peakGoroutines int
	peakHeap       uint64
}

func startSampler() *sampler {
	s := &sampler{done: make(chan struct{})}
	s.wg.Go(func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		var ms runtime.MemStats
		for {
			s.peakGoroutines = max(s.peakGoroutines, runtime.NumGoroutine())
			runtime.ReadMemStats(&ms)
			s.peakHeap = max(s.peakHeap, ms.HeapInuse)
			select {
			case <-tick.C:
			case <-s.done:
				return
			}
		}
	})
	return s
}

func (s *sampler) stop() (goroutines int, heap uint64) {
	close(s.done)
	s.wg.Wait()
	return s.peakGoroutines, s.peakHeap
}

// print reports the result and returns an error naming the first failed stream.
func (r *streamsResult) print(w io.Writer, target string) error {
	var ttfbs []time.Duration
	var firstErr error
	failed := 0
	for _, s := range r.streams {
		switch {
		case s.err == nil:
			ttfbs = append(ttfbs, s.firstByte)
		case firstErr == nil:
			firstErr = s.err
			fallthrough
		default:
			failed++
		}
	}
	slices.Sort(ttfbs)
	n := len(r.streams)
	perStream := func(before, peak int64) float64 { return float64(peak-before) / 1024 / float64(n) }
	fmt.Fprintf(w, "  %-8s %d of %d completed, %d failed, in %s; %d open at once at most; first byte p50 %s, p99 %s (all dialled at once)\n",
		target, n-failed, n, failed, r.took.Round(time.Millisecond), peakOpen(r.streams),
		fmtDur(percentile(ttfbs, 0.5)), fmtDur(percentile(ttfbs, 0.99)))
	fmt.Fprintf(w, "  %-8s per stream, whole process: heap in use %+.1f KiB, RSS %+.1f KiB (peak %s MiB), goroutines %+.1f\n",
		"", perStream(int64(r.heapBefore), int64(r.heapMax)), perStream(r.rssBefore, r.rssPeak), mib(r.rssPeak),
		float64(r.goroutinesMax-r.goroutinesBefore)/float64(n))
	if failed > 0 {
		return fmt.Errorf("streams: %s: %d of %d failed; the first: %w", target, failed, n, firstErr)
	}
	return nil
}

// peakOpen is the most streams that had their first byte and not yet their
// last at one moment: a sweep over the streams' start and end events.
func peakOpen(streams []openStream) int {
	type event struct {
		at    time.Duration
		delta int
	}
	var events []event
	for _, s := range streams {
		if s.err == nil {
			events = append(events, event{s.firstByte, +1}, event{s.end, -1})
		}
	}
	// At equal times, ends before starts: touching is not overlapping.
	slices.SortFunc(events, func(a, b event) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.delta, b.delta))
	})
	open, peak := 0, 0
	for _, e := range events {
		open += e.delta
		peak = max(peak, open)
	}
	return peak
}
