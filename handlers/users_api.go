package handlers

import (
	"net/http"
	"net/mail"
	"time"

	"gateway/models"
)

// userInput is the body of POST /api/users and PATCH /api/users/{id}, and
// what the Users page's form decodes into.
type userInput struct {
	Name   string `json:"name" validate:"required,max=200,singleline"`
	Email  string `json:"email" validate:"max=320,singleline"`
	TeamID *int64 `json:"team_id" validate:"omitnil,gt=0"`
	budgetInput
}

// check applies the rules the validator's tags do not say well.
func (in *userInput) check() error {
	if in.Email == "" {
		return nil
	}
	if addr, err := mail.ParseAddress(in.Email); err != nil || addr.Address != in.Email {
		return badInput("email", "must be an email address such as ana@example.com")
	}
	return nil
}

func userInputOf(u *models.User) userInput {
	return userInput{
		Name:        u.Name,
		Email:       u.Email,
		TeamID:      u.TeamID,
		budgetInput: budgetInputOf(u.Budget),
	}
}

func (in *userInput) applyTo(u *models.User) {
	u.Name = in.Name
	u.Email = in.Email
	u.TeamID = in.TeamID
	in.budgetInput.applyTo(&u.Budget)
}

// userJSON is a user in API answers.
type userJSON struct {
	ID     int64  `json:"id"`
	Name   string `json:"name"`
	Email  string `json:"email"`
	TeamID *int64 `json:"team_id"`
	budgetJSON
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func userJSONOf(u *models.User) userJSON {
	return userJSON{
		ID:         u.ID,
		Name:       u.Name,
		Email:      u.Email,
		TeamID:     u.TeamID,
		budgetJSON: budgetJSONOf(u.Budget),
		CreatedAt:  u.CreatedAt,
		UpdatedAt:  u.UpdatedAt,
	}
}

// createUser handles POST /api/users.
func (a *App) createUser(w http.ResponseWriter, r *http.Request) {
	var in userInput
	err := a.decodeBody(w, r, &in)
	if err == nil {
		err = in.check()
	}
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	var u models.User
	in.applyTo(&u)
	if err := a.store.CreateUser(r.Context(), &u); err != nil {
		a.apiError(w, r, nameTaken(err, "user", in.Name))
		return
	}
	a.written(w, r, http.StatusCreated, userJSONOf(&u))
}

// listUsers handles GET /api/users.
func (a *App) listUsers(w http.ResponseWriter, r *http.Request) {
	listAs(a, w, r, a.store.ListUsers, userJSONOf)
}

// updateUser handles PATCH /api/users/{id}.
func (a *App) updateUser(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "user")
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	body, err := readBody(w, r)
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	var in userInput
	u, err := a.store.UpdateUser(r.Context(), id, func(u *models.User) error {
		in = userInputOf(u)
		if err := a.applyBody(body, &in); err != nil {
			return err
		}
		if err := in.check(); err != nil {
			return err
		}
		in.applyTo(u)
		return nil
	})
	if err != nil {
		a.apiError(w, r, nameTaken(err, "user", in.Name))
		return
	}
	a.written(w, r, http.StatusOK, userJSONOf(u))
}

// deleteUser handles DELETE /api/users/{id}; their keys stay, without an owner.
func (a *App) deleteUser(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "user")
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	if err := a.store.DeleteUser(r.Context(), id); err != nil {
		a.apiError(w, r, err)
		return
	}
	a.written(w, r, http.StatusNoContent, nil)
}

// showUser handles GET /api/users/{id}: one user, its spend_usd in the
// current budget period included.
func (a *App) showUser(w http.ResponseWriter, r *http.Request) {
	showAs(a, w, r, "user", a.store.GetUser, userJSONOf)
}
