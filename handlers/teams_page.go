package handlers

import (
	"net/http"

	"gateway/models"
	"gateway/views"
)

// teamsTable is the Teams page; a team is edited in its row or on a page
// of its own.
func (a *App) teamsTable() *tablePage[views.TeamForm, views.TeamsPage] {
	return &tablePage[views.TeamForm, views.TeamsPage]{
		app: a, title: "Teams", list: "teams", what: "team",
		build: func(r *http.Request, add views.TeamForm, edit *views.TeamForm) (views.TeamsPage, error) {
			vm, err := a.teamsPage(r, add)
			vm.Edit = edit
			return vm, err
		},
		prepare: func(r *http.Request, f views.TeamForm, errs map[string]string) (views.TeamForm, error) {
			if errs != nil {
				f.Errors = errs
			}
			return teamForm(r, f), nil
		},
		content: views.TeamsContent, table: views.TeamsTable, form: views.TeamFormPartial, editPage: views.EditTeamContent,
	}
}

// showTeams shows the Teams page.
func (a *App) showTeams(w http.ResponseWriter, r *http.Request) {
	a.teamsTable().show(w, r, views.TeamForm{})
}

// teamsPage builds the Teams page around the add form.
func (a *App) teamsPage(r *http.Request, form views.TeamForm) (views.TeamsPage, error) {
	ctx := r.Context()
	ts, err := a.store.ListTeams(ctx)
	if err != nil {
		return views.TeamsPage{}, err
	}
	us, err := a.store.ListUsers(ctx)
	if err != nil {
		return views.TeamsPage{}, err
	}
	ks, err := a.store.ListKeys(ctx)
	if err != nil {
		return views.TeamsPage{}, err
	}
	users, keys := map[int64]int{}, map[int64]int{}
	for _, u := range us {
		if u.TeamID != nil {
			users[*u.TeamID]++
		}
	}
	for _, k := range ks {
		if k.TeamID != nil {
			keys[*k.TeamID]++
		}
	}
	vm := views.TeamsPage{Form: teamForm(r, form), Teams: make([]views.TeamRow, len(ts))}
	for i, t := range ts {
		vm.Teams[i] = views.TeamRow{ID: t.ID, Name: t.Name, Spend: spendOf(t.SpendUSD, t.MaxBudgetUSD, t.BudgetDuration),
			RPM: limitText(t.RPMLimit), TPM: limitText(t.TPMLimit), Users: users[t.ID], Keys: keys[t.ID]}
	}
	return vm, nil
}

func teamForm(r *http.Request, f views.TeamForm) views.TeamForm {
	f.CSRFToken = sessionFrom(r.Context()).csrfToken()
	f.Periods = budgetPeriods(f.Values.BudgetDuration)
	return f
}

// readTeamForm reads the team form into the API's input, validated by the
// same rules.
func (a *App) readTeamForm(r *http.Request) (teamInput, views.TeamValues, error) {
	v := views.TeamValues{
		Name:           formValue(r, "name"),
		MaxBudgetUSD:   formValue(r, "max_budget_usd"),
		SoftBudgetUSD:  formValue(r, "soft_budget_usd"),
		BudgetDuration: formValue(r, "budget_duration"),
		RPMLimit:       formValue(r, "rpm_limit"),
		TPMLimit:       formValue(r, "tpm_limit"),
	}
	p := formParser{}
	in := teamInput{
		Name:        v.Name,
		budgetInput: p.budget(v.MaxBudgetUSD, v.SoftBudgetUSD, v.BudgetDuration),
		limitsInput: p.limits(v.RPMLimit, v.TPMLimit),
	}
	return in, v, joinInputErrors(p.err, a.validateStruct(&in))
}

// createTeamPage adds a team from the form.
func (a *App) createTeamPage(w http.ResponseWriter, r *http.Request) {
	in, values, err := a.readTeamForm(r)
	if err == nil {
		var t models.Team
		in.applyTo(&t)
		err = a.store.CreateTeam(r.Context(), &t)
	}
	a.teamsTable().added(w, r, views.TeamForm{Values: values}, in.Name, err)
}

// showEditTeam shows the form that edits one team.
func (a *App) showEditTeam(w http.ResponseWriter, r *http.Request) {
	t, err := a.pageTeam(r)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	a.teamsTable().showEdit(w, r, t.Name, views.TeamForm{ID: t.ID, Values: views.TeamValues{
		Name:           t.Name,
		MaxBudgetUSD:   formatOptional(t.MaxBudgetUSD),
		SoftBudgetUSD:  formatOptional(t.SoftBudgetUSD),
		BudgetDuration: t.BudgetDuration,
		RPMLimit:       formatOptional(t.RPMLimit),
		TPMLimit:       formatOptional(t.TPMLimit),
	}})
}

// updateTeamPage saves the edit form.
func (a *App) updateTeamPage(w http.ResponseWriter, r *http.Request) {
	t, err := a.pageTeam(r)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	in, values, err := a.readTeamForm(r)
	if err == nil {
		_, err = a.store.UpdateTeam(r.Context(), t.ID, func(t *models.Team) error {
			in.applyTo(t)
			return nil
		})
	}
	a.teamsTable().updated(w, r, views.TeamForm{ID: t.ID, Values: values}, in.Name, t.Name, err)
}

// deleteTeamPage deletes a team; its users and keys stay, without a team.
func (a *App) deleteTeamPage(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "team")
	if err == nil {
		err = a.store.DeleteTeam(r.Context(), id)
	}
	a.finishWrite(w, r, err, "/teams")
}

func (a *App) pageTeam(r *http.Request) (*models.Team, error) {
	id, err := pathID(r, "team")
	if err != nil {
		return nil, err
	}
	return getForPage(r.Context(), "team", id, a.store.GetTeam)
}
