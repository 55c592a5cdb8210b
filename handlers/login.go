package handlers

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"

	"gateway/models"
	"gateway/views"
)

// showLogin shows the sign-in form, giving the visitor a pre-login session
// whose CSRF token protects the form.
func (a *App) showLogin(w http.ResponseWriter, r *http.Request) {
	s := a.loadSession(r)
	if s.username() != "" {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	a.renderLogin(w, r, s, http.StatusOK, views.LoginForm{})
}

// login signs the admin in, or re-renders the form with what went wrong.
func (a *App) login(w http.ResponseWriter, r *http.Request) {
	s := a.loadSession(r)
	r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
	if err := checkCSRF(r, s, true); err != nil {
		a.renderLogin(w, r, s, http.StatusForbidden, views.LoginForm{Error: "Your sign-in form expired. Please try again."})
		return
	}
	username, password := r.PostFormValue("username"), r.PostFormValue("password")
	form := views.LoginForm{Username: username}
	ip := clientIP(r)
	key := ip + "\x00" + username
	log := a.logger(r.Context()).With("username", truncate(username, 100), "ip", ip)
	if wait := a.throttle.wait(key); wait > 0 {
		log.Warn("admin sign-in refused: too many failures", "retry_after_s", int(wait.Seconds()))
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
		form.Error = fmt.Sprintf("Too many failed sign-ins. Try again in %d minutes.", int(math.Ceil(wait.Minutes())))
		a.renderLogin(w, r, s, http.StatusTooManyRequests, form)
		return
	}
	if _, err := a.store.AuthenticateAdmin(r.Context(), username, password); err != nil {
		if !errors.Is(err, models.ErrBadCredentials) {
			a.pageError(w, r, err)
			return
		}
		a.throttle.fail(key)
		log.Warn("admin sign-in failed")
		form.Error = "Wrong username or password."
		a.renderLogin(w, r, s, http.StatusUnauthorized, form)
		return
	}
	a.throttle.reset(key)
	a.signIn(s, username)
	if err := s.save(w, r); err != nil {
		a.pageError(w, r, err)
		return
	}
	log.Info("admin signed in")
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// renderLogin renders the sign-in page, saving the session first when it
// needed a new CSRF token.
func (a *App) renderLogin(w http.ResponseWriter, r *http.Request, s *session, status int, form views.LoginForm) {
	if s.ensureCSRFToken() {
		if err := s.save(w, r); err != nil {
			a.pageError(w, r, err)
			return
		}
	}
	form.CSRFToken = s.csrfToken()
	page := views.Page{Title: "Sign in", CSRFToken: form.CSRFToken, AssetVersion: a.assetVersion}
	a.render(w, r, status, views.Layout(page, views.LoginContent(form)))
}

// logout ends the session.
func (a *App) logout(w http.ResponseWriter, r *http.Request) {
	s := sessionFrom(r.Context())
	username := s.username()
	s.signOut()
	if err := s.save(w, r); err != nil {
		a.pageError(w, r, err)
		return
	}
	a.logger(r.Context()).Info("admin signed out", "username", username)
	seeOther(w, r, "/login")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
