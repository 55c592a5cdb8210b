package handlers

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"time"

	"github.com/gorilla/sessions"

	"gateway/models"
)

const (
	sessionCookie = "gateway_admin"
	keyCSRF       = "csrf"
	keyUsername   = "username"
	keySignedInAt = "signed_in_at"
	keyAdminID    = "admin_id"
	keyEpoch      = "epoch"
)

// newCookieStore signs the session cookie with one key derived from
// sessionKey and encrypts it with another (AES-256), so the CSRF token in it
// is not readable either. The cookie's signed timestamp ends a session
// sessionMaxAge after it was last saved, whatever the browser does.
func newCookieStore(sessionKey []byte, secure bool) *sessions.CookieStore {
	store := sessions.NewCookieStore(deriveKey(sessionKey, "session-auth"), deriveKey(sessionKey, "session-encrypt"))
	store.Options = &sessions.Options{
		Path:     "/",
		HttpOnly: true,
		Secure:   secure,
		SameSite: http.SameSiteLaxMode,
	}
	store.MaxAge(int(sessionMaxAge / time.Second))
	return store
}

func deriveKey(secret []byte, purpose string) []byte {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(purpose))
	return mac.Sum(nil)
}

// session is the admin session of a request: before sign-in it only holds
// the CSRF token that protects the login form.
type session struct {
	raw *sessions.Session
}

// loadSession decodes the session cookie. A cookie that does not decode (bad
// signature, expired, other key) counts as no session.
func (a *App) loadSession(r *http.Request) *session {
	raw, err := a.sessions.New(r, sessionCookie)
	if err != nil {
		a.logger(r.Context()).Debug("ignore undecodable session cookie", "err", err)
		raw = a.newRawSession()
	}
	return &session{raw: raw}
}

func (a *App) newRawSession() *sessions.Session {
	raw := sessions.NewSession(a.sessions, sessionCookie)
	opts := *a.sessions.Options
	raw.Options = &opts
	raw.IsNew = true
	return raw
}

func (s *session) str(key string) string {
	v, _ := s.raw.Values[key].(string)
	return v
}

// username is the signed-in admin, empty before sign-in.
func (s *session) username() string { return s.str(keyUsername) }

func (s *session) csrfToken() string { return s.str(keyCSRF) }

// adminID and epoch are the signed-in admin's id and SessionEpoch at
// sign-in (see sessionAdmin).
func (s *session) adminID() int64 { v, _ := s.raw.Values[keyAdminID].(int64); return v }
func (s *session) epoch() int     { v, _ := s.raw.Values[keyEpoch].(int); return v }

// ensureCSRFToken gives the session a token if it has none and reports
// whether the session changed (and must be saved).
func (s *session) ensureCSRFToken() bool {
	if s.csrfToken() != "" {
		return false
	}
	s.raw.Values[keyCSRF] = newToken()
	return true
}

// signIn replaces the session with a fresh one for u, with a new CSRF
// token: nothing from before sign-in carries over.
func (a *App) signIn(s *session, u *models.AdminUser) {
	s.raw = a.newRawSession()
	s.raw.Values[keyUsername] = u.Username
	s.raw.Values[keyAdminID] = u.ID
	s.raw.Values[keyEpoch] = u.SessionEpoch
	s.raw.Values[keyCSRF] = newToken()
	s.raw.Values[keySignedInAt] = time.Now().Unix()
}

// signOut makes the browser drop the cookie.
func (s *session) signOut() {
	s.raw.Values = map[any]any{}
	s.raw.Options.MaxAge = -1
}

func (s *session) save(w http.ResponseWriter, r *http.Request) error {
	return s.raw.Save(r, w)
}

func newToken() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand panics rather than return an error)
	return base64.RawURLEncoding.EncodeToString(b)
}

// checkCSRF accepts a state-changing request only with the session's token,
// from the X-CSRF-Token header (htmx, API) or, when fromForm, the csrf_token
// form field. Safe methods pass.
func checkCSRF(r *http.Request, s *session, fromForm bool) error {
	if isSafe(r.Method) {
		return nil
	}
	want := s.csrfToken()
	got := r.Header.Get("X-CSRF-Token")
	if got == "" && fromForm {
		got = r.PostFormValue("csrf_token")
	}
	if want == "" || got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
		return errCSRF
	}
	return nil
}

type sessionKey struct{}

func withSession(ctx context.Context, s *session) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}

// sessionFrom returns the session requireAdmin put into the context.
func sessionFrom(ctx context.Context) *session {
	if s, ok := ctx.Value(sessionKey{}).(*session); ok {
		return s
	}
	return &session{raw: &sessions.Session{Values: map[any]any{}}}
}
