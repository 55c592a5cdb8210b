package handlers

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"net/url"
	"strings"
)

// requireAdmin lets through only signed-in admins, and their state-changing
// requests only with the CSRF token. Others go to the login page.
func (a *App) requireAdmin(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := a.loadSession(r)
		if s.username() == "" {
			a.redirectToLogin(w, r)
			return
		}
		r = r.WithContext(withSession(r.Context(), s))
		r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
		if err := checkCSRF(r, s, true); err != nil {
			a.pageError(w, r, err)
			return
		}
		next(w, r)
	})
}

// redirectToLogin sends a visitor to /login: a 303 for a browser, and for
// htmx (whose XHR would follow a 303 and swap the login page into a
// fragment) a 401 with HX-Redirect, which htmx turns into a navigation.
// The page asked for comes back after sign-in (?next=): for htmx, the page
// the fragment was for.
func (a *App) redirectToLogin(w http.ResponseWriter, r *http.Request) {
	if isHTMX(r) {
		next := ""
		if u, err := url.Parse(r.Header.Get("HX-Current-URL")); err == nil && u.Path != "" {
			next = u.RequestURI()
		}
		w.Header().Set("HX-Redirect", loginURL(next))
		http.Error(w, "sign in first", http.StatusUnauthorized)
		return
	}
	next := ""
	if r.Method == http.MethodGet {
		next = r.URL.RequestURI()
	}
	http.Redirect(w, r, loginURL(next), http.StatusSeeOther)
}

// loginURL is the sign-in page, returning to next when it is a page of
// this site other than the dashboard.
func loginURL(next string) string {
	if next = safeNext(next); next == "/" {
		return "/login"
	}
	return "/login?next=" + url.QueryEscape(next)
}

// requireAPI lets through a request with the master key, or one from a
// signed-in admin's session (with the CSRF header when it changes state).
func (a *App) requireAPI(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := a.authorizeAPI(r); err != nil {
			a.apiError(w, r, err)
			return
		}
		next(w, r)
	})
}

func (a *App) authorizeAPI(r *http.Request) error {
	// A request that sends Authorization is judged by it alone.
	if h := r.Header.Get("Authorization"); h != "" {
		if a.isMasterKey(h) {
			return nil
		}
		return errUnauthenticated
	}
	s := a.loadSession(r)
	if s.username() == "" {
		return errUnauthenticated
	}
	return checkCSRF(r, s, false)
}

// isMasterKey compares in constant time; hashing first makes the
// comparison's length independent of the key's.
func (a *App) isMasterKey(authorization string) bool {
	token, ok := strings.CutPrefix(authorization, "Bearer ")
	if !ok || !a.hasMasterKey {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(token)))
	return subtle.ConstantTimeCompare(got[:], a.masterKey[:]) == 1
}

func isHTMX(r *http.Request) bool {
	return r.Header.Get("HX-Request") == "true"
}
