package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"gateway/models"
	"gateway/models/dbtest"
	"gateway/proxy/cluster/redistest"
)

// tableRow matches a row of the results table: case, concurrency, target,
// and the errors column last.
var tableRow = regexp.MustCompile(`(?m)^(\S+)\s+(\d+)\s+(direct|proxy|gateway)\s+.*\s(\d+)\s*$`)

// TestBenchmarkSmoke runs the whole benchmark briefly at concurrency 1 and
// checks that every case and target has a row and that every request
// succeeded. It asserts no timing.
func TestBenchmarkSmoke(t *testing.T) {
	var stdout, stderr bytes.Buffer
	tracePath := filepath.Join(t.TempDir(), "bench.trace")
	args := []string{"-duration", "60ms", "-warmup", "20ms", "-rounds", "1", "-concurrency", "1", "-chunks", "5", "-trace", tracePath}
	if err := run(t.Context(), args, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\nstdout:\n%s\nstderr:\n%s", err, &stdout, &stderr)
	}
	if fi, err := os.Stat(tracePath); err != nil || fi.Size() == 0 {
		t.Errorf("-trace wrote no trace: %v", err)
	}
	for _, c := range allCases() {
		for _, target := range []string{"p50 overhead at c=1", "p99 at c=1"} {
			if !strings.Contains(stdout.String(), fmt.Sprintf("  %-16s %s: gateway", c.name, target)) {
				t.Errorf("no %q target line for %s:\n%s", target, c.name, &stdout)
			}
		}
	}
	rows := tableRow.FindAllStringSubmatch(stdout.String(), -1)
	if got, want := len(rows), len(allCases())*3; got != want {
		t.Fatalf("table rows: got %d, want %d\n%s", got, want, &stdout)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		seen[r[1]+" "+r[3]] = true
		if r[2] != "1" || r[4] != "0" {
			t.Errorf("row %q: want concurrency 1 and 0 errors", r[0])
		}
	}
	for _, c := range allCases() {
		for _, target := range []string{targetDirect, targetProxy, targetGateway} {
			if !seen[c.name+" "+target] {
				t.Errorf("no row for %s against %s", c.name, target)
			}
		}
	}
	// Every member of both pools served some of the gateway's requests, once a
	// pool had enough of them that the lightest member (weight 2 of 10) missing
	// them all is implausible: 0.8^70 < 2e-7. A short run on a slow machine
	// sends the Anthropic pool only a handful; the weights themselves are
	// tested with 20,000 picks in proxy.
	for _, m := range poolLine.FindAllStringSubmatch(stdout.String(), -1) {
		total, _ := strconv.Atoi(m[2])
		if total == 0 {
			t.Errorf("pool %s served nothing:\n%s", m[1], &stdout)
		}
		if total >= 70 && strings.Contains(m[3], " 0.00") {
			t.Errorf("a member of pool %s served none of %d requests:\n%s", m[1], total, &stdout)
		}
	}
	if got := len(poolLine.FindAllString(stdout.String(), -1)); got != 2 {
		t.Errorf("want a shares line for each of 2 pools, got %d:\n%s", got, &stdout)
	}
}

// poolLine matches a pool's shares in the gateway's summary: name, requests,
// and the members' shares.
var poolLine = regexp.MustCompile(`(?m)^  pool (\S+) shares of (\d+) requests \(.*\): (.*)$`)

