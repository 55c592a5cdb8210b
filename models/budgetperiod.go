package models

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// BudgetPeriod is a budget's reset period (budget_duration) read once: a
// count of seconds, minutes, hours, days or calendar months. Keys, users and
// teams share it; the admin side validates with it and the proxy computes
// period ends with it, so both read the same syntax.
type BudgetPeriod struct {
	step   time.Duration // fixed-length periods
	months int           // calendar-month periods
}

// ParseBudgetPeriod reads "30s", "30m", "12h", "7d" or "1mo": 1 to 9999
// units, no sign, no leading zero, no space.
func ParseBudgetPeriod(s string) (BudgetPeriod, error) {
	num, unit := s, ""
	for _, u := range []string{"mo", "s", "m", "h", "d"} {
		if n, ok := strings.CutSuffix(s, u); ok {
			num, unit = n, u
			break
		}
	}
	n, err := strconv.Atoi(num)
	if unit == "" || err != nil || n < 1 || n > 9999 || num[0] < '1' || num[0] > '9' {
		return BudgetPeriod{}, fmt.Errorf("budget period %q: want a whole number (1-9999) and s, m, h, d or mo, such as 7d or 1mo", s)
	}
	switch unit {
	case "mo":
		return BudgetPeriod{months: n}, nil
	case "s":
		return BudgetPeriod{step: time.Duration(n) * time.Second}, nil
	case "m":
		return BudgetPeriod{step: time.Duration(n) * time.Minute}, nil
	case "h":
		return BudgetPeriod{step: time.Duration(n) * time.Hour}, nil
	}
	return BudgetPeriod{step: time.Duration(n) * 24 * time.Hour}, nil
}

// ValidBudgetPeriod reports whether s is a budget period ParseBudgetPeriod reads.
func ValidBudgetPeriod(s string) bool {
	_, err := ParseBudgetPeriod(s)
	return err == nil
}

// BudgetPeriodEnd is the end of the period of the given syntax that holds
// now, periods counted from anchor (a holder's creation, the same on every
// replica); zero without a period or with one that does not parse.
func BudgetPeriodEnd(period string, anchor, now time.Time) time.Time {
	if period == "" {
		return time.Time{}
	}
	p, err := ParseBudgetPeriod(period)
	if err != nil {
		return time.Time{}
	}
	return p.End(anchor, now)
}

// End is the end of the period that holds now, periods being counted from
// anchor. Calendar months are months, not 30 days, each counted from the
// anchor (never from a clamped end before it).
func (p BudgetPeriod) End(anchor, now time.Time) time.Time {
	if p.months > 0 {
		return p.monthsEnd(anchor, now)
	}
	if p.step <= 0 {
		return time.Time{}
	}
	k := now.Sub(anchor) / p.step
	if now.Before(anchor) {
		k-- // floor, not truncation
	}
	t := anchor.Add((k + 1) * p.step)
	for !t.After(now) {
		t = t.Add(p.step)
	}
	return t
}

func (p BudgetPeriod) monthsEnd(anchor, now time.Time) time.Time {
	step := p.months
	months := (now.Year()-anchor.Year())*12 + int(now.Month()) - int(anchor.Month())
	k := months / step
	if months < 0 && months%step != 0 {
		k-- // floor, not truncation
	}
	for k--; ; k++ {
		if t := addMonths(anchor, k*step); t.After(now) {
			return t
		}
	}
}

// addMonths is t k calendar months later, on the same day or the month's
// last when it is shorter (January 31 + 1 month is February 28).
func addMonths(t time.Time, k int) time.Time {
	y, m, d := t.Date()
	first := time.Date(y, m+time.Month(k), 1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location())
	last := first.AddDate(0, 1, -1).Day()
	return first.AddDate(0, 0, min(d, last)-1)
}
