package handlers

import (
	"net/http"

	"gateway/models"
	"gateway/views"
)

// usersTable is the Users page; a user is edited in their row or on a page
// of their own.
func (a *App) usersTable() *tablePage[views.UserForm, views.UsersPage] {
	return &tablePage[views.UserForm, views.UsersPage]{
		app: a, title: "Users", list: "users", what: "user",
		build: func(r *http.Request, add views.UserForm, edit *views.UserForm) (views.UsersPage, error) {
			vm, err := a.usersPage(r, add)
			vm.Edit = edit
			return vm, err
		},
		prepare: func(r *http.Request, f views.UserForm, errs map[string]string) (views.UserForm, error) {
			owners, err := a.ownerNames(r)
			if err != nil {
				return f, err
			}
			if errs != nil {
				f.Errors = errs
			}
			return userForm(r, f, owners), nil
		},
		content: views.UsersContent, table: views.UsersTable, form: views.UserFormPartial, editPage: views.EditUserContent,
	}
}

// showUsers shows the Users page.
func (a *App) showUsers(w http.ResponseWriter, r *http.Request) {
	a.usersTable().show(w, r, views.UserForm{})
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
	a.usersTable().added(w, r, views.UserForm{Values: values}, in.Name, err)
}

// showEditUser shows the form that edits one user.
func (a *App) showEditUser(w http.ResponseWriter, r *http.Request) {
	u, err := a.pageUser(r)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	a.usersTable().showEdit(w, r, u.Name, views.UserForm{ID: u.ID, Values: views.UserValues{
		Name:           u.Name,
		Email:          u.Email,
		TeamID:         formatID(u.TeamID),
		MaxBudgetUSD:   formatOptional(u.MaxBudgetUSD),
		SoftBudgetUSD:  formatOptional(u.SoftBudgetUSD),
		BudgetDuration: u.BudgetDuration,
	}})
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
	a.usersTable().updated(w, r, views.UserForm{ID: u.ID, Values: values}, in.Name, u.Name, err)
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
