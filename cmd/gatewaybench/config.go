package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Bounds on the load, so that a typo cannot turn the benchmark into a
// denial of service of the machine it shares.
const (
	maxConcurrency = 1024
	maxStreams     = 5000
	maxRunTime     = 30 * time.Minute
)

// config is the benchmark's settings, from flags.
type config struct {
	duration    time.Duration // of one measured run
	warmup      time.Duration // of each target's warm-up before a block
	rounds      int
	concurrency []int
	cases       []benchCase
	upstream    upstreamOptions

	soak      time.Duration // > 0: the soak mode
	soakEvery time.Duration
	streams   int // > 0: the open-streams mode

	cpuProfile string // file for a CPU profile of the whole run
	trace      string // file for an execution trace of the whole run
	// databaseURL, when set, is a PostgreSQL server the gateway keeps its
	// data and request logs on (in a scratch database), instead of SQLite.
	databaseURL string
	// redisURL, when set, is a Redis the gateway shares its runtime state
	// through, as replicas do: limits and budgets are admitted there.
	redisURL string

	// fillLogs > 0: instead of benchmarking, add that many request-log rows
	// to the store of fillDataDir (SQLite) or databaseURL, as a year of
	// traffic would have them, for start-up and page measurements.
	fillLogs    int
	fillDataDir string
}

func parseConfig(args []string, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("gatewaybench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.DurationVar(&cfg.duration, "duration", 400*time.Millisecond, "length of one measured run")
	fs.DurationVar(&cfg.warmup, "warmup", 100*time.Millisecond, "warm-up of each target before each case and concurrency")
	fs.IntVar(&cfg.rounds, "rounds", 3, "runs per target of each case and concurrency, interleaved with the other targets'")
	conc := fs.String("concurrency", "1,16,64", "comma-separated closed-loop concurrencies")
	cases := fs.String("cases", "all", "comma-separated cases: chat, chat-stream, msg→chat, msg→chat-stream, chat→msg, chat→msg-stream, cc→chat-stream, msg, msg-stream, or all")
	fs.DurationVar(&cfg.upstream.latency, "latency", time.Millisecond, "fixed latency the fake upstream adds before answering")
	fs.IntVar(&cfg.upstream.chunks, "chunks", 20, "content chunks in each upstream stream")
	fs.DurationVar(&cfg.upstream.chunkGap, "chunk-gap", 0, "pause between two upstream stream events (default: -streams mode 100ms, else none)")
	fs.DurationVar(&cfg.soak, "soak", 0, "instead of the table: run the gateway non-streaming at concurrency 16 this long, printing memory")
	fs.DurationVar(&cfg.soakEvery, "soak-every", 10*time.Second, "how often -soak prints memory")
	fs.IntVar(&cfg.streams, "streams", 0, "instead of the table: hold this many slow streams open through the gateway at once")
	fs.StringVar(&cfg.databaseURL, "database-url", "", "postgres://… server to run the gateway on, in a scratch database created and dropped (its user may create databases); empty: the embedded SQLite")
	fs.StringVar(&cfg.redisURL, "redis-url", "", "redis://… to share the gateway's runtime state through, as replicas do (GATEWAY_REDIS_URL); empty: in memory")
	fs.StringVar(&cfg.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run (all targets: look for gateway/proxy) to this file")
	fs.IntVar(&cfg.fillLogs, "fill-logs", 0, "instead of the table: add this many request-log rows (30 days, skewed keys and models) to the store of -data-dir or -database-url, and exit")
	fs.StringVar(&cfg.fillDataDir, "data-dir", "", "with -fill-logs: the gateway's data directory (its SQLite file); -database-url is used as is, not as a scratch server")
	fs.StringVar(&cfg.trace, "trace", "", "write a runtime/trace of the whole run to this file (go tool trace: what the slowest requests waited on)")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	var err error
	if cfg.concurrency, err = parseConcurrency(*conc); err != nil {
		return cfg, err
	}
	if cfg.cases, err = selectCases(*cases, cfg.upstream.chunks); err != nil {
		return cfg, err
	}
	if cfg.streams > 0 && cfg.upstream.chunkGap == 0 {
		cfg.upstream.chunkGap = 100 * time.Millisecond
	}
	return cfg, cfg.check()
}

func parseConcurrency(s string) ([]int, error) {
	var out []int
	for part := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 || n > maxConcurrency {
			return nil, fmt.Errorf("-concurrency: want numbers from 1 to %d, got %q", maxConcurrency, part)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func (cfg *config) check() error {
	switch {
	case cfg.duration <= 0 || cfg.duration > time.Minute:
		return fmt.Errorf("-duration: want more than 0 and at most 1m, got %s", cfg.duration)
	case cfg.warmup < 0 || cfg.warmup > time.Minute:
		return fmt.Errorf("-warmup: want 0 to 1m, got %s", cfg.warmup)
	case cfg.rounds < 1 || cfg.rounds > 100:
		return fmt.Errorf("-rounds: want 1 to 100, got %d", cfg.rounds)
	case cfg.upstream.chunks < 1 || cfg.upstream.chunks > 10_000:
		return fmt.Errorf("-chunks: want 1 to 10000, got %d", cfg.upstream.chunks)
	case cfg.upstream.latency < 0 || cfg.upstream.latency > 10*time.Second:
		return fmt.Errorf("-latency: want 0 to 10s, got %s", cfg.upstream.latency)
	case cfg.upstream.chunkGap < 0 || time.Duration(cfg.upstream.chunks)*cfg.upstream.chunkGap > 5*time.Minute:
		return fmt.Errorf("-chunk-gap: a stream must last at most 5m, got %d × %s", cfg.upstream.chunks, cfg.upstream.chunkGap)
	case cfg.soak < 0 || cfg.soak > maxRunTime:
		return fmt.Errorf("-soak: want 0 to %s, got %s", maxRunTime, cfg.soak)
	case cfg.soakEvery <= 0:
		return fmt.Errorf("-soak-every: want more than 0, got %s", cfg.soakEvery)
	case cfg.streams < 0 || cfg.streams > maxStreams:
		return fmt.Errorf("-streams: want 0 to %d, got %d", maxStreams, cfg.streams)
	case cfg.soak > 0 && cfg.streams > 0:
		return fmt.Errorf("-soak and -streams: choose one")
	}
	return nil
}
