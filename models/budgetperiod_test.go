package models_test

import (
	"testing"
	"time"

	"gateway/models"
)

// TestBudgetPeriodEnd: periods count from the anchor (the holder's creation),
// so every replica that reloads at its own moment names the same period.
func TestBudgetPeriodEnd(t *testing.T) {
	anchor := time.Date(2026, 1, 31, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		period string
		now    time.Time
		want   time.Time
	}{
		{"", anchor.Add(time.Hour), time.Time{}},
		{"30m", anchor.Add(45 * time.Minute), anchor.Add(time.Hour)},
		{"30m", anchor.Add(time.Hour), anchor.Add(90 * time.Minute)},     // a boundary starts the next one
		{"1d", anchor.Add(-36 * time.Hour), anchor.Add(-24 * time.Hour)}, // anchor after now: a later clock
		{"7d", anchor.Add(20 * 24 * time.Hour), anchor.Add(21 * 24 * time.Hour)},
		{"1mo", time.Date(2026, 2, 15, 0, 0, 0, 0, time.UTC), time.Date(2026, 2, 28, 10, 0, 0, 0, time.UTC)},
		{"1mo", time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 31, 10, 0, 0, 0, time.UTC)},
		{"3mo", time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 7, 31, 10, 0, 0, 0, time.UTC)},
		{"1mo", time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 12, 31, 10, 0, 0, 0, time.UTC)},
		{"nonsense", anchor, time.Time{}},
	}
	for _, tt := range tests {
		if got := models.BudgetPeriodEnd(tt.period, anchor, tt.now); !got.Equal(tt.want) {
			t.Errorf("BudgetPeriodEnd(%s, now %s) = %s, want %s", tt.period, tt.now, got, tt.want)
		}
	}
	// Two replicas reloading an hour apart agree.
	a := models.BudgetPeriodEnd("1d", anchor, anchor.Add(50*time.Hour))
	b := models.BudgetPeriodEnd("1d", anchor, anchor.Add(51*time.Hour))
	if !a.Equal(b) {
		t.Errorf("replicas disagree on the period: %s and %s", a, b)
	}
}

// TestParseBudgetPeriod: the syntax the API and the forms accept is the one
// the proxy computes periods from.
func TestParseBudgetPeriod(t *testing.T) {
	for s, want := range map[string]bool{
		"30s": true, "30m": true, "12h": true, "1d": true, "7d": true, "1mo": true, "9999d": true,
		"": false, "0d": false, "01d": false, "+1d": false, "10000d": false, "1y": false, "d": false,
		"1 d": false, "mo": false, "-1mo": false, "1.5h": false, "nonsense": false,
	} {
		if got := models.ValidBudgetPeriod(s); got != want {
			t.Errorf("ValidBudgetPeriod(%q) = %v, want %v", s, got, want)
		}
	}
}
