package handlers

import (
	"strings"
	"testing"
	"time"
)

func TestAnswerMessage(t *testing.T) {
	for _, c := range []struct {
		ok   bool
		body string
		want string
	}{
		{true, `{"data":[{"id":"a"}]}`, "1 model listed"},
		{true, `not json`, ""},
		{false, `{"error":{"message":"bad key"}}`, "bad key"},
		{false, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`, "invalid x-api-key"},
		{false, `{"error":"plain"}`, "plain"},
		{false, `<html>  Bad
		Gateway </html>`, "<html> Bad Gateway </html>"},
		{false, ``, "502 Bad Gateway"},
	} {
		if got := answerMessage(c.ok, "502 Bad Gateway", []byte(c.body)); got != c.want {
			t.Errorf("answerMessage(%v, %q) = %q, want %q", c.ok, c.body, got, c.want)
		}
	}
}

// TestBarChart: one rectangle per non-zero value, stacked, inside the plot.
func TestBarChart(t *testing.T) {
	axis := chartAxis{ticks: []string{"a", "b", "c", "d"}, tips: []string{"A", "B", "C", "D"}}
	c := barChart("Requests", "chart-x", axis, []chartSeries{
		{"ok", 0, []float64{3, 0, 5, 1}},
		{"failed", 1, []float64{1, 0, 0, 2}},
	}, compactText)
	if len(c.Bars) != 5 {
		t.Fatalf("%d bars, want 5 (one per non-zero value)", len(c.Bars))
	}
	if c.Empty || len(c.Legend) != 2 || len(c.YTicks) != 3 || c.YTicks[2].Label != "5" {
		t.Errorf("chart: empty %v, legend %v, y ticks %v", c.Empty, c.Legend, c.YTicks)
	}
	for _, b := range c.Bars {
		if b.X < chartLeft || b.X+b.W > chartRight || b.Y < chartTop-0.01 || b.Y+b.H > chartBottom+0.01 {
			t.Errorf("bar %+v outside the plot", b)
		}
	}
	// The failed bar of slot a sits on its ok bar: 3 + 1 of a scale of 5.
	ok, failed := c.Bars[0], c.Bars[1]
	if failed.Series != 1 || !closeTo(failed.Y+failed.H, ok.Y) || !closeTo(ok.H, 3*(chartBottom-chartTop)/5) {
		t.Errorf("stacking: ok %+v failed %+v", ok, failed)
	}
	if !strings.HasPrefix(failed.Label, "A · failed: 1") {
		t.Errorf("tooltip %q", failed.Label)
	}
	empty := barChart("Cost", "chart-y", axis, []chartSeries{{"cost", 0, make([]float64, 4)}}, usdText)
	if !empty.Empty || len(empty.Bars) != 0 {
		t.Errorf("an all-zero chart: %+v", empty)
	}
}

func TestLineChart(t *testing.T) {
	axis := chartAxis{ticks: []string{"a", "b", "c"}, tips: []string{"A", "B", "C"}}
	c := lineChart("Latency", "chart-l", axis, []float64{100, 0, 250}, []bool{true, false, true}, latencyText)
	if len(c.Points) != 2 || strings.Count(c.Line, ",") != 2 || c.Empty {
		t.Errorf("line: %q, %d points", c.Line, len(c.Points))
	}
	if c := lineChart("Latency", "chart-l", axis, make([]float64, 3), make([]bool, 3), latencyText); !c.Empty || c.Line != "" {
		t.Errorf("a line without points: %+v", c)
	}
	// Fast members: the axis below a millisecond still reads as numbers.
	fast := lineChart("Latency", "chart-l", axis, []float64{0.3, 0.4, 0.2}, []bool{true, true, true}, latencyText)
	var labels []string
	for _, tick := range fast.YTicks {
		labels = append(labels, tick.Label)
	}
	if strings.Join(labels, " / ") != "0 ms / 0.25 ms / 0.5 ms" {
		t.Errorf("the axis of a fast member reads %q", strings.Join(labels, " / "))
	}
}

func TestNiceCeil(t *testing.T) {
	for in, want := range map[float64]float64{0: 1, 0.3: 0.5, 1: 1, 3: 5, 7: 10, 120: 200, 2400: 2500, 0.004: 0.005} {
		if got := niceCeil(in); !closeTo(got, want) {
			t.Errorf("niceCeil(%v) = %v, want %v", in, got, want)
		}
	}
}

func TestUsageReportBuckets(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 34, 0, 0, time.UTC)
	rep := newUsageReport(usageWindows[1], now) // 24 h by the hour
	if len(rep.buckets) != 24 || !rep.until.Equal(time.Date(2026, 3, 1, 13, 0, 0, 0, time.UTC)) ||
		!rep.since.Equal(time.Date(2026, 2, 28, 13, 0, 0, 0, time.UTC)) {
		t.Fatalf("window %v – %v, %d buckets", rep.since, rep.until, len(rep.buckets))
	}
}

func TestFormatting(t *testing.T) {
	for in, want := range map[float64]string{0: "$0", 1234.5: "$1,234.50", 0.5: "$0.5", 0.0034: "$0.0034", 0.00001234: "$0.000012", 12: "$12.00"} {
		if got := usdText(in); got != want {
			t.Errorf("usdText(%v) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[time.Duration]string{0: "now", 42 * time.Second: "42 s", 90 * time.Minute: "1 h 30 min",
		2 * time.Hour: "2 h", 72 * time.Hour: "3 days"} {
		if got := remainingText(in); got != want {
			t.Errorf("remainingText(%v) = %q, want %q", in, got, want)
		}
	}
	if got := compactText(53600); got != "53.6k" {
		t.Errorf("compactText = %q", got)
	}
	if got := shorten("héllo wörld", 2); got != "h…" {
		t.Errorf("shorten cuts a character: %q", got)
	}
}

func closeTo(a, b float64) bool { d := a - b; return d < 1e-6 && d > -1e-6 }

// TestEmptyChartsSayWhy: with no requests every chart says so; with
// requests that counted no tokens and cost nothing, the token and cost
// charts say that instead of "no requests".
func TestEmptyChartsSayWhy(t *testing.T) {
	rep := newUsageReport(usageWindows[0], time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC))
	for _, c := range usageCharts(rep) {
		if !c.Empty || c.EmptyText != "" {
			t.Errorf("%s without requests: empty %v, %q", c.Title, c.Empty, c.EmptyText)
		}
	}
	rep.buckets[3].Requests, rep.buckets[3].Successes, rep.buckets[3].LatencyMS = 1, 1, 5
	want := map[string]string{"Requests": "", "Average latency": "", "Tokens": "no tokens counted", "Cost": "$0 in this window"}
	for _, c := range usageCharts(rep) {
		if c.Empty != (want[c.Title] != "") || c.EmptyText != want[c.Title] {
			t.Errorf("%s with a free request: empty %v, %q", c.Title, c.Empty, c.EmptyText)
		}
	}
}
