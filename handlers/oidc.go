package handlers

import (
	"cmp"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"gateway/models"
	"gateway/views"
)

// OIDCConfig turns on single sign-on with an OpenID Connect provider.
type OIDCConfig struct {
	Issuer   string
	ClientID string
	// ClientSecret is empty for a public client (PKCE alone).
	ClientSecret string
	// RedirectURL is where the provider sends the browser back, registered
	// with it; empty → {scheme}://{host}/auth/oidc/callback of the sign-in
	// request (https with TLS or SecureCookies). Set it behind a proxy.
	RedirectURL string
	// Scopes asked for; empty → openid, email and profile.
	Scopes []string
	// RoleClaim is a role mapping (see ParseRoleMapping); empty → new
	// accounts are viewers and each account keeps the role the app gives it.
	RoleClaim string
}

// DefaultOIDCScopes are the scopes asked for when OIDCConfig has none.
var DefaultOIDCScopes = []string{oidc.ScopeOpenID, "email", "profile"}

const (
	// ssoCallbackPath is the redirect URL's path, registered with the provider.
	ssoCallbackPath = "/auth/oidc/callback"
	// ssoAttemptMaxAge bounds the time spent at the provider.
	ssoAttemptMaxAge = 10 * time.Minute
	// idpTimeout bounds each request to the provider: discovery, token, keys.
	idpTimeout = 10 * time.Second
)

// ssoClient is the relying party: its settings, and the provider found by
// discovery on first use, so that the gateway starts while the provider is
// down; a failed discovery is tried again on the next sign-in.
type ssoClient struct {
	cfg    OIDCConfig
	roles  *RoleMapping
	http   *http.Client
	secure bool // the admin app is served over HTTPS (Options.SecureCookies)

	mu       sync.Mutex
	provider *oidc.Provider
}

func newSSOClient(cfg OIDCConfig, secure bool) (*ssoClient, error) {
	if cfg.Issuer == "" || cfg.ClientID == "" {
		return nil, errors.New("handlers: oidc: the issuer and the client id are required")
	}
	if cfg.RedirectURL != "" {
		if u, err := url.Parse(cfg.RedirectURL); err != nil || !u.IsAbs() {
			return nil, fmt.Errorf("handlers: oidc: redirect url %q is not an absolute URL", cfg.RedirectURL)
		}
	}
	if len(cfg.Scopes) == 0 {
		cfg.Scopes = DefaultOIDCScopes
	}
	if !slices.Contains(cfg.Scopes, oidc.ScopeOpenID) {
		return nil, errors.New(`handlers: oidc: the scopes must include "openid"`)
	}
	roles, err := ParseRoleMapping(cfg.RoleClaim)
	if err != nil {
		return nil, fmt.Errorf("handlers: oidc role claim: %w", err)
	}
	return &ssoClient{cfg: cfg, roles: roles, http: &http.Client{Timeout: idpTimeout}, secure: secure}, nil
}

// discover returns the provider, asking its discovery document the first
// time and after a failure.
func (c *ssoClient) discover(ctx context.Context) (*oidc.Provider, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.provider != nil {
		return c.provider, nil
	}
	ctx, cancel := context.WithTimeout(ctx, idpTimeout)
	defer cancel()
	p, err := oidc.NewProvider(c.context(ctx), c.cfg.Issuer)
	if err != nil {
		return nil, refused(errIdPUnreachable,
			"The single sign-on provider could not be reached. Try again in a moment, or sign in with a password.",
			fmt.Errorf("discover %s: %w", c.cfg.Issuer, err))
	}
	c.provider = p
	return p, nil
}

// context makes go-oidc and oauth2 use the client with a timeout.
func (c *ssoClient) context(ctx context.Context) context.Context {
	return oidc.ClientContext(ctx, c.http)
}

// oauth2 is the code flow's configuration, returning to the redirect URL
// for r.
func (c *ssoClient) oauth2(p *oidc.Provider, r *http.Request) *oauth2.Config {
	return &oauth2.Config{
		ClientID:     c.cfg.ClientID,
		ClientSecret: c.cfg.ClientSecret,
		Endpoint:     p.Endpoint(),
		RedirectURL:  c.redirectURL(r),
		Scopes:       c.cfg.Scopes,
	}
}

func (c *ssoClient) redirectURL(r *http.Request) string {
	if c.cfg.RedirectURL != "" {
		return c.cfg.RedirectURL
	}
	scheme := "http"
	if r.TLS != nil || c.secure {
		scheme = "https"
	}
	return scheme + "://" + r.Host + ssoCallbackPath
}

// ssoRefusal is a failed single sign-on: what the visitor reads (its
// userError, whose kind picks the status) and, for the log, why.
type ssoRefusal struct {
	*userError
	cause error
}

func (e *ssoRefusal) Unwrap() error { return e.userError }

func refused(kind error, msg string, cause error) error {
	return &ssoRefusal{userError: &userError{kind: kind, msg: msg}, cause: cause}
}

// ssoLogin starts a sign-in at the provider: the authorization code flow
// with PKCE, whose state, nonce and verifier wait in the pre-login session.
// A second attempt in another tab replaces the first one's.
func (a *App) ssoLogin(w http.ResponseWriter, r *http.Request) {
	s := a.loadSession(r)
	next := safeNext(r.URL.Query().Get("next"))
	if a.sso == nil {
		a.ssoFailed(w, r, s, next, refused(models.ErrNotFound, "Single sign-on is not configured on this gateway.", nil))
		return
	}
	if a.signedIn(w, r, s, next) {
		return
	}
	p, err := a.sso.discover(r.Context())
	if err != nil {
		a.ssoFailed(w, r, s, next, err)
		return
	}
	at := ssoAttempt{state: newToken(), nonce: newToken(), verifier: oauth2.GenerateVerifier(), next: next, started: time.Now()}
	s.startSSO(at)
	if err := s.save(w, r); err != nil {
		a.pageError(w, r, err)
		return
	}
	http.Redirect(w, r, a.sso.oauth2(p, r).AuthCodeURL(at.state, oidc.Nonce(at.nonce), oauth2.S256ChallengeOption(at.verifier)),
		http.StatusFound)
}

