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

// refused words the store's refusal of the user: their name may be taken.
func (in *userInput) refused(err error) error {
	return nameTaken(err, "user", in.Name)
}

// createUser handles POST /api/users.
func (a *App) createUser(w http.ResponseWriter, r *http.Request) {
	createAs(a, w, r, newRow[userInput](a, a.store.CreateUser), writtenAs(a, userJSONOf))
}

// listUsers handles GET /api/users.
func (a *App) listUsers(w http.ResponseWriter, r *http.Request) {
	listAs(a, w, r, a.store.ListUsers, userJSONOf)
}

// updateUser handles PATCH /api/users/{id}.
func (a *App) updateUser(w http.ResponseWriter, r *http.Request) {
	patchAs(a, w, r, "user", overRow(a, a.store.UpdateUser, userInputOf), writtenAs(a, userJSONOf))
}

// deleteUser handles DELETE /api/users/{id}; their keys stay, without an owner.
func (a *App) deleteUser(w http.ResponseWriter, r *http.Request) {
	deleteAs(a, w, r, "user", a.store.DeleteUser, a.written)
}

// showUser handles GET /api/users/{id}: one user, its spend_usd in the
// current budget period included.
func (a *App) showUser(w http.ResponseWriter, r *http.Request) {
	showAs(a, w, r, "user", a.store.GetUser, userJSONOf)
}
