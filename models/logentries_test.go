package models_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"gateway/models"
	"gateway/models/dbtest"
)

// spendFixture is a key of a user of a team, for spend tests.
type spendFixture struct {
	team models.Team
	user models.User
	key  models.VirtualKey
}

func newSpendFixture(t *testing.T, s *models.Store) *spendFixture {
	t.Helper()
	ctx := context.Background()
	f := &spendFixture{team: models.Team{Name: "t"}}
	if err := s.CreateTeam(ctx, &f.team); err != nil {
		t.Fatal(err)
	}
	f.user = models.User{Name: "u", TeamID: &f.team.ID}
	if err := s.CreateUser(ctx, &f.user); err != nil {
		t.Fatal(err)
	}
	f.key = models.VirtualKey{Name: "k", UserID: &f.user.ID, TeamID: &f.team.ID}
	if _, err := s.CreateKey(ctx, &f.key); err != nil {
		t.Fatal(err)
	}
	return f
}

// row is a request log of the fixture's key costing usd.
func (f *spendFixture) row(id string, at time.Time, usd float64) models.LogEntry {
	return models.LogEntry{Log: models.RequestLog{RequestID: id, CreatedAt: at, Model: "m", Status: 200,
		KeyID: &f.key.ID, UserID: &f.user.ID, TeamID: &f.team.ID, CostUSD: usd}}
}

// spend reads the stored spend of the key, the user and the team.
func (f *spendFixture) spend(t *testing.T, s *models.Store) [3]float64 {
	t.Helper()
	ctx := context.Background()
	k, err := s.GetKey(ctx, f.key.ID)
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.GetUser(ctx, f.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	tm, err := s.GetTeam(ctx, f.team.ID)
	if err != nil {
		t.Fatal(err)
	}
	return [3]float64{k.SpendUSD, u.SpendUSD, tm.SpendUSD}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestSaveLogEntriesSpendFollowsRows: a row's cost is its key's, user's and
// team's spend, in the same transaction; a reset between rows zeroes what
// came before it and keeps what comes after.
func TestSaveLogEntriesSpendFollowsRows(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		f := newSpendFixture(t, s)
		now := time.Now().UTC()
		next := now.Add(24 * time.Hour)
		entries := []models.LogEntry{
			f.row("a", now, 0.25),
			f.row("b", now, 0.5),
			{Reset: &models.SpendReset{Holder: models.SpendKey, ID: f.key.ID, Next: next}},
			f.row("c", now.Add(time.Millisecond), 0.125),
		}
		if err := s.SaveLogEntries(ctx, entries, false); err != nil {
			t.Fatal(err)
		}
		got := f.spend(t, s)
		if want := [3]float64{0.125, 0.875, 0.875}; !near(got[0], want[0]) || !near(got[1], want[1]) || !near(got[2], want[2]) {
			t.Errorf("spend of key, user, team: got %v, want %v", got, want)
		}
		k, err := s.GetKey(ctx, f.key.ID)
		if err != nil || k.BudgetResetAt == nil || k.BudgetResetAt.Sub(next).Abs() > time.Microsecond {
			t.Errorf("key's next reset: %v (%v), want %v", k.BudgetResetAt, err, next)
		}
		logs, err := s.ListRequestLogs(ctx, models.LogFilter{})
		if err != nil || len(logs) != 3 {
			t.Fatalf("%d rows (%v), want 3", len(logs), err)
		}
	})
}

// TestSaveLogEntriesOnce: entries written again with once (their first
// transaction may have committed unseen) are stored once, spend included;
// without once they would be twice.
func TestSaveLogEntriesOnce(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		f := newSpendFixture(t, s)
		now := time.Now().UTC()
		first := []models.LogEntry{f.row("r1", now, 1), f.row("r2", now.Add(time.Millisecond), 2)}
		if err := s.SaveLogEntries(ctx, first, false); err != nil {
			t.Fatal(err)
		}
		again := append(first, f.row("r3", now.Add(2*time.Millisecond), 4), f.row("", now, 8))
		if err := s.SaveLogEntries(ctx, again, true); err != nil {
			t.Fatal(err)
		}
		logs, err := s.ListRequestLogs(ctx, models.LogFilter{})
		if err != nil || len(logs) != 4 {
			t.Fatalf("%d rows (%v), want 4: r1, r2, r3 once and the row without an id", len(logs), err)
		}
		if got := f.spend(t, s)[0]; !near(got, 15) {
			t.Errorf("key spend %v, want 15 (1+2+4+8)", got)
		}
	})
}

// TestRefused tells a database's refusal of content from its absence, with
// errors the real drivers return.
func TestRefused(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dsn, dataDir string) {
		s := dbtest.MustOpenStore(t, dsn, dataDir)
		ctx := context.Background()
		f := newSpendFixture(t, s)
		// A duplicate name: a constraint, on both databases.
		err := s.CreateTeam(ctx, &models.Team{Name: "t"})
		if err == nil || !models.Refused(err) {
			t.Errorf("duplicate team: %v, Refused %v; want refused", err, models.Refused(err))
		}
		if dsn != "" {
			// PostgreSQL keeps no year 300000 (SQLite stores it as text).
			far := time.Date(300000, 1, 1, 0, 0, 0, 0, time.UTC)
			err := s.SaveLogEntries(ctx, []models.LogEntry{f.row("far", far, 0)}, false)
			if err == nil || !models.Refused(err) {
				t.Errorf("timestamp out of range: %v, want refused", err)
			}
		}
		ctxDone, cancel := context.WithCancel(ctx)
		cancel()
		err = s.SaveLogEntries(ctxDone, []models.LogEntry{f.row("x", time.Now(), 0)}, false)
		if err == nil || models.Refused(err) {
			t.Errorf("cancelled: %v; want an error that is not a refusal", err)
		}
		if models.Refused(fmt.Errorf("wrapped: %w", errors.New("connection refused"))) {
			t.Error("a connection error was taken for a refusal")
		}
	})
}
