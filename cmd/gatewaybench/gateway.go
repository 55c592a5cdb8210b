package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"gateway/models"
	"gateway/proxy"
	"gateway/proxy/cluster"
)

// gatewayUnderTest is the gateway's proxy built from its packages, the way
// cmd/gateway's Start builds it, on a SQLite database in a temporary
// directory or a scratch PostgreSQL database. What Start adds besides (the admin listener, following other
// replicas, pruning old logs) is off the proxied request's path.
type gatewayUnderTest struct {
	db      *models.DB
	store   *models.Store
	proxy   *proxy.Server
	cluster *cluster.Cluster // with -redis-url
	srv     *server
	key     string // the virtual key callers send
	// dropDB drops the scratch PostgreSQL database, if there is one.
	dropDB func() error
}

// startGateway seeds two pools in front of upstream, loads the routing table
// and starts serving. The logger is the gateway's default (info), so that a
// per-request log line, if there is one, is formatted as in production.
func startGateway(ctx context.Context, dataDir, databaseURL, redisURL, upstream string, logger *slog.Logger) (g *gatewayUnderTest, err error) {
	g = &gatewayUnderTest{}
	defer func() {
		if err != nil {
			err = errors.Join(err, g.close(context.WithoutCancel(ctx)))
			g = nil
		}
	}()
	if err := g.openStore(ctx, dataDir, databaseURL); err != nil {
		return g, err
	}
	if g.key, err = seed(ctx, g.store, upstream); err != nil {
		return g, err
	}
	g.proxy = proxy.New(g.store, proxy.Options{Logger: logger})
	if redisURL != "" {
		if err := g.share(ctx, redisURL, logger); err != nil {
			return g, err
		}
	}
	if err := g.proxy.Reload(ctx); err != nil {
		return g, err
	}
	g.srv, err = serve(g.proxy, slog.NewLogLogger(logger.Handler(), slog.LevelWarn))
	return g, err
}

// share connects the gateway to Redis as cmd/gateway does, under a
// namespace of this run's own.
func (g *gatewayUnderTest) share(ctx context.Context, redisURL string, logger *slog.Logger) error {
	ns, err := g.store.ClusterID(ctx)
	if err != nil {
		return err
	}
	c, err := cluster.New(cluster.Options{URL: redisURL, Namespace: "gatewaybench-" + ns, Logger: logger, Mirror: g.proxy.Mirror()})
	if err != nil {
		return err
	}
	g.cluster = c
	g.proxy.Share(c)
	return c.Start(5 * time.Second)
}

func (g *gatewayUnderTest) openStore(ctx context.Context, dataDir, databaseURL string) error {
	dsn := ""
	if databaseURL != "" {
		var err error
		if dsn, g.dropDB, err = models.CreateScratchDatabase(ctx, databaseURL, "gatewaybench_"); err != nil {
			return err
		}
	}
	db, err := models.Open(ctx, dsn, dataDir)
	if err != nil {
		return err
	}
	g.db = db
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	secret, err := models.LoadOrCreateSecret("", dataDir)
	if err != nil {
		return err
	}
	cipher, err := models.NewCipher(secret)
	if err != nil {
		return err
	}
	g.store = models.NewStore(db, cipher)
	return nil
}

// poolWeights are the members' weights in both pools.
var poolWeights = []float64{5, 3, 2}

// entryRPM is each entry's rpm limit.
var entryRPM = 1_000_000_000

// seed creates an OpenAI pool and an Anthropic pool of three providers each,
// all pointing at upstream, and a virtual key with a budget and a limit.
// Each entry has an rpm limit too, as one holding a provider's quota does.
func seed(ctx context.Context, store *models.Store, upstream string) (string, error) {
	pools := []struct{ apiType, public, upstreamModel, baseURL string }{
		{models.APITypeOpenAI, poolOpenAI, "gpt-bench", upstream + "/v1"},
		{models.APITypeAnthropic, poolAnthropic, "claude-bench", upstream},
	}
	for _, pool := range pools {
		for i, weight := range poolWeights {
			p := &models.Provider{Name: fmt.Sprintf("%s-%d", pool.public, i+1), APIType: pool.apiType, BaseURL: pool.baseURL}
			if err := store.CreateProvider(ctx, p, models.ProviderSecrets{APIKey: fmt.Sprintf("sk-upstream-%s-%d", pool.public, i+1)}); err != nil {
				return "", err
			}
			// Prices make the gateway compute a cost, as it does for real
			// models; the limit, far beyond a run, is claimed at each pick
			// (with -redis-url, in the admission's round trip).
			d := &models.Deployment{PublicName: pool.public, ProviderID: p.ID, UpstreamModel: pool.upstreamModel,
				Weight: &weight, Prices: models.PricesOf(2.5, 10), Enabled: true,
				RateLimits: models.RateLimits{RPMLimit: &entryRPM}}
			if err := store.CreateDeployment(ctx, d); err != nil {
				return "", err
			}
		}
	}
	// A budget and a limit far beyond what a run spends, as a production key
	// has: the gateway admits every request against them (in Redis with
	// -redis-url), which is part of what a request costs.
	budget, rpm := 1e9, 1_000_000_000
	return store.CreateKey(ctx, &models.VirtualKey{Name: "gatewaybench", Budget: models.Budget{MaxBudgetUSD: &budget}, RateLimits: models.RateLimits{RPMLimit: &rpm}})
}

// waitLogged waits until the request-log writer has written (or dropped)
// a row for each of the sent requests, for at most timeout, and returns how
// many it is still behind.
func (g *gatewayUnderTest) waitLogged(ctx context.Context, sent int64, timeout time.Duration) int64 {
	deadline := time.Now().Add(timeout)
	for {
		var written int64
		err := g.store.DB().WithContext(ctx).Model(&models.RequestLog{}).Count(&written).Error
		behind := sent - written - g.proxy.LogsDropped()
		if err != nil || behind <= 0 || time.Now().After(deadline) || ctx.Err() != nil {
			return behind
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// served is how many requests each pool member answered, by pool and
// provider name.
func (g *gatewayUnderTest) served() map[string]map[string]int64 {
	out := map[string]map[string]int64{}
	for _, s := range g.proxy.Stats() {
		if out[s.PublicName] == nil {
			out[s.PublicName] = map[string]int64{}
		}
		out[s.PublicName][s.Provider] += s.Requests
	}
	return out
}

// close stops the server, flushes the request logs and closes the database,
// in the order cmd/gateway shuts down.
func (g *gatewayUnderTest) close(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var errs []error
	if g.srv != nil {
		errs = append(errs, g.srv.shutdown(ctx))
	}
	if g.proxy != nil {
		errs = append(errs, g.proxy.Close(ctx))
	}
	if g.cluster != nil {
		errs = append(errs, g.cluster.Close())
	}
	if g.db != nil {
		errs = append(errs, g.db.Close())
	}
	if g.dropDB != nil {
		errs = append(errs, g.dropDB())
	}
	return errors.Join(errs...)
}
