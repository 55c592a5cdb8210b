package handlers

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"gateway/proxy/pricing"
	"gateway/views"
)

// Formatting of numbers, money and times for the admin pages.

// usdText formats USD: cents from a dollar up, four decimals below (a
// request's fraction of a cent still shows), six below a hundredth of a cent.
func usdText(f float64) string {
	switch a := math.Abs(f); {
	case a == 0:
		return "$0"
	case a >= 1:
		return "$" + withThousands(fmt.Sprintf("%.2f", f))
	case a >= 0.0001:
		return "$" + trimZero(fmt.Sprintf("%.4f", f))
	default:
		return "$" + trimZero(fmt.Sprintf("%.6f", f))
	}
}

// usdExact is USD to the last digit the amount has: a request's cost as
// the provider bills it ("$0.031509").
func usdExact(f float64) string { return "$" + pricing.Decimal(f) }

// spendOf is spend against an optional budget.
func spendOf(spend float64, budget *float64, period string) views.Spend {
	s := views.Spend{SpendUSD: usdText(spend)}
	if budget == nil {
		return s
	}
	s.BudgetUSD, s.Period = usdText(*budget), period
	switch {
	case *budget <= 0:
		s.Fraction, s.Over = 1, spend > 0 || *budget == 0
	default:
		s.Fraction = min(spend / *budget, 1)
		s.Over = spend >= *budget
	}
	return s
}

// countText formats a whole number with thousands separators.
func countText(n int64) string {
	return withThousands(strconv.FormatInt(n, 10))
}

// compactText formats a large number short: 1.2k, 3.4M.
func compactText(f float64) string {
	switch a := math.Abs(f); {
	case a >= 1e9:
		return trimZero(fmt.Sprintf("%.1f", f/1e9)) + "G"
	case a >= 1e6:
		return trimZero(fmt.Sprintf("%.1f", f/1e6)) + "M"
	case a >= 1e3:
		return trimZero(fmt.Sprintf("%.1f", f/1e3)) + "k"
	case a == math.Trunc(a):
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	return trimZero(fmt.Sprintf("%.2f", f))
}

func trimZero(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func withThousands(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	intPart, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if hasFrac {
		return sign + b.String() + "." + frac
	}
	return sign + b.String()
}

// rateText formats a fraction as a percentage; "–" without requests.
func rateText(ok, total int64) string {
	if total == 0 {
		return "–"
	}
	return trimZero(fmt.Sprintf("%.1f", float64(ok)*100/float64(total))) + "%"
}

// latencyText formats milliseconds.
func latencyText(ms float64) string {
	if ms >= 10000 {
		return trimZero(fmt.Sprintf("%.1f", ms/1000)) + " s"
	}
	if ms < 10 && ms != math.Round(ms) {
		// A fast member's average, and a chart's axis below 10 ms, would
		// all read "0 ms".
		return trimZero(fmt.Sprintf("%.2f", ms)) + " ms"
	}
	return strconv.FormatFloat(math.Round(ms), 'f', 0, 64) + " ms"
}

// limitText formats an optional limit; "–" when there is none.
func limitText(p *int) string {
	if p == nil {
		return "–"
	}
	return countText(int64(*p))
}

const timeLayout = "2006-01-02 15:04:05"

// stampText formats a time in UTC.
func stampText(t time.Time) string {
	return t.UTC().Format(timeLayout)
}

// remainingText says how long until a deadline, coarsely: "1 h 59 min".
func remainingText(d time.Duration) string {
	switch {
	case d <= 0:
		return "now"
	case d < time.Minute:
		return strconv.Itoa(int(d.Seconds())) + " s"
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + " min"
	case d < 48*time.Hour:
		h, m := int(d.Hours()), int(d.Minutes())%60
		if m == 0 {
			return strconv.Itoa(h) + " h"
		}
		return fmt.Sprintf("%d h %d min", h, m)
	}
	return strconv.Itoa(int(d.Hours()/24)) + " days"
}

// shorten cuts s to at most n bytes on a character boundary, marking the cut.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// tierText names an entry's priority as the pages show it: "tier 0".
func tierText(priority int) string {
	return "tier " + strconv.Itoa(priority)
}

// limitsText is an entry's rate limits, "60 rpm · 100k tpm"; "" without any.
func limitsText(rpm, tpm *int) string {
	var parts []string
	if rpm != nil {
		parts = append(parts, compactText(float64(*rpm))+" rpm")
	}
	if tpm != nil {
		parts = append(parts, compactText(float64(*tpm))+" tpm")
	}
	return strings.Join(parts, " · ")
}

// formatNumber is a number as the pages show it, a plain decimal.
func formatNumber(f float64) string { return pricing.Decimal(f) }

// priceText is a price per million tokens, "?" when there is none.
func priceText(p pricing.Price) string {
	if !p.Known() {
		return "?"
	}
	return p.Rate.String()
}

// formatShare is a fraction 0..1 as a percentage with at most one decimal.
func formatShare(f float64) string {
	return strconv.FormatFloat(math.Round(f*1000)/10, 'f', -1, 64) + "%"
}

// formatDuration is d in its two largest units: "3d 14h", "5m 3s", "42s".
func formatDuration(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	units := []struct {
		secs int64
		name string
	}{{86400, "d"}, {3600, "h"}, {60, "m"}, {1, "s"}}
	var parts []string
	for _, u := range units {
		if n := s / u.secs; n > 0 || (u.secs == 1 && len(parts) == 0) {
			parts = append(parts, fmt.Sprintf("%d%s", n, u.name))
			s -= n * u.secs
		}
		if len(parts) == 2 {
			break
		}
	}
	return strings.Join(parts, " ")
}
