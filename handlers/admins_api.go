package handlers

import (
	"context"
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

// createAdmin handles POST /api/admins. Admin accounts are not in the
// routing table: their writes answer without rebuilding it.
func (a *App) createAdmin(w http.ResponseWriter, r *http.Request) {
	createAs(a, w, r, a.newAdmin, answerAs(a, adminJSONOf))
}

// newAdmin stores the account a POST body describes; the store keeps its
// password's hash only.
func (a *App) newAdmin(ctx context.Context, body jsonBody) (*models.AdminUser, error) {
	var in adminInput
	if err := a.applyBody(body, &in); err != nil {
		return nil, err
	}
	u := models.AdminUser{Username: in.Username, Role: in.Role}
	return &u, nameTaken(a.store.CreateAdminUser(ctx, &u, in.Password), "admin", in.Username)
}

// listAdmins handles GET /api/admins.
func (a *App) listAdmins(w http.ResponseWriter, r *http.Request) {
	listAs(a, w, r, a.store.ListAdminUsers, adminJSONOf)
}

// updateAdmin handles PATCH /api/admins/{id}: {"role"} and/or
// {"password"}. Either ends the admin's sessions; the username stays.
func (a *App) updateAdmin(w http.ResponseWriter, r *http.Request) {
	patchAs(a, w, r, "admin", a.editAdmin, answerAs(a, adminJSONOf))
}

// editAdmin applies a PATCH body to admin id: only role and password may
// change (a username is refused as an unknown field).
func (a *App) editAdmin(ctx context.Context, id int64, body jsonBody) (*models.AdminUser, error) {
	var in struct {
		Role     *string `json:"role" validate:"omitnil,oneof=owner admin viewer"`
		Password *string `json:"password" validate:"omitnil,min=8,max=72"`
	}
	if err := a.applyBody(body, &in); err != nil {
		return nil, err
	}
	return a.store.UpdateAdminUser(ctx, id, models.AdminChange{Role: in.Role, Password: in.Password})
}

// deleteAdmin handles DELETE /api/admins/{id}; their sessions end with them.
func (a *App) deleteAdmin(w http.ResponseWriter, r *http.Request) {
	deleteAs(a, w, r, "admin", a.store.DeleteAdminUser, a.answer)
}
