// Package cluster shares a gateway's runtime state with its replicas through
// Redis (design, "Scale-out"): cooldowns and sticky bindings, which every
// replica mirrors in its own memory and keeps in step through one channel;
// rate-limit windows and budget reservations, admitted by one script per
// request; and per-member statistics. Without GATEWAY_REDIS_URL nothing here
// runs.
//
// Redis is never the record: spend is written to the database with the
// request logs. While Redis cannot be reached a replica serves on its own
// state, and catches up when it is back.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Options configure a Cluster.
type Options struct {
	// URL is redis://… or rediss://…, as go-redis parses it.
	URL string
	// Namespace keeps this gateway's keys and channel apart from those of
	// other gateways on the same Redis: the cluster id every replica on one
	// database shares.
	Namespace string
	Logger    *slog.Logger // nil → discard
	// Mirror receives the state other replicas share. It must be set
	// before Start.
	Mirror Mirror
	// PingInterval is how often the link is checked; 0 → 500 ms.
	PingInterval time.Duration
	// CommandTimeout bounds a command on the request path; 0 → 1 s.
	CommandTimeout time.Duration
}

// Cluster is one replica's link to the state it shares with the others.
// Its methods are safe for concurrent use; a nil *Cluster is not.
type Cluster struct {
	rdb *redis.Client
	// admits sends what requests wait for (admissions, entry claims): the
	// commands of requests that wait at the same time go to Redis together,
	// one write and one read for all of them (go-redis's autopipelining).
	admits  *redis.AutoPipeliner
	keys    keyspace
	replica string // this replica's name among the others
	log     *slog.Logger
	mirror  Mirror
	timeout time.Duration
	every   time.Duration

	up      atomic.Bool
	dropped atomic.Int64 // writes that never reached Redis
	// unshared are cooldowns set here that never reached Redis, shared at
	// the next resync; nothing else set here is (holds lapse, spend is
	// raised from the database, bindings are made again by traffic).
	unsharedMu sync.Mutex
	unshared   map[int64]Cooldown
	// epoch is the one Redis had at the last resync; only resync uses it.
	epoch  string
	outbox chan op
	stats  statBook

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// resyncs asks the follower to share what it kept and load the shared
	// state again: Redis is back after a time it was taken for down, which
	// a subscription that never broke would not notice.
	resyncs chan struct{}
	// synced is closed once the shared state has been loaded the first time.
	synced     chan struct{}
	syncedOnce sync.Once
}

// quiet is go-redis's own logger, which would print every failed dial while
// Redis is down: the cluster says once that Redis is gone, and once that it
// is back.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

var quietOnce sync.Once

// New checks the options and returns a Cluster that is not connected yet.
func New(opts Options) (*Cluster, error) {
	quietOnce.Do(func() { redis.SetLogger(quiet{}) })
	ro, err := redis.ParseURL(opts.URL)
	if err != nil {
		return nil, fmt.Errorf("cluster: redis url: %w", err)
	}
	if opts.Namespace == "" || opts.Mirror == nil {
		return nil, errors.New("cluster: a namespace and a mirror are required")
	}
	timeout := cmpOr(opts.CommandTimeout, time.Second)
	// The request path falls back to local state rather than wait: no
	// retries, short timeouts, and enough connections for a busy replica.
	ro.MaxRetries = -1
	ro.DialTimeout, ro.ReadTimeout, ro.WriteTimeout, ro.PoolTimeout = timeout, timeout, timeout, timeout
	ro.PoolSize = max(ro.PoolSize, 64)
	ro.DisableIdentity = true
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	rdb := redis.NewClient(ro)
	admits, err := rdb.AutoPipeline()
	if err != nil {
		rdb.Close()
		return nil, fmt.Errorf("cluster: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Cluster{
		rdb:      rdb,
		admits:   admits,
		keys:     newKeyspace(opts.Namespace),
		replica:  newReplicaID(),
		log:      logger.With("component", "cluster"),
		mirror:   opts.Mirror,
		timeout:  timeout,
		every:    cmpOr(opts.PingInterval, 500*time.Millisecond),
		outbox:   make(chan op, outboxSize),
		unshared: make(map[int64]Cooldown),
		resyncs:  make(chan struct{}, 1),
		ctx:      ctx,
		cancel:   cancel,
		synced:   make(chan struct{}),
	}, nil
}

// Start connects: it follows the channel, checks the link, and writes what
// requests leave behind. It waits up to wait for the shared state to load, so
// that a replica that starts honours the cooldowns set before it; a Redis
// that does not answer by then is reported, and the replica serves on its
// own state until it does.
func (c *Cluster) Start(wait time.Duration) error {
	c.wg.Go(c.follow)
	c.wg.Go(c.watch)
	c.wg.Go(c.send)
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-c.synced:
		return nil
	case <-t.C:
		return fmt.Errorf("cluster: redis did not answer within %s; serving on local state until it does", wait)
	}
}

// Close stops following and writing, after a last try to send what is
// queued, and closes the connections.
func (c *Cluster) Close() error {
	c.cancel()
	c.wg.Wait()
	return c.rdb.Close()
}

// Up reports whether Redis answered the last check, or a command since.
func (c *Cluster) Up() bool { return c.up.Load() }

// Dropped is how many writes never reached Redis (it was down, or the
// queue was full); for metrics.
func (c *Cluster) Dropped() int64 { return c.dropped.Load() }

// watch pings Redis and keeps the up flag, logging each change once.
func (c *Cluster) watch() {
	t := time.NewTicker(c.every)
	defer t.Stop()
	for {
		ctx, cancel := context.WithTimeout(c.ctx, c.timeout)
		err := c.rdb.Ping(ctx).Err()
		cancel()
		if c.ctx.Err() != nil {
			return
		}
		wasUp := c.up.Load()
		c.setUp(err == nil, err)
		if err == nil && !wasUp {
			c.askResync()
		}
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
		}
	}
}

// askResync has the follower resync soon; asks made meanwhile are one.
func (c *Cluster) askResync() {
	select {
	case c.resyncs <- struct{}{}:
	default:
	}
}

// setUp records whether Redis answers. Going down is logged once, and so is
// coming back.
func (c *Cluster) setUp(up bool, err error) {
	if c.up.Swap(up) == up {
		return
	}
	if up {
		c.log.Info("redis is reachable: runtime state is shared with the other replicas")
		return
	}
	c.log.Warn("redis is unreachable: serving on this replica's own state until it is back", "err", err)
}

// failed notes a command's error: a connection that fails marks Redis down
// at once, so that the next requests do not wait for it too. So does a
// pool with no free connection within the timeout: a Redis that slow is
// as good as down for the request path, and the next ping says when it is
// back.
func (c *Cluster) failed(err error) {
	if err == nil || errors.Is(err, redis.Nil) || c.ctx.Err() != nil {
		return
	}
	var rerr redis.Error
	if errors.As(err, &rerr) {
		// Redis answered, with an error of its own: the link is fine.
		c.log.Error("redis refused a command", "err", err)
		return
	}
	c.setUp(false, err)
}

// commandContext bounds one command on the request path.
func (c *Cluster) commandContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), c.timeout)
}

func cmpOr(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}
