package handlers

import (
	"errors"
	"net/http"

	"gateway/models"
	"gateway/views"
)

// showAdmins shows the Admins page (owners only).
func (a *App) showAdmins(w http.ResponseWriter, r *http.Request) {
	a.renderAdmins(w, r, http.StatusOK, views.AdminForm{Role: models.RoleViewer}, "")
}

// renderAdmins renders the Admins page around the add form and why the
// last change was refused, if it was.
func (a *App) renderAdmins(w http.ResponseWriter, r *http.Request, status int, form views.AdminForm, refused string) {
	us, err := a.store.ListAdminUsers(r.Context())
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	csrf := sessionFrom(r.Context()).csrfToken()
	me := adminFrom(r.Context())
	form.CSRFToken = csrf
	vm := views.AdminsPage{CSRFToken: csrf, Form: form, Error: refused, Admins: make([]views.AdminRow, len(us))}
	for i, u := range us {
		row := views.AdminRow{ID: u.ID, Username: u.Username, Role: u.Role, SSO: u.OIDCSubject != nil,
			Created: u.CreatedAt.UTC().Format("2006-01-02"), You: me != nil && me.ID == u.ID}
		if u.PasswordChangedAt != nil {
			row.PasswordChanged = u.PasswordChangedAt.UTC().Format("2006-01-02 15:04")
		}
		vm.Admins[i] = row
	}
	a.renderPage(w, r, status, "Admins", "admins", views.AdminsContent(vm))
}

// createAdminPage adds an admin from the form.
func (a *App) createAdminPage(w http.ResponseWriter, r *http.Request) {
	in := adminInput{Username: formValue(r, "username"), Password: r.PostFormValue("password"), Role: formValue(r, "role")}
	err := a.validateStruct(&in)
	if err == nil {
		err = a.store.CreateAdminUser(r.Context(), &models.AdminUser{Username: in.Username, Role: in.Role}, in.Password)
	}
	input, ok := formInputError(err, "admin", in.Username)
	if !ok {
		a.finishWrite(w, r, err, "/admins")
		return
	}
	if errors.Is(err, models.ErrConflict) {
		input = badInput("username", "an admin named %q already exists", in.Username)
	}
	a.renderAdmins(w, r, http.StatusUnprocessableEntity,
		views.AdminForm{Username: in.Username, Role: in.Role, Errors: input.byField()}, "")
}

// setAdminRolePage changes an admin's role from the Admins page.
func (a *App) setAdminRolePage(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "admin")
	if err == nil {
		role := formValue(r, "role")
		_, err = a.store.UpdateAdminUser(r.Context(), id, models.AdminChange{Role: &role})
	}
	a.adminChanged(w, r, err)
}

// deleteAdminPage removes an admin from the Admins page.
func (a *App) deleteAdminPage(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "admin")
	if err == nil {
		err = a.store.DeleteAdminUser(r.Context(), id)
	}
	a.adminChanged(w, r, err)
}

// adminChanged finishes a role change or a removal: back to the page (or
// to the login page, when the owner demoted or removed themselves), or the
// page with why it was refused (422 for htmx, which swaps only that).
func (a *App) adminChanged(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, models.ErrLastOwner) || errors.Is(err, models.ErrInvalid) {
		_, msg := errorStatus(err)
		status := http.StatusConflict
		if !errors.Is(err, models.ErrLastOwner) || isHTMX(r) {
			status = http.StatusUnprocessableEntity
		}
		a.renderAdmins(w, r, status, views.AdminForm{Role: models.RoleViewer}, msg)
		return
	}
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	seeOther(w, r, "/admins")
}
