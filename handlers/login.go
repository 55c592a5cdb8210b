package handlers

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"gateway/models"
	"gateway/views"
)

// showLogin shows the sign-in form, giving the visitor a pre-login session
// whose CSRF token protects the form.
func (a *App) showLogin(w http.ResponseWriter, r *http.Request) {
	s := a.loadSession(r)
	next := safeNext(r.URL.Query().Get("next"))
	if a.signedIn(w, r, s, next) {
		return
	}
	form := views.LoginForm{}
	if next != "/" {
		form.Next = next
	}
	a.renderLogin(w, r, s, http.StatusOK, form)
}

// signedIn answers a visitor who is signed in already with a redirect to
// next (or the error page), and reports whether it did.
func (a *App) signedIn(w http.ResponseWriter, r *http.Request, s *session, next string) bool {
	admin, err := a.sessionAdmin(r, s)
	if err != nil {
		a.pageError(w, r, err)
		return true
	}
	if admin != nil {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return true
	}
	return false
}

// safeNext is the page to go to after sign-in: a path of this site, never
// another's ("//evil.example", "https://…", "/\\evil"), and "/" otherwise.
func safeNext(next string) string {
	u, err := url.Parse(next)
	switch {
	case err != nil || next == "" || next[0] != '/' || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\"),
		u.Scheme != "" || u.Host != "" || u.User != nil, strings.ContainsAny(next, "\r\n\\"):
		return "/"
	case u.Path == "/login" || u.Path == "/logout":
		return "/"
	}
	return next
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
	next := safeNext(r.PostFormValue("next"))
	form := views.LoginForm{Username: username}
	if next != "/" {
		form.Next = next
	}
	ip := clientIP(r)
	log := a.logger(r.Context()).With("username", truncate(username, 100), "ip", ip)
	attempt, wait := a.throttle.begin(ip, username)
	if wait > 0 {
		log.Warn("admin sign-in refused: too many failures", "retry_after_s", int(wait.Seconds()))
		a.loginThrottled(w, r, s, form, wait)
		return
	}
	admin, err := a.checkPassword(r.Context(), username, password)
	if err != nil {
		a.throttle.forget(attempt)
		a.loginFailed(w, r, s, form, err)
		return
	}
	if admin == nil {
		log.Warn("admin sign-in failed")
		form.Error = "Wrong username or password."
		a.renderLogin(w, r, s, http.StatusUnauthorized, form)
		return
	}
	a.throttle.succeeded(attempt)
	a.signIn(s, admin)
	if err := s.save(w, r); err != nil {
		a.pageError(w, r, err)
		return
	}
	log.Info("admin signed in")
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// checkPassword compares the password in one of the throttle's few slots:
// the admin, or nil for a wrong password.
func (a *App) checkPassword(ctx context.Context, username, password string) (*models.AdminUser, error) {
	release, err := a.throttle.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	u, err := a.store.AuthenticateAdmin(ctx, username, password)
	if errors.Is(err, models.ErrBadCredentials) {
		return nil, nil
	}
	return u, err
}

// loginThrottled answers an attempt refused by the throttle.
func (a *App) loginThrottled(w http.ResponseWriter, r *http.Request, s *session, form views.LoginForm, wait time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
	form.Error = fmt.Sprintf("Too many failed sign-ins. Try again in %d minutes.", int(math.Ceil(wait.Minutes())))
	a.renderLogin(w, r, s, http.StatusTooManyRequests, form)
}

// loginFailed answers a sign-in whose password could not be checked.
func (a *App) loginFailed(w http.ResponseWriter, r *http.Request, s *session, form views.LoginForm, err error) {
	if !errors.Is(err, errLoginBusy) {
		a.pageError(w, r, err)
		return
	}
	a.logger(r.Context()).Warn("admin sign-in refused: no free password-check slot")
	w.Header().Set("Retry-After", "1")
	form.Error = "Too many sign-ins at once. Please try again in a moment."
	a.renderLogin(w, r, s, http.StatusServiceUnavailable, form)
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
	form.SSO = a.sso != nil
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
