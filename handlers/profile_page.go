package handlers

import (
	"net/http"

	"gateway/models"
	"gateway/views"
)

// showProfile shows the signed-in admin's own page.
func (a *App) showProfile(w http.ResponseWriter, r *http.Request) {
	a.renderProfile(w, r, http.StatusOK, nil, r.URL.Query().Get("changed") == "1")
}

func (a *App) renderProfile(w http.ResponseWriter, r *http.Request, status int, errs map[string]string, changed bool) {
	u := adminFrom(r.Context())
	vm := views.ProfilePage{CSRFToken: sessionFrom(r.Context()).csrfToken(), Username: u.Username, Role: u.Role,
		SSO: u.OIDCSubject != nil, Errors: errs, Changed: changed}
	a.renderPage(w, r, status, "Profile", "", views.ProfileContent(vm))
}

// changeOwnPassword changes the signed-in admin's password, given the
// current one. Their other sessions end; this one goes on under the new
// epoch.
func (a *App) changeOwnPassword(w http.ResponseWriter, r *http.Request) {
	u := adminFrom(r.Context())
	current, next := r.PostFormValue("current_password"), r.PostFormValue("new_password")
	refuse := func(status int, field, msg string) {
		a.renderProfile(w, r, status, map[string]string{field: msg}, false)
	}
	switch {
	case u.OIDCSubject != nil:
		refuse(http.StatusBadRequest, "", "You sign in with single sign-on: your password is your identity provider's.")
		return
	case len(next) < models.MinPasswordLength:
		refuse(http.StatusUnprocessableEntity, "new_password", "must be at least 8 characters")
		return
	case len(next) > 72:
		refuse(http.StatusUnprocessableEntity, "new_password", "must be at most 72 characters")
		return
	case next != r.PostFormValue("confirm_password"):
		refuse(http.StatusUnprocessableEntity, "confirm_password", "does not match the new password")
		return
	}
	same, err := a.checkPassword(r.Context(), u.Username, current)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	if same == nil || same.ID != u.ID {
		a.logger(r.Context()).Warn("admin password change refused: wrong current password", "username", u.Username)
		refuse(http.StatusUnprocessableEntity, "current_password", "is not your current password")
		return
	}
	changed, err := a.store.UpdateAdminUser(r.Context(), u.ID, models.AdminChange{Password: &next})
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	s := sessionFrom(r.Context())
	a.signIn(s, changed)
	if err := s.save(w, r); err != nil {
		a.pageError(w, r, err)
		return
	}
	a.logger(r.Context()).Info("admin changed their password", "username", u.Username)
	seeOther(w, r, "/profile?changed=1")
}
