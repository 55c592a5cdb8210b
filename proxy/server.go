// Package proxy is the gateway's /v1 server: key auth, routing of a public
// model name to a pool member, the upstream call (streams forwarded event by
// event), usage and cost, and the asynchronous request log writer.
//
// A proxied request never touches the database: it reads an immutable
// snapshot of the routing table and keys, which Reload rebuilds and swaps in.
package proxy

import (
	"context"
	"log/slog"
	"math"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"gateway/models"
	"gateway/proxy/cluster"
	"gateway/proxy/linger"
	"gateway/proxy/pricing"
	"gateway/proxy/requestlog"
)

const (
	defaultMaxBodyBytes = 32 << 20 // Anthropic's own limit
	defaultLogQueueSize = 10_000
)

// Options configure the proxy server.
type Options struct {
	Logger       *slog.Logger // nil → discard
	MaxBodyBytes int64        // request body limit; 0 → 32 MiB
	LogQueueSize int          // bounded queue of the async log writer; 0 → 10000
	// SpoolDir keeps request logs the database cannot take yet, past what
	// memory holds and at shutdown; "" keeps them in memory only.
	SpoolDir string
	// DefaultCooldown sets a failing member aside when neither the member nor
	// the upstream says for how long; 0 → 60 s.
	DefaultCooldown time.Duration
	// Metrics, when set, receives the proxy's Prometheus series.
	Metrics prometheus.Registerer
	// StreamHeaderTimeout is how long a stream's response headers may take
	// before the member counts as failed; 0 → 15 s (design, "Limits and
	// timeouts"). An entry's shorter timeout_seconds wins.
	StreamHeaderTimeout time.Duration
	// StreamKeepAlive is how long a stream may wait for its first event
	// before it is committed to the caller, and how often a keep-alive then
	// goes out until that event; 0 → 10 s.
	StreamKeepAlive time.Duration
	// Now and Sleep are the clock; tests inject one so that cooldowns and
	// backoffs need no real waiting. nil → the real clock.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

const defaultCooldown = 60 * time.Second

// Server serves the proxy listener. Create it with New, load its routing
// table with Reload, and Close it after the HTTP server has shut down.
type Server struct {
	store   *models.Store
	log     *slog.Logger
	maxBody int64
	snap    atomic.Pointer[snapshot]
	states  *memberStates // runtime state, survives reloads
	logs    *requestlog.Writer
	// responses keeps the Responses API's state.
	responses *responseStore
	handler   http.Handler
	sticky    stickyTable // runtime state, survives reloads
	accounts  *accounts   // budgets and rate limits; runtime state too
	// cluster shares runtime state with the other replicas through Redis;
	// nil without (Share sets it before serving).
	cluster *cluster.Cluster
	metrics *metrics
	// eventReaders recycles the buffers streams are read with.
	eventReaders eventReaders
	now          func() time.Time
	sleep        func(ctx context.Context, d time.Duration) error

	defaultCooldown     time.Duration
	streamHeaderTimeout time.Duration
	streamKeepAlive     time.Duration

	reloadMu   sync.Mutex
	transports map[int64]*cachedTransport // by provider id; guarded by reloadMu
	prices     pricing.Store              // the price catalog as last read
}

// New returns a server over store and starts its log writer. It serves
// nothing but health and 503s until the first Reload.
func New(store *models.Store, opts Options) *Server {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	logger = logger.With("component", "proxy")
	s := &Server{
		store:      store,
		log:        logger,
		maxBody:    cmpOr(opts.MaxBodyBytes, defaultMaxBodyBytes),
		states:     newMemberStates(),
		accounts:   newAccounts(),
		logs:       requestlog.New(store, logger, cmpOr(opts.LogQueueSize, defaultLogQueueSize), opts.SpoolDir).Start(),
		now:        opts.Now,
		sleep:      opts.Sleep,
		transports: make(map[int64]*cachedTransport),

		defaultCooldown:     cmpOr(opts.DefaultCooldown, defaultCooldown),
		streamHeaderTimeout: cmpOr(opts.StreamHeaderTimeout, defaultStreamHeaderTimeout),
		streamKeepAlive:     cmpOr(opts.StreamKeepAlive, defaultStreamKeepAlive),
	}
	s.responses = newResponseStore(store, s.logs)
	if s.now == nil {
		s.now = time.Now
	}
	if s.sleep == nil {
		s.sleep = sleepContext
	}
	s.metrics = newMetrics(opts.Metrics, s)
	// A refused body is read out for up to twice the limit more (min: no
	// overflow of an absurd limit), so that a caller still sending a body of
	// up to twice the limit gets its 413 rather than a reset.
	s.handler = linger.Handler(s.routes(), 2*min(s.maxBody, math.MaxInt64/4))
	return s
}

// cmpOr is cmp.Or that also treats a negative option as unset.
func cmpOr[T int | int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// sleepContext waits for d or until ctx is done.
func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.handler.ServeHTTP(w, r)
}

// Ready reports whether a snapshot has been loaded.
func (s *Server) Ready() bool { return s.snap.Load() != nil }

// Close stops taking request logs and flushes what is queued, for as long as
// ctx allows. Call it after the HTTP server's Shutdown, so that no request is
// still logging.
func (s *Server) Close(ctx context.Context) error {
	err := s.logs.Close(ctx)
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	for _, ct := range s.transports {
		ct.transport.CloseIdleConnections()
	}
	return err
}

// LogsDropped returns how many request logs were dropped so far (refused by
// the database for their content, or no room left); for metrics.
func (s *Server) LogsDropped() int64 { return s.logs.Dropped() }
