package handlers

import (
	"net/http"
	"time"

	"gateway/models"
)

// teamInput is the body of POST /api/teams and PATCH /api/teams/{id}, and
// what the Teams page's form decodes into.
type teamInput struct {
	Name string `json:"name" validate:"required,max=200,singleline"`
	budgetInput
	limitsInput
}

func teamInputOf(t *models.Team) teamInput {
	return teamInput{Name: t.Name, budgetInput: budgetInputOf(t.Budget), limitsInput: limitsInputOf(t.RateLimits)}
}

func (in *teamInput) applyTo(t *models.Team) {
	t.Name = in.Name
	in.budgetInput.applyTo(&t.Budget)
	in.limitsInput.applyTo(&t.RateLimits)
}

// teamJSON is a team in API answers.
type teamJSON struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	budgetJSON
	limitsJSON
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func teamJSONOf(t *models.Team) teamJSON {
	return teamJSON{
		ID:         t.ID,
		Name:       t.Name,
		budgetJSON: budgetJSONOf(t.Budget),
		limitsJSON: limitsJSONOf(t.RateLimits),
		CreatedAt:  t.CreatedAt,
		UpdatedAt:  t.UpdatedAt,
	}
}

// refused words the store's refusal of the team: its name may be taken.
func (in *teamInput) refused(err error) error {
	return nameTaken(err, "team", in.Name)
}

// createTeam handles POST /api/teams.
func (a *App) createTeam(w http.ResponseWriter, r *http.Request) {
	createAs(a, w, r, newRow[teamInput](a, a.store.CreateTeam), writtenAs(a, teamJSONOf))
}

// listTeams handles GET /api/teams.
func (a *App) listTeams(w http.ResponseWriter, r *http.Request) {
	listAs(a, w, r, a.store.ListTeams, teamJSONOf)
}

// updateTeam handles PATCH /api/teams/{id}.
func (a *App) updateTeam(w http.ResponseWriter, r *http.Request) {
	patchAs(a, w, r, "team", overRow(a, a.store.UpdateTeam, teamInputOf), writtenAs(a, teamJSONOf))
}

// deleteTeam handles DELETE /api/teams/{id}; its users and keys stay,
// without a team.
func (a *App) deleteTeam(w http.ResponseWriter, r *http.Request) {
	deleteAs(a, w, r, "team", a.store.DeleteTeam, a.written)
}

// showTeam handles GET /api/teams/{id}: one team, its spend_usd in the
// current budget period included.
func (a *App) showTeam(w http.ResponseWriter, r *http.Request) {
	showAs(a, w, r, "team", a.store.GetTeam, teamJSONOf)
}
