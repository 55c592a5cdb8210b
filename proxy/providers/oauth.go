package providers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	"golang.org/x/oauth2/jwt"

	"gateway/models"
)

// cloudPlatformScope is the scope Vertex AI's calls need.
const cloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform"

// tokenFetchTimeout bounds one token request to the key file's token_uri.
const tokenFetchTimeout = 15 * time.Second

// tokenEarlyRefresh: a token is replaced this long before it expires, so
// that no call goes out with one that expires on the way.
const tokenEarlyRefresh = 2 * time.Minute

// oauthAuth sends a service account's OAuth token as a bearer token. The
// token comes from the key file's token_uri by Google's library (a JWT
// assertion signed with the file's private key) and is cached: calls share
// one token until shortly before it expires. The cache is the library's
// ReuseTokenSource idea, kept here rather than in one because a token
// source is bound to one context: the fetch must run under the calling
// request's context (its caller may leave) and the gateway's bounded
// client, which a source made once cannot have.
type oauthAuth struct {
	conf      *jwt.Config
	transport http.RoundTripper // the provider's, for the token fetch too
	token     atomic.Pointer[oauthToken]
	mu        sync.Mutex // one fetch at a time
	now       func() time.Time
}

// oauthToken is a fetched token and its header value, built once.
type oauthToken struct {
	value   []string
	refresh time.Time // when to fetch the next one
}

func newOAuthAuth(_ *models.Provider, s models.ProviderSecrets, t *http.Transport) (Authorizer, error) {
	conf, err := google.JWTConfigFromJSON([]byte(s.CredentialsJSON), cloudPlatformScope)
	if err != nil {
		// The library's errors quote no key material.
		return nil, fmt.Errorf("credentials_json: %w", err)
	}
	return &oauthAuth{conf: conf, now: time.Now, transport: t}, nil
}

func (a *oauthAuth) Authorize(req *http.Request, _ []byte) error {
	tok, err := a.current(req.Context())
	if err != nil {
		return err
	}
	req.Header["Authorization"] = tok.value
	return nil
}

// current is the cached token, or a new one when it is due.
func (a *oauthAuth) current(ctx context.Context) (*oauthToken, error) {
	if tok := a.token.Load(); tok != nil && a.now().Before(tok.refresh) {
		return tok, nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if tok := a.token.Load(); tok != nil && a.now().Before(tok.refresh) {
		return tok, nil // another call fetched it meanwhile
	}
	// The library posts without a context of its own: the client's
	// transport gives its request the caller's.
	client := &http.Client{Transport: contextTransport{ctx, a.transport}, Timeout: tokenFetchTimeout}
	t, err := a.conf.TokenSource(context.WithValue(ctx, oauth2.HTTPClient, client)).Token()
	if err != nil {
		return nil, &TokenError{Err: err}
	}
	tok := &oauthToken{value: []string{"Bearer " + t.AccessToken}, refresh: a.now().Add(time.Hour)}
	if !t.Expiry.IsZero() {
		tok.refresh = t.Expiry.Add(-min(tokenEarlyRefresh, t.Expiry.Sub(a.now())/2))
	}
	a.token.Store(tok)
	return tok, nil
}

// TokenError is a failed token fetch: the key file's token endpoint
// refused the key (an auth failure of the provider's) or could not be
// reached.
type TokenError struct{ Err error }

func (e *TokenError) Error() string {
	return "get an OAuth token for the service account: " + e.Err.Error()
}
func (e *TokenError) Unwrap() error { return e.Err }

// Refused reports whether the token endpoint answered and refused the key
// (oauth2.RetrieveError with a 4xx), rather than failing or being out of
// reach.
func (e *TokenError) Refused() bool {
	var re *oauth2.RetrieveError
	return errors.As(e.Err, &re) && re.Response != nil && re.Response.StatusCode/100 == 4
}

// contextTransport sends each request under ctx.
type contextTransport struct {
	ctx context.Context
	rt  http.RoundTripper
}

func (c contextTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return c.rt.RoundTrip(req.WithContext(c.ctx))
}