// ssoCallback finishes a sign-in the provider sends back: the state must be
// the session's, the ID token the provider's for our client id with the
// session's nonce. The attempt is used up whatever happens.
func (a *App) ssoCallback(w http.ResponseWriter, r *http.Request) {
	s := a.loadSession(r)
	at, ok := s.takeSSO()
	if a.sso == nil {
		a.ssoFailed(w, r, s, "/", refused(models.ErrNotFound, "Single sign-on is not configured on this gateway.", nil))
		return
	}
	id, err := a.checkSSOAnswer(r, at, ok)
	if err != nil {
		a.ssoFailed(w, r, s, at.next, err)
		return
	}
	admin, err := a.ssoAccount(r.Context(), id)
	if err != nil {
		a.ssoFailed(w, r, s, at.next, err)
		return
	}
	a.signIn(s, admin)
	if err := s.save(w, r); err != nil {
		a.pageError(w, r, err)
		return
	}
	a.logger(r.Context()).Info("admin signed in", "username", admin.Username, "via", "sso", "subject", id.subject,
		"role", admin.Role, "ip", clientIP(r))
	http.Redirect(w, r, safeNext(at.next), http.StatusSeeOther)
}

// checkSSOAnswer checks what the provider sent back and returns who signed in.
func (a *App) checkSSOAnswer(r *http.Request, at ssoAttempt, ok bool) (ssoIdentity, error) {
	q := r.URL.Query()
	state := q.Get("state")
	if !ok || state == "" || subtle.ConstantTimeCompare([]byte(state), []byte(at.state)) != 1 {
		return ssoIdentity{}, refused(models.ErrInvalid, "This single sign-on did not start here, or started in another tab. Please try again.",
			errors.New("state does not match the session's"))
	}
	if time.Since(at.started) > ssoAttemptMaxAge {
		return ssoIdentity{}, refused(models.ErrInvalid, "Your single sign-on took too long. Please try again.", errors.New("attempt expired"))
	}
	if e := q.Get("error"); e != "" {
		return ssoIdentity{}, refused(errUnauthenticated, "The single sign-on provider refused the sign-in: "+truncate(cmp.Or(q.Get("error_description"), e), 200),
			fmt.Errorf("provider error %q: %s", e, q.Get("error_description")))
	}
	p, err := a.sso.discover(r.Context())
	if err != nil {
		return ssoIdentity{}, err
	}
	tok, err := a.sso.verify(r, p, q.Get("code"), at)
	if err != nil {
		return ssoIdentity{}, err
	}
	return a.sso.identity(tok)
}

// verify exchanges the code, sending the PKCE verifier, and checks the ID
// token: signed by the provider, for our client id, unexpired, our nonce.
func (c *ssoClient) verify(r *http.Request, p *oidc.Provider, code string, at ssoAttempt) (*oidc.IDToken, error) {
	ctx := c.context(r.Context())
	tok, err := c.oauth2(p, r).Exchange(ctx, code, oauth2.VerifierOption(at.verifier))
	var refusedByIdP *oauth2.RetrieveError
	switch {
	case errors.As(err, &refusedByIdP):
		return nil, refused(errUnauthenticated, "The single sign-on provider did not accept the sign-in. Please try again.",
			fmt.Errorf("exchange the code: %w", err))
	case err != nil:
		return nil, refused(errIdPUnreachable, "The single sign-on provider could not be reached. Try again in a moment.",
			fmt.Errorf("exchange the code: %w", err))
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return nil, refused(errUnauthenticated, "The single sign-on provider sent no ID token.", errors.New("no id_token in the token response"))
	}
	idt, err := p.Verifier(&oidc.Config{ClientID: c.cfg.ClientID}).Verify(ctx, raw)
	if err != nil {
		return nil, refused(errUnauthenticated, "The single sign-on provider's ID token is not valid.", err)
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(at.nonce)) != 1 {
		return nil, refused(errUnauthenticated, "The single sign-on provider's ID token is not for this sign-in.",
			errors.New("nonce does not match the session's"))
	}
	return idt, nil
}

// ssoFailed answers a failed single sign-on with the sign-in page and what
// went wrong, saving the session, which no longer holds the attempt.
func (a *App) ssoFailed(w http.ResponseWriter, r *http.Request, s *session, next string, err error) {
	status, msg := errorStatus(err)
	cause := err
	var rf *ssoRefusal
	if errors.As(err, &rf) && rf.cause != nil {
		cause = rf.cause
	}
	log := a.logger(r.Context()).With("status", status, "reason", msg, "err", cause, "ip", clientIP(r))
	if status >= http.StatusInternalServerError && status != http.StatusBadGateway {
		log.Error("single sign-on failed")
	} else {
		log.Warn("single sign-on refused")
	}
	form := views.LoginForm{Error: msg}
	if next = safeNext(next); next != "/" {
		form.Next = next
	}
	if err := s.save(w, r); err != nil {
		a.pageError(w, r, err)
		return
	}
	a.renderLogin(w, r, s, status, form)
}
