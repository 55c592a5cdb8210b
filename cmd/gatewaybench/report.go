package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// table is the results with a way to find one target's row of a block.
type table []summary

func (t table) find(c *benchCase, conc int, target string) *summary {
	for i := range t {
		if t[i].c == c && t[i].conc == conc && t[i].target == target {
			return &t[i]
		}
	}
	return nil
}

// printTable writes one row per case, concurrency and target. Overheads are
// p50 differences: over direct for the proxy and the gateway, and over the
// proxy for the gateway, where "ovh" is the gateway's overhead over direct
// divided by the proxy's (the target is 1.1× at most).
func printTable(w io.Writer, t table) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "case\tc\ttarget\tp50\tp99\tover direct\tover proxy\treq/s\tttfb p50\tallocs/req\town allocs\town CPU/req\tpeak RSS MiB\terrors\t")
	for i := range t {
		s := &t[i]
		direct, proxy := t.find(s.c, s.conc, targetDirect), t.find(s.c, s.conc, targetProxy)
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.0f\t%s\t%s\t%s\t%d\t\n",
			s.c.name, s.conc, s.target, fmtDur(s.p50), fmtDur(s.p99),
			overDirect(s, direct), overProxy(s, direct, proxy), reqPerSec(s, proxy), ttfbCell(s, proxy),
			s.allocsPerReq, ownAllocs(s, direct), ownCPU(s, direct, proxy), mib(s.peakRSS), s.failed)
	}
	return tw.Flush()
}

func overDirect(s, direct *summary) string {
	if s.target == targetDirect || direct == nil || direct.p50 == 0 {
		return "-"
	}
	return fmt.Sprintf("%s %.2f×", fmtDelta(s.p50-direct.p50), float64(s.p50)/float64(direct.p50))
}

func overProxy(s, direct, proxy *summary) string {
	if s.target != targetGateway || direct == nil || proxy == nil {
		return "-"
	}
	return fmt.Sprintf("%s ovh %s", fmtDelta(s.p50-proxy.p50), overheadRatio(s, direct, proxy))
}

// overheadRatio is the gateway's p50 overhead over direct divided by the
// proxy's; noise can make the proxy's overhead zero or less at low load.
func overheadRatio(gw, direct, proxy *summary) string {
	ovhProxy := proxy.p50 - direct.p50
	if ovhProxy <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f×", float64(gw.p50-direct.p50)/float64(ovhProxy))
}

func reqPerSec(s, proxy *summary) string {
	if s.target != targetGateway || proxy == nil || proxy.rps == 0 {
		return fmt.Sprintf("%.0f", s.rps)
	}
	return fmt.Sprintf("%.0f (%.0f%%)", s.rps, 100*s.rps/proxy.rps)
}

func ttfbCell(s, proxy *summary) string {
	if !s.c.stream {
		return "-"
	}
	if s.target != targetGateway || proxy == nil {
		return fmtDur(s.ttfb50)
	}
	return fmt.Sprintf("%s (%s)", fmtDur(s.ttfb50), fmtDelta(s.ttfb50-proxy.ttfb50))
}

// ownAllocs subtracts what the load generator and the upstream allocate,
// measured on the direct target.
func ownAllocs(s, direct *summary) string {
	if s.target == targetDirect || direct == nil {
		return "-"
	}
	return fmt.Sprintf("%.0f", s.allocsPerReq-direct.allocsPerReq)
}

// ownCPU is the CPU time per request beyond the direct target's (the load
// generator and the upstream), and for the gateway that ÷ the proxy's.
func ownCPU(s, direct, proxy *summary) string {
	if s.target == targetDirect || direct == nil {
		return "-"
	}
	own := s.cpuPerReq - direct.cpuPerReq
	if s.target != targetGateway || proxy == nil || proxy.cpuPerReq <= direct.cpuPerReq {
		return fmtDur(own)
	}
	return fmt.Sprintf("%s %.2f×", fmtDur(own), float64(own)/float64(proxy.cpuPerReq-direct.cpuPerReq))
}

