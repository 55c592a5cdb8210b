// Command gatewaybench is the gateway's load benchmark. In one process it
// starts a fast fake upstream (OpenAI and Anthropic, JSON and SSE), a plain
// httputil.ReverseProxy in front of it (the floor) and the gateway in front
// of it with a key and two 3-member weighted pools, then drives the three
// targets with the same closed-loop workload, interleaving their runs, and
// prints latency, overhead, throughput, time to first byte, allocations and
// peak RSS. Ratios matter, not absolute times: the machine is shared.
//
// The gateway is built from its packages (models, proxy) rather than run as
// a binary: cmd/gateway is a main package and cannot be imported, and only
// in-process can runtime.MemStats count its allocations per request. It is
// the same proxy.Server behind an http.Server with the same settings.
//
// -soak 60s instead runs the gateway alone (non-streaming, concurrency 16)
// and prints its memory every 10 s; -streams 1000 holds that many slow
// streams open through it at once.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "gatewaybench:", err)
		os.Exit(1)
	}
}

// run is the whole program; the smoke test calls it. Results go to stdout,
// progress and the gateway's warnings to stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	cfg, err := parseConfig(args, stderr)
	if err != nil {
		return err
	}
	if cfg.fillLogs > 0 {
		return fillLogs(ctx, cfg, stdout)
	}
	e, err := startEnv(ctx, cfg.upstream, cfg.databaseURL, cfg.redisURL, stderr)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, e.close(context.WithoutCancel(ctx))) }()
	for _, r := range []struct {
		what, path string
		start      func(io.Writer) error
		end        func()
	}{
		{"cpu profile", cfg.cpuProfile, pprof.StartCPUProfile, pprof.StopCPUProfile},
		{"trace", cfg.trace, trace.Start, trace.Stop},
	} {
		if r.path == "" {
			continue
		}
		stop, rerr := record(r.what, r.path, r.start, r.end)
		if rerr != nil {
			return rerr
		}
		defer func() { err = errors.Join(err, stop()) }()
	}
	switch {
	case cfg.soak > 0:
		return runSoak(ctx, e, cfg, stdout)
	case cfg.streams > 0:
		return holdStreams(ctx, e, cfg, stdout)
	}
	return runTable(ctx, e, cfg, stdout, stderr)
}

func runTable(ctx context.Context, e *env, cfg config, stdout, stderr io.Writer) error {
	database := "the embedded SQLite"
	if cfg.databaseURL != "" {
		database = "PostgreSQL"
	}
	if cfg.redisURL != "" {
		database += ", sharing its runtime state through Redis"
	}
	fmt.Fprintf(stdout, "gatewaybench: GOMAXPROCS %d; %s per run × %d rounds, interleaved; upstream latency %s, %d chunks a stream; request bodies %d–%d bytes; the gateway on %s\n",
		runtime.GOMAXPROCS(0), cfg.duration, cfg.rounds, cfg.upstream.latency, cfg.upstream.chunks, minBody(cfg.cases), maxBody(cfg.cases), database)
	if !resetPeakRSS() {
		fmt.Fprintln(stdout, "peak RSS: the kernel cannot reset it, so each row shows the peak since start")
	}
	sums, err := runMatrix(ctx, e, cfg, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	if err := printTable(stdout, sums); err != nil {
		return err
	}
	printLegend(stdout, cfg.cases)
	printTargets(stdout, sums, cfg.cases, cfg.concurrency)
	printGatewayState(stdout, e)
	return failures(sums)
}

// record writes what start records of the process to a file at path until
// the returned stop is called: a CPU profile (pprof) or an execution trace.
func record(what, path string, start func(io.Writer) error, end func()) (stop func() error, err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := start(f); err != nil {
		return nil, errors.Join(fmt.Errorf("%s: %w", what, err), f.Close())
	}
	return func() error {
		end()
		return f.Close()
	}, nil
}

// failures is an error naming the first failed request, if any failed.
func failures(t table) error {
	n := 0
	var first error
	for _, s := range t {
		n += s.failed
		if first == nil && s.firstErr != nil {
			first = fmt.Errorf("%s c=%d %s: %w", s.c.name, s.conc, s.target, s.firstErr)
		}
	}
	if n == 0 {
		return nil
	}
	return fmt.Errorf("%d requests failed; the first: %w", n, first)
}
