package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

const soakConcurrency = 16

// soakSample is the process's memory at one moment of a soak.
type soakSample struct {
	at       time.Duration
	requests int64
	liveHeap uint64 // after a forced GC: what is still referenced
	rss      int64
}

// soakLoad counts what the soak's workers did; it keeps nothing per request,
// so that the load generator's memory stays flat by construction.
type soakLoad struct {
	ok, failed atomic.Int64
	firstErr   atomic.Pointer[error]
}

// runSoak drives the gateway with non-streaming requests at concurrency 16
// and prints the live heap and RSS every cfg.soakEvery, then whether memory
// grew with the requests served.
func runSoak(ctx context.Context, e *env, cfg config, w io.Writer) error {
	gw, c := e.target(targetGateway), findCase(allCasesWith(cfg.upstream.chunks), "chat")
	fmt.Fprintf(w, "soak: gateway, case %s, concurrency %d, %s; live heap after a forced GC every %s\n",
		c.name, soakConcurrency, cfg.soak, cfg.soakEvery)
	measure(ctx, gw, c, soakConcurrency, max(cfg.warmup, time.Second), e.gateway.key)
	var load soakLoad
	samples := []soakSample{takeSample(0, &load)}
	printSample(w, samples[0], samples[0])
	// The load stops between requests: cutting them would leave the
	// gateway's log full of callers who left.
	var stopping atomic.Bool
	var wg sync.WaitGroup
	start := time.Now()
	for range soakConcurrency {
		wg.Go(func() { load.drive(ctx, &stopping, gw, c, e.gateway.key) })
	}
	// Samples at fixed times, however long taking one lasts.
	for at := cfg.soakEvery; ctx.Err() == nil; at += cfg.soakEvery {
		at = min(at, cfg.soak)
		sleepCtx(ctx, time.Until(start.Add(at)))
		s := takeSample(time.Since(start), &load)
		printSample(w, samples[len(samples)-1], s)
		samples = append(samples, s)
		if at == cfg.soak {
			break
		}
	}
	stopping.Store(true)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	return soakVerdict(w, samples, &load)
}

func (l *soakLoad) drive(ctx context.Context, stopping *atomic.Bool, t *target, c *benchCase, key string) {
	buf := make([]byte, 0, 64<<10)
	bearer, apiKey := []string{"Bearer " + key}, []string{key}
	url := t.base + c.path
	for ctx.Err() == nil && !stopping.Load() {
		_, _, body, err := t.send(ctx, c, url, buf, bearer, apiKey)
		buf = body[:0]
		switch {
		case err == nil:
			l.ok.Add(1)
		case ctx.Err() == nil: // not an interrupt cutting a request
			l.failed.Add(1)
			l.firstErr.CompareAndSwap(nil, &err)
		}
	}
}

func takeSample(at time.Duration, l *soakLoad) soakSample {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return soakSample{at: at, requests: l.ok.Load() + l.failed.Load(), liveHeap: ms.HeapAlloc, rss: currentRSS()}
}

func printSample(w io.Writer, prev, s soakSample) {
	rps := 0.0
	if d := s.at - prev.at; d > 0 {
		rps = float64(s.requests-prev.requests) / d.Seconds()
	}
	fmt.Fprintf(w, "  t=%5.1fs  requests %8d  req/s %6.0f  live heap %6s MiB  RSS %6s MiB  goroutines %d\n",
		s.at.Seconds(), s.requests, rps, mib(int64(s.liveHeap)), mib(s.rss), runtime.NumGoroutine())
}

// maxGrowthPerRequest is how much live heap may grow per request served
// before the soak calls memory growing: a real leak keeps at least a small
// object (16 bytes or more) per request, while in-flight requests and caches
// make a few hundred KiB of noise.
const maxGrowthPerRequest = 8

// soakVerdict compares the first sample under load with the last.
func soakVerdict(w io.Writer, samples []soakSample, l *soakLoad) error {
	if len(samples) < 3 {
		fmt.Fprintln(w, "soak: too short to judge memory (run at least two sampling intervals)")
	} else {
		first, last := samples[1], samples[len(samples)-1]
		served := last.requests - first.requests
		growth := int64(last.liveHeap) - int64(first.liveHeap)
		perReq := float64(growth) / float64(max(served, 1))
		fmt.Fprintf(w, "soak: from t=%.0fs to t=%.0fs, %d requests: live heap %+.1f KiB (%.2f B/request), RSS %+.1f MiB → %s\n",
			first.at.Seconds(), last.at.Seconds(), served, float64(growth)/1024, perReq,
			float64(last.rss-first.rss)/(1<<20), map[bool]string{true: "flat", false: "GROWING"}[perReq < maxGrowthPerRequest])
	}
	if n := l.failed.Load(); n > 0 {
		return fmt.Errorf("soak: %d of %d requests failed; the first: %w", n, n+l.ok.Load(), *l.firstErr.Load())
	}
	fmt.Fprintf(w, "soak: all %d requests succeeded\n", l.ok.Load())
	return nil
}

func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

func findCase(cases []benchCase, name string) *benchCase {
	for i := range cases {
		if cases[i].name == name {
			return &cases[i]
		}
	}
	return nil
}
