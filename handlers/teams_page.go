package handlers

import (
	"net/http"

	"github.com/a-h/templ"

	"gateway/models"
	"gateway/views"
)

// showTeams shows the Teams page.
func (a *App) showTeams(w http.ResponseWriter, r *http.Request) {
	vm, err := a.teamsPage(r, views.TeamForm{})
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	a.renderPage(w, r, http.StatusOK, "Teams", "teams", views.TeamsContent(vm))
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
	a.teamSaved(w, r, views.TeamForm{Values: values}, in.Name, "", err)
}

// teamSaved finishes an add (current "") or an edit of the team named
// current: the form again with its errors, or a reload and back to the list.
func (a *App) teamSaved(w http.ResponseWriter, r *http.Request, form views.TeamForm, name, current string, err error) {
	input, ok := formInputError(err, "team", name)
	if form.ID != 0 && inPlace(r, "teams") {
		a.teamSavedInPlace(w, r, form, input, err)
		return
	}
	if !ok {
		a.finishWrite(w, r, err, "/teams")
		return
	}
	form.Errors = input.byField()
	form = teamForm(r, form)
	a.rerenderForm(w, r, "Teams", "teams", views.TeamFormPartial(form), func() (templ.Component, error) {
		if form.ID != 0 {
			return views.EditTeamContent(current, form), nil
		}
		vm, err := a.teamsPage(r, form)
		return views.TeamsContent(vm), err
	})
}

// showEditTeam shows the form that edits one team.
func (a *App) showEditTeam(w http.ResponseWriter, r *http.Request) {
	t, err := a.pageTeam(r)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	form := teamForm(r, views.TeamForm{ID: t.ID, Values: views.TeamValues{
		Name:           t.Name,
		MaxBudgetUSD:   formatOptional(t.MaxBudgetUSD),
		SoftBudgetUSD:  formatOptional(t.SoftBudgetUSD),
		BudgetDuration: t.BudgetDuration,
		RPMLimit:       formatOptional(t.RPMLimit),
		TPMLimit:       formatOptional(t.TPMLimit),
	}})
	if inPlace(r, "teams") {
		a.renderTeamsTable(w, r, http.StatusOK, &form)
		return
	}
	a.renderPage(w, r, http.StatusOK, "Edit "+t.Name, "teams", views.EditTeamContent(t.Name, form))
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
	a.teamSaved(w, r, views.TeamForm{ID: t.ID, Values: values}, in.Name, t.Name, err)
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

// teamSavedInPlace finishes an edit made in the team's row: the list with
// the row's form and its errors (422), or a reload and the list.
func (a *App) teamSavedInPlace(w http.ResponseWriter, r *http.Request, form views.TeamForm, input *inputError, err error) {
	if input != nil {
		form.Errors = input.byField()
		form = teamForm(r, form)
		a.renderTeamsTable(w, r, http.StatusUnprocessableEntity, &form)
		return
	}
	if err == nil {
		err = a.reload(r.Context())
	}
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	a.renderTeamsTable(w, r, http.StatusOK, nil)
}

// renderTeamsTable answers htmx with the team list, edit's row as its form.
func (a *App) renderTeamsTable(w http.ResponseWriter, r *http.Request, status int, edit *views.TeamForm) {
	vm, err := a.teamsPage(r, views.TeamForm{})
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	vm.Edit = edit
	w.Header().Add("Vary", "HX-Request")
	w.Header().Add("Vary", "HX-Target")
	a.render(w, r, status, views.TeamsTable(vm))
}
