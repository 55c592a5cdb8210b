package proxy

import (
	"testing"
	"time"

	"gateway/models"
	"gateway/proxy/requestlog"
)

// TestBudgetRefresh: the stored spend replaces what was read before, and
// the spend settled here stays counted until the log writer has committed
// its row; a stored spend of another period is not taken.
func TestBudgetRefresh(t *testing.T) {
	end := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	b := &budget{period: "1d", resetAt: end, storedPeriod: end, stored: 1}
	b.addPending(5, 0.25)
	b.addPending(6, 0.5)
	if got := b.spent(); got != 1.75 {
		t.Fatalf("spent %v, want 1.75", got)
	}
	// The database has row 5 (and another replica's $2): row 6 is still ours alone.
	b.refresh(3.25, &end, 5)
	if got := b.spent(); got != 3.75 {
		t.Fatalf("after a refresh with row 5 committed: spent %v, want 3.25 + 0.5", got)
	}
	old := end.Add(-24 * time.Hour)
	b.refresh(9, &old, 6)
	if got := b.spent(); got != 3.75 {
		t.Fatalf("a spend of the period before was taken: spent %v", got)
	}
	b.refresh(4, &end, 6)
	if got := b.spent(); got != 4 || len(b.pending) != 0 {
		t.Fatalf("with every row committed: spent %v, %d pending; want 4, none", got, len(b.pending))
	}
	// A long outage: the pending list stays bounded, and nothing is lost.
	for i := range 1000 {
		b.addPending(int64(10+i), 0.001)
	}
	if len(b.pending) > maxPending || b.spent() < 4+1-1e-9 || b.spent() > 4+1+1e-9 {
		t.Fatalf("after 1000 pending costs: %d kept, spent %v; want at most %d kept and 5", len(b.pending), b.spent(), maxPending)
	}
}

// TestBudgetPeriods: a budget starts in the period of its stored spend, a
// holder without a reset written yet being in its first; every replica
// names the same periods, rolls over to the same end, and reads the stored
// spend of the period it is in, not of another.
func TestBudgetPeriods(t *testing.T) {
	created := time.Date(2026, 1, 31, 10, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	s := &Server{logs: requestlog.New(nil, nil, 16, "")}
	h := holder{"key", 1}
	limits := func(period string, spend float64, resetAt *time.Time) budgetLimits {
		hard := 10.0
		return budgetLimits{name: "k", created: created,
			Budget: models.Budget{MaxBudgetUSD: &hard, BudgetDuration: period, SpendUSD: spend, BudgetResetAt: resetAt}}
	}

	t.Run("first period, no reset written", func(t *testing.T) {
		a := newAccounts()
		now := created.Add(5 * time.Hour)
		b := a.budgetFor(h, limits("1d", 2, nil), now)
		if !b.resetAt.Equal(created.Add(day)) || b.spent() != 2 {
			t.Fatalf("resets at %s with $%v spent; want %s, $2", b.resetAt, b.spent(), created.Add(day))
		}
		b.refresh(3, nil, 0) // another replica spent $1 more
		if b.spent() != 3 {
			t.Fatalf("the first period's stored spend was not taken: $%v, want $3", b.spent())
		}
	})

	t.Run("a later period, no reset written", func(t *testing.T) {
		a := newAccounts()
		now := created.Add(50 * time.Hour)
		b := a.budgetFor(h, limits("1d", 7, nil), now)
		s.rollOver(b, h, now) // the next reservation
		want := created.Add(3 * day)
		if !b.resetAt.Equal(want) || b.spent() != 0 {
			t.Fatalf("after rolling over: resets at %s, $%v spent; want %s, $0", b.resetAt, b.spent(), want)
		}
		b.refresh(7, nil, 0) // the reset not stored yet: the old spend is not this period's
		if b.spent() != 0 {
			t.Fatalf("an earlier period's spend was taken: $%v", b.spent())
		}
		b.refresh(0.5, &want, 0)
		if b.spent() != 0.5 {
			t.Fatalf("this period's spend was not taken: $%v", b.spent())
		}
	})

	t.Run("months from the creation, not from clamped ends", func(t *testing.T) {
		a := newAccounts()
		feb := time.Date(2026, 2, 28, 10, 0, 0, 0, time.UTC)
		b := a.budgetFor(h, limits("1mo", 0, &feb), time.Date(2026, 2, 10, 0, 0, 0, 0, time.UTC))
		s.rollOver(b, h, feb.Add(time.Minute))
		if want := time.Date(2026, 3, 31, 10, 0, 0, 0, time.UTC); !b.resetAt.Equal(want) {
			t.Fatalf("after February: resets at %s, want %s (not March 28)", b.resetAt, want)
		}
	})

	t.Run("a period shortened", func(t *testing.T) {
		a := newAccounts()
		now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
		monthEnd := time.Date(2026, 3, 31, 10, 0, 0, 0, time.UTC)
		b := a.budgetFor(h, limits("1mo", 4, &monthEnd), now)
		a.budgetFor(h, limits("1d", 4, &monthEnd), now)
		if want := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC); !b.resetAt.Equal(want) || b.spent() != 4 {
			t.Fatalf("after shortening to a day: resets at %s with $%v; want %s, $4", b.resetAt, b.spent(), want)
		}
		b.refresh(5, &monthEnd, 0) // still the stored period until the first reset
		if b.spent() != 5 {
			t.Fatalf("the stored spend was not taken: $%v", b.spent())
		}
	})
}
