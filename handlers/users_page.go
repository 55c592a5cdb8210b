package handlers

import (
	"net/http"

	"github.com/a-h/templ"

	"gateway/models"
	"gateway/views"
)

// showUsers shows the Users page.
func (a *App) showUsers(w http.ResponseWriter, r *http.Request) {
	vm, err := a.usersPage(r, views.UserForm{})
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	a.renderPage(w, r, http.StatusOK, "Users", "users", views.UsersContent(vm))
}

// usersPage builds the Users page around the add form.
func (a *App) usersPage(r *http.Request, form views.UserForm) (views.UsersPage, error) {
	ctx := r.Context()
	us, err := a.store.ListUsers(ctx)
	if err != nil {
		return views.UsersPage{}, err
	}
	ks, err := a.store.ListKeys(ctx)
	if err != nil {
		return views.UsersPage{}, err
	}
	owners, err := a.ownerNames(r)
	if err != nil {
		return views.UsersPage{}, err
	}
	keys := map[int64]int{}
	for _, k := range ks {
		if k.UserID != nil {
			keys[*k.UserID]++
		}
	}
	vm := views.UsersPage{Form: userForm(r, form, owners), Users: make([]views.UserRow, len(us))}
	for i, u := range us {
		row := views.UserRow{ID: u.ID, Name: u.Name, Email: u.Email, Keys: keys[u.ID],
			Spend: spendOf(u.SpendUSD, u.MaxBudgetUSD, u.BudgetDuration)}
		if u.TeamID != nil {
			row.Team = owners.team[*u.TeamID]
		}
		vm.Users[i] = row
	}
	return vm, nil
}

func userForm(r *http.Request, f views.UserForm, owners ownerNames) views.UserForm {
	f.CSRFToken = sessionFrom(r.Context()).csrfToken()
	f.Teams = owners.teams
	f.Periods = budgetPeriods(f.Values.BudgetDuration)
	return f
}

// readUserForm reads the user form into the API's input, validated by the
// same rules.
func (a *App) readUserForm(r *http.Request) (userInput, views.UserValues, error) {
	v := views.UserValues{
		Name:           formValue(r, "name"),
		Email:          formValue(r, "email"),
		TeamID:         formValue(r, "team_id"),
		MaxBudgetUSD:   formValue(r, "max_budget_usd"),
		SoftBudgetUSD:  formValue(r, "soft_budget_usd"),
		BudgetDuration: formValue(r, "budget_duration"),
	}
	p := formParser{}
	in := userInput{
		Name:        v.Name,
		Email:       v.Email,
		TeamID:      p.id("team_id", v.TeamID),
		budgetInput: p.budget(v.MaxBudgetUSD, v.SoftBudgetUSD, v.BudgetDuration),
	}
	err := a.validateStruct(&in)
	if err == nil {
		err = in.check()
	}
	return in, v, joinInputErrors(p.err, err)
}

// createUserPage adds a user from the form.
func (a *App) createUserPage(w http.ResponseWriter, r *http.Request) {
	in, values, err := a.readUserForm(r)
	if err == nil {
		var u models.User
		in.applyTo(&u)
		err = a.store.CreateUser(r.Context(), &u)
	}
	a.userSaved(w, r, views.UserForm{Values: values}, in.Name, "", err)
}

// userSaved finishes an add (current "") or an edit of the user named
// current: the form again with its errors, or a reload and back to the list.
func (a *App) userSaved(w http.ResponseWriter, r *http.Request, form views.UserForm, name, current string, err error) {
	input, ok := formInputError(err, "user", name)
	if form.ID != 0 && inPlace(r, "users") {
		a.userSavedInPlace(w, r, form, input, err)
		return
	}
	if !ok {
		a.finishWrite(w, r, err, "/users")
		return
	}
	form.Errors = input.byField()
	owners, err := a.ownerNames(r)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	form = userForm(r, form, owners)
	a.rerenderForm(w, r, "Users", "users", views.UserFormPartial(form), func() (templ.Component, error) {
		if form.ID != 0 {
			return views.EditUserContent(current, form), nil
		}
		vm, err := a.usersPage(r, form)
		return views.UsersContent(vm), err
	})
}

// showEditUser shows the form that edits one user.
func (a *App) showEditUser(w http.ResponseWriter, r *http.Request) {
	u, err := a.pageUser(r)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	owners, err := a.ownerNames(r)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	form := userForm(r, views.UserForm{ID: u.ID, Values: views.UserValues{
		Name:           u.Name,
		Email:          u.Email,
		TeamID:         formatID(u.TeamID),
		MaxBudgetUSD:   formatOptional(u.MaxBudgetUSD),
		SoftBudgetUSD:  formatOptional(u.SoftBudgetUSD),
		BudgetDuration: u.BudgetDuration,
	}}, owners)
	if inPlace(r, "users") {
		a.renderUsersTable(w, r, http.StatusOK, &form)
		return
	}
	a.renderPage(w, r, http.StatusOK, "Edit "+u.Name, "users", views.EditUserContent(u.Name, form))
}

// updateUserPage saves the edit form.
func (a *App) updateUserPage(w http.ResponseWriter, r *http.Request) {
	u, err := a.pageUser(r)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	in, values, err := a.readUserForm(r)
	if err == nil {
		_, err = a.store.UpdateUser(r.Context(), u.ID, func(u *models.User) error {
			in.applyTo(u)
			return nil
		})
	}
	a.userSaved(w, r, views.UserForm{ID: u.ID, Values: values}, in.Name, u.Name, err)
}

// deleteUserPage deletes a user; their keys stay, without an owner.
func (a *App) deleteUserPage(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "user")
	if err == nil {
		err = a.store.DeleteUser(r.Context(), id)
	}
	a.finishWrite(w, r, err, "/users")
}

func (a *App) pageUser(r *http.Request) (*models.User, error) {
	id, err := pathID(r, "user")
	if err != nil {
		return nil, err
	}
	return getForPage(r.Context(), "user", id, a.store.GetUser)
}

// userSavedInPlace finishes an edit made in the user's row: the list with
// the row's form and its errors (422), or a reload and the list.
func (a *App) userSavedInPlace(w http.ResponseWriter, r *http.Request, form views.UserForm, input *inputError, err error) {
	if input != nil {
		owners, err := a.ownerNames(r)
		if err != nil {
			a.pageError(w, r, err)
			return
		}
		form.Errors = input.byField()
		form = userForm(r, form, owners)
		a.renderUsersTable(w, r, http.StatusUnprocessableEntity, &form)
		return
	}
	if err == nil {
		err = a.reload(r.Context())
	}
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	a.renderUsersTable(w, r, http.StatusOK, nil)
}

// renderUsersTable answers htmx with the user list, edit's row as its form.
func (a *App) renderUsersTable(w http.ResponseWriter, r *http.Request, status int, edit *views.UserForm) {
	vm, err := a.usersPage(r, views.UserForm{})
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	vm.Edit = edit
	w.Header().Add("Vary", "HX-Request")
	w.Header().Add("Vary", "HX-Target")
	a.render(w, r, status, views.UsersTable(vm))
}
