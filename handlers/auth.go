package handlers

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"gateway/models"
)

// access says who may use a route.
type access int

const (
	// public routes need no sign-in (login, health, static files).
	public access = iota
	// anyAdmin routes take every signed-in admin whatever the method:
	// signing out, changing one's own password.
	anyAdmin
	// byRole routes read for every admin and write for owners and admins:
	// a viewer's POST, PATCH, PUT or DELETE is refused with 403.
	byRole
	// writers routes are for owners and admins, whatever the method.
	writers
	// ownersOnly routes are for owners (and the master key) alone.
	ownersOnly
)

// errForbidden refuses what the signed-in admin's role may not do.
var errForbidden = errors.New("your role may not do this")

// allowed reports whether an admin of role may send method to a route.
func (ac access) allowed(role, method string) bool {
	switch ac {
	case ownersOnly:
		return role == models.RoleOwner
	case writers:
		return role != models.RoleViewer
	case byRole:
		return role != models.RoleViewer || isSafe(method)
	}
	return true
}

func isSafe(method string) bool {
	return method == http.MethodGet || method == http.MethodHead || method == http.MethodOptions
}

// requireAdmin lets through only signed-in admins whose role allows the
// request, and their state-changing requests only with the CSRF token.
// Others go to the login page; a role that may not gets 403.
func (a *App) requireAdmin(ac access, next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := a.loadSession(r)
		admin, err := a.sessionAdmin(r, s)
		if err != nil {
			a.pageError(w, r, err)
			return
		}
		if admin == nil {
			a.redirectToLogin(w, r)
			return
		}
		r = r.WithContext(withAdmin(withSession(r.Context(), s), admin, "app"))
		r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
		if err := checkCSRF(r, s, true); err != nil {
			a.pageError(w, r, err)
			return
		}
		if !ac.allowed(admin.Role, r.Method) {
			a.pageError(w, r, forbidden(admin.Role))
			return
		}
		next(w, r)
	})
}

func forbidden(role string) error {
	return &userError{kind: errForbidden, msg: "your role (" + role + ") may not do this: ask an owner"}
}

// sessionAdmin is the admin signed in to s, nil when none is or the
// session has ended: the admin was removed, or their role or password
// changed since (SessionEpoch).
func (a *App) sessionAdmin(r *http.Request, s *session) (*models.AdminUser, error) {
	if s.username() == "" {
		return nil, nil
	}
	u, err := a.store.GetAdminUser(r.Context(), s.adminID())
	if errors.Is(err, models.ErrNotFound) || err == nil && (u.Username != s.username() || u.SessionEpoch != s.epoch()) {
		a.logger(r.Context()).Info("admin session ended", "username", s.username())
		s.raw = a.newRawSession() // the login page saves it over the old cookie
		return nil, nil
	}
	return u, err
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

// requireAPI lets through a request with the master key (which may do
// everything), or one from a signed-in admin's session (with the CSRF header
// when it changes state) whose role allows it.
func (a *App) requireAPI(ac access, next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, err := a.authorizeAPI(r, ac)
		if err != nil {
			a.apiError(w, r, err)
			return
		}
		next(w, r.WithContext(ctx))
	})
}

// authorizeAPI returns the request's context with its actor, or why the
// request may not go on.
func (a *App) authorizeAPI(r *http.Request, ac access) (context.Context, error) {
	// A request that sends Authorization is judged by it alone.
	if h := r.Header.Get("Authorization"); h != "" {
		if !a.isMasterKey(h) {
			return nil, errUnauthenticated
		}
		return models.WithActor(r.Context(), models.Actor{Name: models.ActorMasterKey, Via: apiVia(r)}), nil
	}
	s := a.loadSession(r)
	admin, err := a.sessionAdmin(r, s)
	if err != nil {
		return nil, err
	}
	if admin == nil {
		return nil, errUnauthenticated
	}
	if err := checkCSRF(r, s, false); err != nil {
		return nil, err
	}
	if !ac.allowed(admin.Role, r.Method) {
		return nil, forbidden(admin.Role)
	}
	return withAdmin(withSession(r.Context(), s), admin, "api"), nil
}

// apiVia is how an API write came, for the audit log: what the client says
// it is in X-Gateway-Client (the LiteLLM importer says "import litellm"),
// else "api".
func apiVia(r *http.Request) string {
	via := r.Header.Get("X-Gateway-Client")
	if via == "" || len(via) > 40 || strings.IndexFunc(via, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == ' ' || c == '-')
	}) >= 0 {
		return "api"
	}
	return via
}

type adminKey struct{}

// withAdmin records the signed-in admin in ctx, as the actor of the
// store's writes and for the pages.
func withAdmin(ctx context.Context, u *models.AdminUser, via string) context.Context {
	ctx = models.WithActor(ctx, models.Actor{Name: u.Username, Via: via})
	return context.WithValue(ctx, adminKey{}, u)
}

// adminFrom is the signed-in admin, nil for the master key.
func adminFrom(ctx context.Context) *models.AdminUser {
	u, _ := ctx.Value(adminKey{}).(*models.AdminUser)
	return u
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
