package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"time"
)

// summary is every run of one case at one concurrency against one target.
type summary struct {
	c                *benchCase
	conc             int
	target           string
	requests, failed int
	firstErr         error
	p50, p99, ttfb50 time.Duration
	rps              float64
	allocsPerReq     float64
	cpuPerReq        time.Duration // the whole process's CPU time per request
	sharedCPUPerReq  time.Duration // its shared server's (Redis), when it has one
	hasSharedCPU     bool
	peakRSS          int64
}

// runMatrix runs every case at every concurrency. Each block warms every
// target up, then runs them in turn (direct, proxy, gateway, direct, …) for
// the configured rounds, so that the machine's noise hits all three alike.
func runMatrix(ctx context.Context, e *env, cfg config, progress io.Writer) ([]summary, error) {
	var out []summary
	for i := range cfg.cases {
		for _, conc := range cfg.concurrency {
			block := runBlock(ctx, e, &cfg.cases[i], conc, cfg)
			if err := ctx.Err(); err != nil {
				return out, err
			}
			out = append(out, block...)
			fmt.Fprintf(progress, "%-16s c=%-3d", cfg.cases[i].name, conc)
			for _, s := range block {
				fmt.Fprintf(progress, "  %s p50 %s", s.target, fmtDur(s.p50))
			}
			fmt.Fprintln(progress)
		}
	}
	return out, nil
}

func runBlock(ctx context.Context, e *env, c *benchCase, conc int, cfg config) []summary {
	key := e.gateway.key
	// Warm-up: connections at this concurrency, the gateway's pools, caches.
	for _, t := range e.targets {
		measure(ctx, t, c, conc, cfg.warmup, key)
	}
	runs := make([][]measurement, len(e.targets))
	for range cfg.rounds {
		for i, t := range e.targets {
			runs[i] = append(runs[i], measure(ctx, t, c, conc, cfg.duration, key))
		}
	}
	out := make([]summary, len(e.targets))
	for i, t := range e.targets {
		out[i] = summarise(c, conc, t.name, runs[i])
	}
	return out
}

func summarise(c *benchCase, conc int, target string, runs []measurement) summary {
	s := summary{c: c, conc: conc, target: target}
	var latencies, ttfbs []time.Duration
	var elapsed time.Duration
	var mallocs uint64
	var cpu, shared time.Duration
	for _, m := range runs {
		latencies = append(latencies, m.latencies...)
		ttfbs = append(ttfbs, m.ttfbs...)
		s.failed += m.failed
		if s.firstErr == nil {
			s.firstErr = m.firstErr
		}
		elapsed += m.elapsed
		mallocs += m.mallocs
		cpu += m.cpu
		shared += m.sharedCPU
		s.hasSharedCPU = s.hasSharedCPU || m.hasShared
		s.peakRSS = max(s.peakRSS, m.peakRSS)
	}
	s.requests = len(latencies)
	slices.Sort(latencies)
	slices.Sort(ttfbs)
	s.p50, s.p99, s.ttfb50 = percentile(latencies, 0.50), percentile(latencies, 0.99), percentile(ttfbs, 0.50)
	if elapsed > 0 {
		s.rps = float64(s.requests) / elapsed.Seconds()
	}
	if n := s.requests + s.failed; n > 0 {
		s.allocsPerReq = float64(mallocs) / float64(n)
		s.cpuPerReq = cpu / time.Duration(n)
		s.sharedCPUPerReq = shared / time.Duration(n)
	}
	return s
}

// percentile of sorted values by the nearest-rank method; 0 when empty.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}
