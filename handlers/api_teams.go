package handlers

import (
	"net/http"
	"time"

	"gateway/models"
)

// teamInput is the body of POST /api/teams and PATCH /api/teams/{id}, and
// what the Teams page's form decodes into.
type teamInput struct {
	Name           string   `json:"name" validate:"required,max=200,singleline"`
	MaxBudgetUSD   *float64 `json:"max_budget_usd" validate:"omitnil,gte=0"`
	SoftBudgetUSD  *float64 `json:"soft_budget_usd" validate:"omitnil,gte=0"`
	BudgetDuration string   `json:"budget_duration" validate:"omitempty,budgetduration"`
	RPMLimit       *int     `json:"rpm_limit" validate:"omitnil,gte=0"`
	TPMLimit       *int     `json:"tpm_limit" validate:"omitnil,gte=0"`
}

func teamInputOf(t *models.Team) teamInput {
	return teamInput{
		Name:           t.Name,
		MaxBudgetUSD:   t.MaxBudgetUSD,
		SoftBudgetUSD:  t.SoftBudgetUSD,
		BudgetDuration: t.BudgetDuration,
		RPMLimit:       t.RPMLimit,
		TPMLimit:       t.TPMLimit,
	}
}

func (in *teamInput) applyTo(t *models.Team) {
	t.Name = in.Name
	t.MaxBudgetUSD = in.MaxBudgetUSD
	t.SoftBudgetUSD = in.SoftBudgetUSD
	t.BudgetDuration = in.BudgetDuration
	t.RPMLimit = in.RPMLimit
	t.TPMLimit = in.TPMLimit
}

// teamJSON is a team in API answers.
type teamJSON struct {
	ID             int64      `json:"id"`
	Name           string     `json:"name"`
	MaxBudgetUSD   *float64   `json:"max_budget_usd"`
	SoftBudgetUSD  *float64   `json:"soft_budget_usd"`
	BudgetDuration string     `json:"budget_duration"`
	BudgetResetAt  *time.Time `json:"budget_reset_at"`
	SpendUSD       float64    `json:"spend_usd"`
	RPMLimit       *int       `json:"rpm_limit"`
	TPMLimit       *int       `json:"tpm_limit"`
	CreatedAt      time.Time  `json:"created_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
}

func teamJSONOf(t *models.Team) teamJSON {
	return teamJSON{
		ID:             t.ID,
		Name:           t.Name,
		MaxBudgetUSD:   t.MaxBudgetUSD,
		SoftBudgetUSD:  t.SoftBudgetUSD,
		BudgetDuration: t.BudgetDuration,
		BudgetResetAt:  t.BudgetResetAt,
		SpendUSD:       t.SpendUSD,
		RPMLimit:       t.RPMLimit,
		TPMLimit:       t.TPMLimit,
		CreatedAt:      t.CreatedAt,
		UpdatedAt:      t.UpdatedAt,
	}
}

// createTeam handles POST /api/teams.
func (a *App) createTeam(w http.ResponseWriter, r *http.Request) {
	var in teamInput
	if err := a.decodeBody(w, r, &in); err != nil {
		a.apiError(w, r, err)
		return
	}
	var t models.Team
	in.applyTo(&t)
	if err := a.store.CreateTeam(r.Context(), &t); err != nil {
		a.apiError(w, r, nameTaken(err, "team", in.Name))
		return
	}
	a.written(w, r, http.StatusCreated, teamJSONOf(&t))
}

// listTeams handles GET /api/teams.
func (a *App) listTeams(w http.ResponseWriter, r *http.Request) {
	listAs(a, w, r, a.store.ListTeams, teamJSONOf)
}

// updateTeam handles PATCH /api/teams/{id}.
func (a *App) updateTeam(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "team")
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	body, err := readBody(w, r)
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	var in teamInput
	t, err := a.store.UpdateTeam(r.Context(), id, func(t *models.Team) error {
		in = teamInputOf(t)
		if err := a.applyBody(body, &in); err != nil {
			return err
		}
		in.applyTo(t)
		return nil
	})
	if err != nil {
		a.apiError(w, r, nameTaken(err, "team", in.Name))
		return
	}
	a.written(w, r, http.StatusOK, teamJSONOf(t))
}

// deleteTeam handles DELETE /api/teams/{id}; its users and keys stay,
// without a team.
func (a *App) deleteTeam(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "team")
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	if err := a.store.DeleteTeam(r.Context(), id); err != nil {
		a.apiError(w, r, err)
		return
	}
	a.written(w, r, http.StatusNoContent, nil)
}
