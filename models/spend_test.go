package models_test

import (
	"context"
	"testing"
	"time"

	"gateway/models"
	"gateway/models/dbtest"
)

// TestListSpend: the spend of every key, user and team with a budget, and
// only those, with the period's end, as the rows written put it there.
func TestListSpend(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		team := &models.Team{Name: "t", Budget: models.Budget{MaxBudgetUSD: ptr(5.0)}}
		if err := s.CreateTeam(ctx, team); err != nil {
			t.Fatal(err)
		}
		user := &models.User{Name: "u", Budget: models.Budget{SoftBudgetUSD: ptr(1.0)}}
		if err := s.CreateUser(ctx, user); err != nil {
			t.Fatal(err)
		}
		budgeted := &models.VirtualKey{Name: "b", Budget: models.Budget{MaxBudgetUSD: ptr(2.0), BudgetDuration: "1d"}, UserID: &user.ID, TeamID: &team.ID}
		plain := &models.VirtualKey{Name: "p"}
		for _, k := range []*models.VirtualKey{budgeted, plain} {
			if _, err := s.CreateKey(ctx, k); err != nil {
				t.Fatal(err)
			}
		}
		next := time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC)
		entries := []models.LogEntry{
			{Log: models.RequestLog{RequestID: "a", KeyID: &budgeted.ID, UserID: &user.ID, TeamID: &team.ID, CostUSD: 0.25, Status: 200}},
			{Reset: &models.SpendReset{Holder: models.SpendKey, ID: budgeted.ID, Next: next}},
			{Log: models.RequestLog{RequestID: "b", KeyID: &budgeted.ID, UserID: &user.ID, TeamID: &team.ID, CostUSD: 0.5, Status: 200}},
			{Log: models.RequestLog{RequestID: "c", KeyID: &plain.ID, CostUSD: 1, Status: 200}},
		}
		if err := s.SaveLogEntries(ctx, entries, false); err != nil {
			t.Fatal(err)
		}
		rows, err := s.ListSpend(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]models.HolderSpend{}
		for _, r := range rows {
			got[r.Holder] = r
		}
		if len(rows) != 3 {
			t.Fatalf("got %d rows, want the budgeted key, user and team: %+v", len(rows), rows)
		}
		if k := got[models.SpendKey]; k.ID != budgeted.ID || k.SpendUSD != 0.5 || k.BudgetResetAt == nil || !k.BudgetResetAt.Equal(next) {
			t.Errorf("key: %+v, want id %d, $0.5 since the reset at %s", k, budgeted.ID, next)
		}
		if u := got[models.SpendUser]; u.ID != user.ID || u.SpendUSD != 0.75 || u.BudgetResetAt != nil {
			t.Errorf("user: %+v, want $0.75 and no period", u)
		}
		if tm := got[models.SpendTeam]; tm.ID != team.ID || tm.SpendUSD != 0.75 {
			t.Errorf("team: %+v, want $0.75", tm)
		}
	})
}

// TestClusterID: every gateway on one database gets the same id, made once.
func TestClusterID(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		first, err := s.ClusterID(ctx)
		if err != nil || len(first) != 16 {
			t.Fatalf("cluster id %q, %v: want 16 hex digits", first, err)
		}
		again, err := s.ClusterID(ctx)
		if err != nil || again != first {
			t.Fatalf("second cluster id %q, %v: want %q", again, err, first)
		}
	})
}

// TestResetSpendFollowsItsPeriod: a reset applies to the period it follows,
// even when it moves the end earlier (the period was shortened), and never
// to a newer one; written twice, it changes nothing the second time.
func TestResetSpendFollowsItsPeriod(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		k := &models.VirtualKey{Name: "k", Budget: models.Budget{MaxBudgetUSD: ptr(5.0), BudgetDuration: "1mo"}}
		if _, err := s.CreateKey(ctx, k); err != nil {
			t.Fatal(err)
		}
		monthEnd := time.Date(2027, 1, 31, 9, 30, 0, 123456000, time.UTC)
		dayEnd := time.Date(2027, 1, 10, 9, 30, 0, 123456000, time.UTC)
		nextDay := dayEnd.Add(24 * time.Hour)
		row := func(id string, cost float64) models.LogEntry {
			return models.LogEntry{Log: models.RequestLog{RequestID: id, KeyID: &k.ID, CostUSD: cost, Status: 200}}
		}
		reset := func(next, from time.Time) models.LogEntry {
			return models.LogEntry{Reset: &models.SpendReset{Holder: models.SpendKey, ID: k.ID, Next: next, From: from}}
		}
		steps := []struct {
			what    string
			entries []models.LogEntry
			spend   float64
			end     time.Time
		}{
			{"the first period's end written", []models.LogEntry{row("a", 1), reset(monthEnd, time.Time{}), row("b", 0.5)}, 0.5, monthEnd},
			{"shortened to a day: the month's reset moves the end earlier", []models.LogEntry{reset(dayEnd, monthEnd), row("c", 0.25)}, 0.25, dayEnd},
			{"the same reset again (another replica)", []models.LogEntry{reset(dayEnd, monthEnd)}, 0.25, dayEnd},
			{"a stale reset of the month, replayed late", []models.LogEntry{reset(dayEnd.Add(-time.Hour), monthEnd)}, 0.25, dayEnd},
			{"the next day", []models.LogEntry{reset(nextDay, dayEnd), row("d", 2)}, 2, nextDay},
		}
		for _, st := range steps {
			if err := s.SaveLogEntries(ctx, st.entries, false); err != nil {
				t.Fatalf("%s: %v", st.what, err)
			}
			got, err := s.GetKey(ctx, k.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.SpendUSD != st.spend || got.BudgetResetAt == nil || !got.BudgetResetAt.Equal(st.end) {
				t.Fatalf("%s: spend $%v, period end %v; want $%v, %v", st.what, got.SpendUSD, got.BudgetResetAt, st.spend, st.end)
			}
		}
	})
}
