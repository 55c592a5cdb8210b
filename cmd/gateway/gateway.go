package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"gateway/handlers"
	"gateway/models"
	"gateway/proxy"
	"gateway/proxy/cluster"
)

// shutdownTimeout bounds how long in-flight requests and streams may take to
// finish after a signal.
const shutdownTimeout = 30 * time.Second

// Gateway is a running gateway: database, proxy and admin servers.
type Gateway struct {
	logger  *slog.Logger
	db      *models.DB
	Store   *models.Store
	proxy   *proxy.Server
	cluster *cluster.Cluster // nil without GATEWAY_REDIS_URL
	proxyLn net.Listener
	adminLn net.Listener
	proxySv *http.Server
	adminSv *http.Server
	served  chan error
	// stopFollowing ends the background work: following other gateways'
	// changes, pruning old logs (both run on backgroundCtx).
	backgroundCtx context.Context
	background    sync.WaitGroup
	stopFollowing context.CancelFunc
	following     chan struct{}

	shutdownOnce sync.Once
	shutdownErr  error
}

// Start opens and migrates the database, bootstraps the first admin and key,
// builds the routing snapshot and starts both listeners. A start that fails
// says which setting or step failed, and closes what it had opened.
func Start(ctx context.Context, cfg Config, stdout, stderr io.Writer) (_ *Gateway, err error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	level, _ := parseLevel(cfg.LogLevel) // checked
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	// Not the named result: a failure returns nil, and the cleanup needs g.
	g := &Gateway{logger: logger, served: make(chan error, 2)}
	defer func() {
		if err != nil {
			g.closeEarly()
		}
	}()
	secret, err := g.openStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := bootstrap(ctx, g.Store, cfg, stdout, logger); err != nil {
		return nil, err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	g.proxy = proxy.New(g.Store, proxy.Options{
		Logger:       logger,
		MaxBodyBytes: int64(cfg.MaxBodyMB) << 20,
		Metrics:      reg,
		SpoolDir:     filepath.Join(cfg.DataDir, "spool"),
	})
	if err := g.shareState(ctx, cfg, reg); err != nil {
		return nil, err
	}
	if err := g.proxy.Reload(ctx); err != nil {
		return nil, fmt.Errorf("build routing table: %w", err)
	}
	origin := newOrigin()
	sso, _ := cfg.oidcConfig() // checked
	admin, err := handlers.New(g.Store, handlers.Options{
		Logger:        logger,
		MasterKey:     cfg.MasterKey,
		SessionKey:    deriveKey(secret, "gateway admin sessions v1"),
		SecureCookies: cfg.SecureCookies,
		Reloader:      announcingReloader{proxy: g.proxy, db: g.db, origin: origin},
		Runtime:       g.proxy,
		OIDC:          sso,
	})
	if err != nil {
		return nil, fmt.Errorf("admin: %w", err)
	}
	// /metrics sits beside the admin app on its listener (loopback by default).
	adminMux := http.NewServeMux()
	adminMux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	adminMux.Handle("/", admin)
	if err := g.listen(cfg, adminMux); err != nil {
		return nil, err
	}
	if err := g.followChanges(ctx, origin); err != nil {
		return nil, fmt.Errorf("follow other gateways' changes: %w", err)
	}
	g.background.Go(func() { pruneLogs(g.backgroundCtx, g.Store, logger) })
	g.background.Go(func() { admin.RunBackgroundChecks(g.backgroundCtx) })
	g.background.Go(func() { g.proxy.FollowSpend(g.backgroundCtx, spendRefreshInterval) })
	g.background.Go(func() { g.proxy.FollowBusy(g.backgroundCtx) })
	logger.Info("gateway started", "proxy", "http://"+g.ProxyAddr(), "admin", "http://"+g.AdminAddr(), "database", g.db.Dialect)
	return g, nil
}

// spendRefreshInterval is how often budgets read the stored spend again:
// replicas on one database see each other's spend within about that.
const spendRefreshInterval = time.Second

// redisStartWait is how long a start waits for Redis before it serves on
// its own state (and catches up once Redis answers).
const redisStartWait = 3 * time.Second

// shareState connects to Redis when GATEWAY_REDIS_URL is set, before the
// routing table is built, so that the first request already honours the
// cooldowns and bindings the other replicas share. A Redis that does not
// answer is no reason to refuse to start: the gateway serves on its own
// state and catches up when it is back. A URL that cannot be read is.
func (g *Gateway) shareState(ctx context.Context, cfg Config, reg *prometheus.Registry) error {
	if cfg.RedisURL == "" {
		return nil
	}
	id, err := g.Store.ClusterID(ctx)
	if err != nil {
		return fmt.Errorf("read the cluster id: %w", err)
	}
	c, err := cluster.New(cluster.Options{URL: cfg.RedisURL, Namespace: id, Logger: g.logger, Mirror: g.proxy.Mirror()})
	if err != nil {
		return settingError("redis-url", err)
	}
	g.cluster = c
	g.proxy.Share(c)
	reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "gateway_redis_up",
			Help: "1 while Redis answers and runtime state is shared with the other replicas, 0 while this replica serves on its own."},
			func() float64 {
				if c.Up() {
					return 1
				}
				return 0
			}),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "gateway_redis_dropped_writes_total",
			Help: "Writes to the shared state that never reached Redis (it was down, or the queue was full)."},
			func() float64 { return float64(c.Dropped()) }))
	if err := c.Start(redisStartWait); err != nil {
		g.logger.Warn("starting without the shared state", "err", err)
	}
	return nil
}

