package models_test

import (
	"slices"
	"testing"

	"gateway/models"
	"gateway/models/dbtest"
)

// TestBudgetColumns: the budget and limit fields embedded in keys, users and
// teams keep the column names of the tables they were first created with,
// and a stored budget reads back whole, on both databases.
func TestBudgetColumns(t *testing.T) {
	budget := []string{"max_budget_usd", "soft_budget_usd", "budget_duration", "budget_reset_at", "spend_usd"}
	limits := []string{"rpm_limit", "tpm_limit"}
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		for table, want := range map[string][]string{
			"teams":        slices.Concat(budget, limits),
			"users":        budget,
			"virtual_keys": slices.Concat(budget, limits),
		} {
			cols, err := s.DB().Migrator().ColumnTypes(table)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range cols {
				got = append(got, c.Name())
			}
			for _, name := range want {
				if !slices.Contains(got, name) {
					t.Errorf("%s has no column %s: %v", table, name, got)
				}
			}
		}
		five, sixty := 5.0, 60
		team := &models.Team{Name: "t", Budget: models.Budget{MaxBudgetUSD: &five, BudgetDuration: "1mo"},
			RateLimits: models.RateLimits{RPMLimit: &sixty}}
		if err := s.CreateTeam(t.Context(), team); err != nil {
			t.Fatal(err)
		}
		var raw struct {
			MaxBudgetUSD   float64
			BudgetDuration string
			RPMLimit       int
		}
		if err := s.DB().Table("teams").Select("max_budget_usd, budget_duration, rpm_limit").Where("id = ?", team.ID).Scan(&raw).Error; err != nil {
			t.Fatal(err)
		}
		if raw.MaxBudgetUSD != 5 || raw.BudgetDuration != "1mo" || raw.RPMLimit != 60 {
			t.Errorf("stored team budget %+v, want 5, 1mo, 60", raw)
		}
	})
}