// TestBenchmarkOnPostgres runs the benchmark briefly with the gateway on
// PostgreSQL: every request succeeds, the request logs are all written
// there, and the scratch database is gone afterwards.
func TestBenchmarkOnPostgres(t *testing.T) {
	server := dbtest.PostgresDSN(t)
	var stdout, stderr bytes.Buffer
	args := []string{"-duration", "60ms", "-warmup", "20ms", "-rounds", "1", "-concurrency", "1", "-chunks", "5",
		"-cases", "chat,msg-stream", "-database-url", server}
	if err := run(t.Context(), args, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\nstdout:\n%s\nstderr:\n%s", err, &stdout, &stderr)
	}
	out := stdout.String()
	if !strings.Contains(out, "the gateway on PostgreSQL") || !strings.Contains(out, "request logs dropped: 0") {
		t.Errorf("want a run on PostgreSQL with no log dropped:\n%s", out)
	}
	for _, r := range tableRow.FindAllStringSubmatch(out, -1) {
		if r[4] != "0" {
			t.Errorf("row %q has errors", r[0])
		}
	}
	db, err := models.Open(t.Context(), server, "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var left int64
	if err := db.Raw("SELECT count(*) FROM pg_database WHERE datname LIKE 'gatewaybench_%'").Scan(&left).Error; err != nil || left != 0 {
		t.Errorf("scratch databases left behind: %d (%v)", left, err)
	}
}

// TestRedisBenchmarkSmoke runs the benchmark briefly with the gateway
// sharing its state through a real Redis: every request succeeds, and the
// shared statistics count them.
func TestRedisBenchmarkSmoke(t *testing.T) {
	srv := redistest.Start(t)
	var stdout, stderr bytes.Buffer
	args := []string{"-duration", "60ms", "-warmup", "20ms", "-rounds", "1", "-concurrency", "1", "-chunks", "5",
		"-cases", "chat,msg-stream", "-redis-url", srv.URL()}
	if err := run(t.Context(), args, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\nstdout:\n%s\nstderr:\n%s", err, &stdout, &stderr)
	}
	out := stdout.String()
	if !strings.Contains(out, "sharing its runtime state through Redis") {
		t.Errorf("want a run that says it shares state through Redis:\n%s", out)
	}
	rows := tableRow.FindAllStringSubmatch(out, -1)
	if len(rows) != 6 {
		t.Fatalf("table rows: got %d, want 6\n%s", len(rows), out)
	}
	for _, r := range rows {
		if r[4] != "0" {
			t.Errorf("row %q has errors", r[0])
		}
	}
	for _, m := range poolLine.FindAllStringSubmatch(out, -1) {
		if m[2] == "0" {
			t.Errorf("pool %s: the shared statistics counted no request:\n%s", m[1], out)
		}
	}
	if n := strings.Count(out, "Redis's CPU/req at c=1: "); n != 2 {
		t.Errorf("want Redis's CPU per request for both cases, got %d lines:\n%s", n, out)
	}
}

// TestParseRedisCPU reads the CPU time out of an INFO cpu answer.
func TestParseRedisCPU(t *testing.T) {
	info := "# CPU\r\nused_cpu_sys:1.250000\r\nused_cpu_user:2.500500\r\nused_cpu_sys_children:9.000000\r\n" +
		"used_cpu_sys_main_thread:1.250000\r\n"
	if got, want := parseRedisCPU(info), 3750500*time.Microsecond; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestStreamsModeSmoke(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"-streams", "50", "-chunks", "5", "-chunk-gap", "20ms"}
	if err := run(t.Context(), args, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\nstdout:\n%s\nstderr:\n%s", err, &stdout, &stderr)
	}
	completed := regexp.MustCompile(`(?m)^\s+(direct|proxy|gateway)\s+50 of 50 completed, 0 failed`)
	if got := len(completed.FindAllString(stdout.String(), -1)); got != 3 {
		t.Errorf("want all 50 streams completed on each of 3 targets, got %d targets:\n%s", got, &stdout)
	}
}

func TestSoakModeSmoke(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"-soak", "600ms", "-soak-every", "200ms", "-warmup", "10ms"}
	if err := run(t.Context(), args, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\nstdout:\n%s\nstderr:\n%s", err, &stdout, &stderr)
	}
	out := stdout.String()
	if got := strings.Count(out, "\n  t="); got != 4 {
		t.Errorf("want a baseline and 3 samples, got %d:\n%s", got, out)
	}
	if !strings.Contains(out, "soak: all ") {
		t.Errorf("want every soak request to succeed:\n%s", out)
	}
}

func TestPeakOpen(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name    string
		streams []openStream
		want    int
	}{
		{"none", nil, 0},
		{"disjoint", []openStream{{firstByte: 0, end: ms}, {firstByte: 2 * ms, end: 3 * ms}}, 1},
		{"touching is not overlapping", []openStream{{firstByte: 0, end: ms}, {firstByte: ms, end: 2 * ms}}, 1},
		{"nested", []openStream{{firstByte: 0, end: 9 * ms}, {firstByte: ms, end: 2 * ms}, {firstByte: ms, end: 3 * ms}}, 3},
		{"failed ones do not count", []openStream{{firstByte: 0, end: 9 * ms}, {err: fmt.Errorf("cut")}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := peakOpen(tt.streams); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
}

func TestPercentile(t *testing.T) {
	sorted := []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	tests := []struct {
		p    float64
		want time.Duration
	}{{0.5, 5}, {0.99, 10}, {0.1, 1}, {1, 10}}
	for _, tt := range tests {
		if got := percentile(sorted, tt.p); got != tt.want {
			t.Errorf("percentile(%v): got %d, want %d", tt.p, got, tt.want)
		}
	}
	if got := percentile(nil, 0.5); got != 0 {
		t.Errorf("percentile of nothing: got %d, want 0", got)
	}
}

func TestJSONTrue(t *testing.T) {
	tests := []struct {
		body, key string
		want      bool
	}{
		{`{"stream":true}`, "stream", true},
		{`{"stream" : true}`, "stream", true},
		{`{"stream":false,"stream_options":{"include_usage":true}}`, "stream", false},
		{`{"stream_options":{"include_usage":true},"stream":true}`, "include_usage", true},
		{`{"messages":[{"content":"say \"stream\": true"}]}`, "stream", false},
	}
	for _, tt := range tests {
		if got := jsonTrue([]byte(tt.body), tt.key); got != tt.want {
			t.Errorf("jsonTrue(%s, %q): got %v, want %v", tt.body, tt.key, got, tt.want)
		}
	}
}