// openStore opens and migrates the database and returns the gateway secret
// its provider keys are sealed with.
func (g *Gateway) openStore(ctx context.Context, cfg Config) (string, error) {
	db, err := models.Open(ctx, cfg.DatabaseURL, cfg.DataDir)
	if db != nil {
		g.db = db // closed by closeEarly, also when it opened but does not answer
	}
	switch {
	case err != nil && cfg.DatabaseURL != "":
		return "", settingError("database-url", err)
	case err != nil:
		return "", settingError("data-dir", err)
	}
	if err := db.Migrate(ctx); err != nil {
		return "", fmt.Errorf("migrate the database: %w", err)
	}
	if db.Dialect == models.DialectPostgres && cfg.Secret == "" {
		g.logger.Warn("GATEWAY_SECRET is unset: provider keys are sealed with a key generated into the data dir; replicas on this database must share one GATEWAY_SECRET")
	}
	secret, err := models.LoadOrCreateSecret(cfg.Secret, cfg.DataDir)
	if err != nil {
		return "", settingError("secret", fmt.Errorf("unset, and the one generated into the data dir cannot be used: %w", err))
	}
	c, err := models.NewCipher(secret)
	if err != nil {
		return "", settingError("secret", err)
	}
	g.Store = models.NewStore(db, c)
	return secret, nil
}

// followChanges starts following other gateways' changes and waits until
// their notices are heard, so that a change made elsewhere right after Start
// is never missed.
func (g *Gateway) followChanges(ctx context.Context, origin string) error {
	followCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	g.backgroundCtx = followCtx
	listening := make(chan struct{})
	g.stopFollowing, g.following = stop, make(chan struct{})
	go func() {
		defer close(g.following)
		followChanges(followCtx, g.db, g.proxy, origin, g.logger, listening)
	}()
	select {
	case <-listening:
		return nil
	case <-time.After(10 * time.Second):
		return errors.New("could not LISTEN for other gateways' changes within 10 s")
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *Gateway) listen(cfg Config, admin http.Handler) error {
	var err error
	if g.proxyLn, err = net.Listen("tcp", cfg.ProxyAddr); err != nil {
		return settingError("proxy-addr", err)
	}
	if g.adminLn, err = net.Listen("tcp", cfg.AdminAddr); err != nil {
		return settingError("admin-addr", err)
	}
	errLog := slog.NewLogLogger(g.logger.Handler(), slog.LevelWarn)
	// No write timeout on the proxy: streams last as long as the model writes.
	g.proxySv = &http.Server{Handler: g.proxy, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute, ErrorLog: errLog}
	g.adminSv = &http.Server{Handler: admin, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
		WriteTimeout: 2 * time.Minute, IdleTimeout: 2 * time.Minute, ErrorLog: errLog}
	go func() { g.served <- serveUntilClosed(g.proxySv, g.proxyLn) }()
	go func() { g.served <- serveUntilClosed(g.adminSv, g.adminLn) }()
	return nil
}

func serveUntilClosed(s *http.Server, ln net.Listener) error {
	if err := s.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// ProxyAddr is the proxy listener's address, e.g. 127.0.0.1:4000.
func (g *Gateway) ProxyAddr() string { return g.proxyLn.Addr().String() }

// AdminAddr is the admin listener's address.
func (g *Gateway) AdminAddr() string { return g.adminLn.Addr().String() }

// Shutdown stops taking requests, lets in-flight requests and streams finish
// (at most shutdownTimeout), drains the request-log writer, then closes the
// database. Calling it again returns the first call's result.
func (g *Gateway) Shutdown(ctx context.Context) error {
	g.shutdownOnce.Do(func() { g.shutdownErr = g.shutdown(ctx) })
	return g.shutdownErr
}

func (g *Gateway) shutdown(ctx context.Context) error {
	g.logger.Info("shutting down: finishing in-flight requests")
	streamsCtx, cancel := context.WithTimeout(ctx, shutdownTimeout)
	defer cancel()
	errs := []error{g.adminSv.Shutdown(streamsCtx), g.proxySv.Shutdown(streamsCtx)}
	if errs[0] != nil || errs[1] != nil {
		// Past the bound: cut what is left rather than hang.
		errs = append(errs, g.adminSv.Close(), g.proxySv.Close())
	}
	errs = append(errs, <-g.served, <-g.served)
	g.stopFollowing()
	<-g.following
	g.background.Wait()
	errs = append(errs, g.proxy.Close(ctx))
	if g.cluster != nil {
		errs = append(errs, g.cluster.Close())
	}
	errs = append(errs, g.db.Close())
	g.logger.Info("gateway stopped")
	return errors.Join(errs...)
}

// closeEarly releases what a failed Start had opened.
func (g *Gateway) closeEarly() {
	if g.stopFollowing != nil {
		g.stopFollowing()
		<-g.following
		g.background.Wait()
	}
	for _, ln := range []net.Listener{g.proxyLn, g.adminLn} {
		if ln != nil {
			ln.Close()
		}
	}
	if g.proxy != nil {
		g.proxy.Close(context.Background())
	}
	if g.cluster != nil {
		g.cluster.Close()
	}
	if g.db != nil {
		g.db.Close()
	}
}

// deriveKey derives a purpose-bound 64-byte key from the gateway secret.
func deriveKey(secret, purpose string) []byte {
	var out []byte
	for _, part := range []string{"auth", "encrypt"} {
		m := hmac.New(sha256.New, []byte(secret))
		m.Write([]byte(purpose + "/" + part))
		out = m.Sum(out)
	}
	return out
}
