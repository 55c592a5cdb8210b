// Package handlers is the admin listener: the admin web app (templ + htmx),
// the JSON management API under /api, and /healthz.
package handlers

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-playground/validator/v10"
	"github.com/gorilla/sessions"

	"gateway/models"
	"gateway/proxy"
	"gateway/proxy/linger"
	"gateway/proxy/pricing"
	"gateway/static"
)

// Reloader rebuilds the proxy's in-memory routing snapshot after an admin write.
type Reloader interface {
	Reload(ctx context.Context) error
}

// Runtime is the proxy's in-memory state that the admin side shows and
// changes: statistics, pool shares and cooldowns, live checks, sticky bindings.
// *proxy.Server implements it.
type Runtime interface {
	Stats() []proxy.DeploymentStats
	PoolStatus(name string, failedCheck func(id int64) bool) (proxy.PoolStatus, bool)
	CheckPool(ctx context.Context, name string) ([]proxy.CheckResult, bool)
	StickyBindings() []proxy.StickyBinding
	PinSticky(model string, deploymentID int64, ttl time.Duration) error
	ClearSticky(model string) (bool, error)
	ClearAllSticky() error
	EndCooldown(ctx context.Context, name string, deploymentID int64) error
	// LogBacklog is how many request-log rows wait in the spool, and how
	// many were dropped since the start.
	LogBacklog() (spooled, dropped int64)
	// SharedState says whether runtime state is shared with other replicas
	// through Redis (configured), and whether Redis answers now (up).
	SharedState() (configured, up bool)
}

// runtimeState is the proxy's runtime state, or errNoRuntime without a proxy.
func (a *App) runtimeState() (Runtime, error) {
	if a.runtime == nil {
		return nil, errNoRuntime
	}
	return a.runtime, nil
}

// Options configures the admin handlers.
type Options struct {
	Logger *slog.Logger // nil → discard
	// MasterKey is GATEWAY_MASTER_KEY; empty → the API accepts only admin sessions.
	MasterKey string
	// SessionKey signs and encrypts the session cookie: at least 32 bytes,
	// stable across restarts (main derives it from GATEWAY_SECRET).
	SessionKey []byte
	// SecureCookies sets Secure on cookies (TLS in front).
	SecureCookies bool
	// Reloader may be nil in tests.
	Reloader Reloader
	// Runtime may be nil in tests that do not touch runtime state.
	Runtime Runtime
	// OIDC turns on single sign-on; nil → passwords only.
	OIDC *OIDCConfig
}

// App serves the admin listener. Build it with New.
type App struct {
	store        *models.Store
	log          *slog.Logger
	masterKey    [sha256.Size]byte
	hasMasterKey bool
	sessions     *sessions.CookieStore
	reloader     Reloader
	runtime      Runtime
	validate     *validator.Validate
	throttle     *loginThrottle
	sso          *ssoClient // nil without OIDC
	prices       pricing.Store
	assetVersion string
	handler      http.Handler
}

// Admin sessions last at most this long after sign-in.
const sessionMaxAge = 12 * time.Hour

// New returns the admin handlers over store.
func New(store *models.Store, opts Options) (*App, error) {
	if store == nil {
		return nil, errors.New("handlers: nil store")
	}
	if len(opts.SessionKey) < 32 {
		return nil, fmt.Errorf("handlers: session key has %d bytes, need at least 32", len(opts.SessionKey))
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	version, err := assetVersion(static.FS)
	if err != nil {
		return nil, err
	}
	a := &App{
		store:        store,
		log:          logger.With("component", "admin"),
		hasMasterKey: opts.MasterKey != "",
		sessions:     newCookieStore(opts.SessionKey, opts.SecureCookies),
		reloader:     opts.Reloader,
		runtime:      opts.Runtime,
		validate:     newValidator(),
		throttle:     newLoginThrottle(loginLimitPerClient, loginLimitPerUser, loginWindow, loginCheckSlots),
		assetVersion: version,
	}
	if a.hasMasterKey {
		a.masterKey = sha256.Sum256([]byte(opts.MasterKey))
	}
	if opts.OIDC != nil {
		if a.sso, err = newSSOClient(*opts.OIDC, opts.SecureCookies); err != nil {
			return nil, err
		}
		a.log.Info("single sign-on configured", "issuer", opts.OIDC.Issuer, "role_claim", a.sso.roles.describe())
	}
	// Outermost, so that it sees the server's own ResponseWriter. A refused
	// body is read out for up to twice the limit more (see linger).
	a.handler = linger.Handler(a.withRequestLog(a.withSecurityHeaders(a.routes())), 2*maxBodyBytes)
	return a, nil
}

// ServeHTTP serves the whole admin listener.
func (a *App) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.handler.ServeHTTP(w, r)
}

// assetVersion is a short hash of every static file, put into asset URLs so
// that browsers may cache them for good.
func assetVersion(fsys fs.FS) (string, error) {
	h := sha256.New()
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", path, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("handlers: hash static files: %w", err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:12], nil
}
