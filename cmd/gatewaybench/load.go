package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sync"
	"time"
)

// measurement is one closed-loop run of one case against one target.
type measurement struct {
	latencies []time.Duration // of the requests that succeeded
	ttfbs     []time.Duration // time to the first body byte, same order
	failed    int
	firstErr  error
	elapsed   time.Duration
	mallocs   uint64        // heap allocations in the whole process during the run
	cpu       time.Duration // CPU time of the whole process during the run
	sharedCPU time.Duration // the target's shared server's (see target.sharedCPU)
	hasShared bool          // the target has one
	peakRSS   int64         // bytes; the process's, since the run started when the kernel allows
}

// workerResult is what one worker of a run saw.
type workerResult struct {
	latencies, ttfbs []time.Duration
	failed           int
	firstErr         error
}

// measure runs conc workers, each sending c's request to t and waiting for
// the whole answer before the next, until d has passed. Allocations are
// and CPU time are counted across the whole process: the load generator and
// the upstream cost the same on every target, so differences between targets
// are the targets' own.
func measure(ctx context.Context, t *target, c *benchCase, conc int, d time.Duration, key string) measurement {
	resetPeakRSS()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu := processCPU()
	var shared time.Duration
	if t.sharedCPU != nil {
		shared = t.sharedCPU(ctx)
	}
	start := time.Now()
	results := make([]workerResult, conc)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() { results[i] = t.worker(ctx, c, start.Add(d), key) })
	}
	wg.Wait()
	m := measurement{elapsed: time.Since(start)}
	for _, r := range results {
		m.latencies = append(m.latencies, r.latencies...)
		m.ttfbs = append(m.ttfbs, r.ttfbs...)
		m.failed += r.failed
		if m.firstErr == nil {
			m.firstErr = r.firstErr
		}
	}
	t.sent += int64(len(m.latencies) + m.failed)
	if t.settle != nil {
		t.settle(ctx, t.sent)
	}
	m.cpu = processCPU() - cpu
	if t.sharedCPU != nil {
		m.sharedCPU, m.hasShared = max(t.sharedCPU(ctx)-shared, 0), true
	}
	runtime.ReadMemStats(&after)
	m.mallocs = after.Mallocs - before.Mallocs
	m.peakRSS = peakRSS()
	return m
}

// worker sends requests one after the other until deadline.
func (t *target) worker(ctx context.Context, c *benchCase, deadline time.Time, key string) workerResult {
	r := workerResult{latencies: make([]time.Duration, 0, 1024), ttfbs: make([]time.Duration, 0, 1024)}
	buf := make([]byte, 0, 64<<10)
	bearer, apiKey := []string{"Bearer " + key}, []string{key}
	url := t.base + c.path
	for ctx.Err() == nil && time.Now().Before(deadline) {
		ttfb, latency, body, err := t.send(ctx, c, url, buf, bearer, apiKey)
		buf = body[:0]
		if err != nil {
			r.failed++
			if r.firstErr == nil {
				r.firstErr = err
			}
			continue
		}
		r.latencies = append(r.latencies, latency)
		r.ttfbs = append(r.ttfbs, ttfb)
	}
	return r
}

// send makes one request and reads the whole answer into buf. It returns
// when the first byte of the body arrived and when the last did, both from
// the moment the request was sent.
func (t *target) send(ctx context.Context, c *benchCase, url string, buf []byte, bearer, apiKey []string) (ttfb, latency time.Duration, body []byte, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(c.body))
	if err != nil {
		return 0, 0, buf, err
	}
	c.setHeaders(req.Header, bearer, apiKey)
	start := time.Now()
	resp, err := t.client.Do(req)
	if err != nil {
		return 0, 0, buf, err
	}
	defer resp.Body.Close()
	ttfb, body, err = readTimed(resp.Body, buf, start)
	latency = time.Since(start)
	switch {
	case err != nil:
		return 0, 0, body, fmt.Errorf("read answer: %w", err)
	case resp.StatusCode != http.StatusOK:
		return 0, 0, body, fmt.Errorf("status %d: %.300s", resp.StatusCode, body)
	}
	return ttfb, latency, body, c.check(body)
}

// readTimed appends r to buf and returns how long after start the first
// byte came.
func readTimed(r io.Reader, buf []byte, start time.Time) (time.Duration, []byte, error) {
	var first time.Duration
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		if n > 0 && first == 0 {
			first = time.Since(start)
		}
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return first, buf, nil
		}
		if err != nil {
			return first, buf, err
		}
	}
}