// printTargets checks the results against the targets that the table can
// answer (close to a plain reverse proxy in the median, the tail, throughput
// and CPU); memory over time and 1,000 streams are -soak and
// -streams.
func printTargets(w io.Writer, t table, cases []benchCase, concurrency []int) {
	fmt.Fprintln(w, "\nTargets:")
	lo, hi := slices.Min(concurrency), slices.Max(concurrency)
	for i := range cases {
		c := &cases[i]
		if d, p, g := t.find(c, lo, targetDirect), t.find(c, lo, targetProxy), t.find(c, lo, targetGateway); lo == 1 && g != nil {
			ok := p.p50 > d.p50 && float64(g.p50-d.p50) <= 1.1*float64(p.p50-d.p50)
			fmt.Fprintf(w, "  %-16s p50 overhead at c=1: gateway %s, proxy %s → %s the proxy's (≤ 1.10×) %s\n",
				c.name, fmtDelta(g.p50-d.p50), fmtDelta(p.p50-d.p50), overheadRatio(g, d, p), verdict(ok))
			fmt.Fprintf(w, "  %-16s p99 at c=1: gateway %s, proxy %s → %.2f× (≤ 1.30×) %s\n",
				c.name, fmtDur(g.p99), fmtDur(p.p99), float64(g.p99)/float64(max(p.p99, 1)), verdict(float64(g.p99) <= 1.3*float64(p.p99)))
		}
		if d, p, g := t.find(c, hi, targetDirect), t.find(c, hi, targetProxy), t.find(c, hi, targetGateway); hi == 64 && g != nil && p.rps > 0 {
			fmt.Fprintf(w, "  %-16s req/s at c=64: gateway %.0f, proxy %.0f → %.0f%% (≥ 90%%) %s\n",
				c.name, g.rps, p.rps, 100*g.rps/p.rps, verdict(g.rps >= 0.9*p.rps))
			own, base := g.cpuPerReq-d.cpuPerReq, p.cpuPerReq-d.cpuPerReq
			if base > 0 {
				fmt.Fprintf(w, "  %-16s own CPU/req at c=64: gateway %s, proxy %s → %.2f× (≤ 1.20×) %s\n",
					c.name, fmtDur(own), fmtDur(base), float64(own)/float64(base), verdict(float64(own) <= 1.2*float64(base)))
			}
		}
		if g := t.find(c, hi, targetGateway); g != nil && g.hasSharedCPU {
			fmt.Fprintf(w, "  %-16s Redis's CPU/req at c=%d: %s more on the same cores (a process of its own: not in own CPU)\n",
				c.name, hi, fmtDur(g.sharedCPUPerReq))
		}
		if !c.stream {
			continue
		}
		var deltas []string
		worst := time.Duration(0)
		for _, conc := range concurrency {
			if p, g := t.find(c, conc, targetProxy), t.find(c, conc, targetGateway); g != nil {
				deltas = append(deltas, fmt.Sprintf("c=%d %s", conc, fmtDelta(g.ttfb50-p.ttfb50)))
				worst = max(worst, g.ttfb50-p.ttfb50)
			}
		}
		fmt.Fprintf(w, "  %-16s TTFB p50 gateway − proxy: %s (≤ +1ms) %s\n", c.name, strings.Join(deltas, ", "), verdict(worst <= time.Millisecond))
	}
	fmt.Fprintln(w, "  memory flat over time: -soak 60s; 1,000 open streams: -streams 1000")
}

func verdict(ok bool) string {
	if ok {
		return "ok"
	}
	return "MISSED"
}

// fmtDur shows a duration in µs below 10 ms, in ms below 10 s, else in s.
func fmtDur(d time.Duration) string {
	switch {
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}

// fmtDelta is a signed difference in µs.
func fmtDelta(d time.Duration) string { return fmt.Sprintf("%+dµs", d.Microseconds()) }

func printLegend(w io.Writer, cases []benchCase) {
	fmt.Fprintln(w, "\nCases:")
	for _, c := range cases {
		fmt.Fprintf(w, "  %-16s %s, %d-byte request\n", c.name, c.about, len(c.body))
	}
	fmt.Fprintln(w, "over direct: p50 difference and ratio; over proxy: p50 difference, and ovh = the gateway's overhead over direct ÷ the proxy's;")
	fmt.Fprintln(w, "req/s (%): the gateway's share of the proxy's; ttfb (…): gateway − proxy; allocs/req: the whole process's")
	fmt.Fprintln(w, "(load generator and upstream included); own allocs, own CPU/req: minus the direct target's (for the gateway also ÷ the proxy's);")
	fmt.Fprintln(w, "peak RSS: the process's, per run.")
}

// printGatewayState shows what the gateway's pools and log writer did over
// the whole benchmark, warm-ups included.
func printGatewayState(w io.Writer, e *env) {
	fmt.Fprintln(w, "\nGateway:")
	served := e.gateway.served()
	for _, pool := range []string{poolOpenAI, poolAnthropic} {
		var total int64
		for _, n := range served[pool] {
			total += n
		}
		var parts []string
		for i := range poolWeights {
			name := fmt.Sprintf("%s-%d", pool, i+1)
			share := 0.0
			if total > 0 {
				share = float64(served[pool][name]) / float64(total)
			}
			parts = append(parts, fmt.Sprintf("%s %.2f", name, share))
		}
		fmt.Fprintf(w, "  pool %s shares of %d requests (weights 5/3/2 → 0.50/0.30/0.20): %s\n", pool, total, strings.Join(parts, ", "))
	}
	fmt.Fprintf(w, "  request logs dropped: %d\n", e.gateway.proxy.LogsDropped())
}

func minBody(cases []benchCase) int {
	n := len(cases[0].body)
	for _, c := range cases {
		n = min(n, len(c.body))
	}
	return n
}

func maxBody(cases []benchCase) int {
	n := 0
	for _, c := range cases {
		n = max(n, len(c.body))
	}
	return n
}
