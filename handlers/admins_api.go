package handlers

import (
	"net/http"
	"time"

	"gateway/models"
)

// adminInput is the body of POST /api/admins: a password account.
type adminInput struct {
	Username string `json:"username" validate:"required,max=100,singleline"`
	Password string `json:"password" validate:"required,min=8,max=72"`
	Role     string `json:"role" validate:"required,oneof=owner admin viewer"`
}

// adminJSON is an admin in API answers: never a password or its hash.
type adminJSON struct {
	ID                int64      `json:"id"`
	Username          string     `json:"username"`
	Role              string     `json:"role"`
	SSO               bool       `json:"sso"`
	PasswordChangedAt *time.Time `json:"password_changed_at"`
	CreatedAt         time.Time  `json:"created_at"`
	UpdatedAt         time.Time  `json:"updated_at"`
}

func adminJSONOf(u *models.AdminUser) adminJSON {
	return adminJSON{ID: u.ID, Username: u.Username, Role: u.Role, SSO: u.OIDCSubject != nil,
		PasswordChangedAt: u.PasswordChangedAt, CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt}
}

// createAdmin handles POST /api/admins.
func (a *App) createAdmin(w http.ResponseWriter, r *http.Request) {
	var in adminInput
	if err := a.decodeBody(w, r, &in); err != nil {
		a.apiError(w, r, err)
		return
	}
	u := models.AdminUser{Username: in.Username, Role: in.Role}
	if err := a.store.CreateAdminUser(r.Context(), &u, in.Password); err != nil {
		a.apiError(w, r, nameTaken(err, "admin", in.Username))
		return
	}
	a.writeJSON(w, r, http.StatusCreated, adminJSONOf(&u))
}

// listAdmins handles GET /api/admins.
func (a *App) listAdmins(w http.ResponseWriter, r *http.Request) {
	listAs(a, w, r, a.store.ListAdminUsers, adminJSONOf)
}

// updateAdmin handles PATCH /api/admins/{id}: {"role"} and/or
// {"password"}. Either ends the admin's sessions; the username stays.
func (a *App) updateAdmin(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "admin")
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	body, err := readBody(w, r)
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	c, err := a.adminChangeOf(body)
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	u, err := a.store.UpdateAdminUser(r.Context(), id, c)
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	a.writeJSON(w, r, http.StatusOK, adminJSONOf(u))
}

// adminChangeOf reads a PATCH body: only role and password may change (a
// username is refused as an unknown field).
func (a *App) adminChangeOf(body jsonBody) (models.AdminChange, error) {
	var in struct {
		Role     *string `json:"role" validate:"omitnil,oneof=owner admin viewer"`
		Password *string `json:"password" validate:"omitnil,min=8,max=72"`
	}
	if err := a.applyBody(body, &in); err != nil {
		return models.AdminChange{}, err
	}
	return models.AdminChange{Role: in.Role, Password: in.Password}, nil
}

// deleteAdmin handles DELETE /api/admins/{id}; their sessions end with them.
func (a *App) deleteAdmin(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "admin")
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	if err := a.store.DeleteAdminUser(r.Context(), id); err != nil {
		a.apiError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
