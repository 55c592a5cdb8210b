package cluster

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// op is one write that no request waits for: settling a request (batched:
// every settlement of a round trip goes in one script call), or anything
// else (sharing a cooldown or a binding, raising spends), which queues its
// commands on p.
type op struct {
	settle *settlement
	fn     func(ctx context.Context, p redis.Pipeliner)
}

const (
	outboxSize = 16 << 10 // ops waiting; past it they are dropped and counted
	batchSize  = 512      // ops sent in one pipeline, one round trip
	// statsEvery is how often the statistics gathered here are added to the
	// shared ones: one write per member and interval, not per request.
	statsEvery = 250 * time.Millisecond
)

// enqueue hands an op to the sender without ever blocking. While Redis is
// down the op is dropped: what it would have shared is caught up with when
// Redis is back (cooldowns are shared again, spend is raised to the
// database's, holds lapse).
func (c *Cluster) enqueue(o op) {
	if !c.up.Load() {
		c.dropped.Add(1)
		return
	}
	select {
	case c.outbox <- o:
	default:
		c.dropped.Add(1)
	}
}

// send writes queued ops in pipelines, in the order they were queued: one
// round trip for whatever has gathered while the last one was out. It also
// sends the statistics gathered here, every statsEvery.
func (c *Cluster) send() {
	tick := time.NewTicker(statsEvery)
	defer tick.Stop()
	batch := make([]op, 0, batchSize)
	for {
		select {
		case o := <-c.outbox:
			batch = append(batch[:0], o)
		case <-tick.C:
			batch = batch[:0]
			if o, ok := c.stats.take(c); ok {
				batch = append(batch, o)
			}
		case <-c.ctx.Done():
			c.flushLeft()
			return
		}
		batch = c.gather(batch)
		if len(batch) > 0 {
			c.exec(context.Background(), batch)
		}
	}
}

// gather adds what else is queued, up to a batch.
func (c *Cluster) gather(batch []op) []op {
	for len(batch) < batchSize {
		select {
		case o := <-c.outbox:
			batch = append(batch, o)
		default:
			return batch
		}
	}
	return batch
}

// flushLeft sends what is still queued at Close, and the last statistics,
// for a short while.
func (c *Cluster) flushLeft() {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	var batch []op
	if o, ok := c.stats.take(c); ok {
		batch = append(batch, o)
	}
	for {
		batch = c.gather(batch)
		if len(batch) == 0 || ctx.Err() != nil || !c.up.Load() {
			c.dropped.Add(int64(len(batch)))
			return
		}
		c.exec(ctx, batch)
		batch = batch[:0]
	}
}

// exec sends one batch: its settlements in one script call first (moving a
// settlement before a raise queued earlier is safe: a raise's floor only
// counts what was settled before it), then the other ops in order. A batch
// that fails is dropped, not retried: a retry could count a settlement twice.
func (c *Cluster) exec(ctx context.Context, batch []op) {
	ctx, cancel := context.WithTimeout(ctx, 2*c.timeout)
	defer cancel()
	p := c.rdb.Pipeline()
	var settles []*settlement
	for _, o := range batch {
		if o.settle != nil {
			settles = append(settles, o.settle)
		}
	}
	if len(settles) > 0 {
		keys, args := settleBatch(settles)
		settleScript.EvalSha(ctx, p, keys, args...)
	}
	for _, o := range batch {
		if o.fn != nil {
			o.fn(ctx, p)
		}
	}
	cmds, err := p.Exec(ctx)
	if err == nil {
		return
	}
	failed := 0
	for _, cmd := range cmds {
		if cmd.Err() != nil {
			failed++
			if redis.HasErrorPrefix(cmd.Err(), "NOSCRIPT") {
				// Redis restarted and forgot the scripts: load them again.
				c.loadScripts(ctx) //nolint:errcheck // logged there; the next batch tries again
			}
		}
	}
	c.dropped.Add(int64(failed))
	c.failed(err) // down, or refused: logged either way
}

// scripts are every script the cluster runs with EVALSHA in pipelines,
// where a missing script cannot fall back to EVAL.
var scripts = []*redis.Script{coolScript, bindScript, unbindScript, settleScript, raiseScript, statScript}

// loadScripts has Redis cache every script; run at each (re)connection.
// One at a time: Script.Load in a pipeline would record an empty digest.
func (c *Cluster) loadScripts(ctx context.Context) error {
	for _, s := range scripts {
		if err := s.Load(ctx, c.rdb).Err(); err != nil {
			c.log.Warn("could not load the scripts into redis", "err", err)
			return err
		}
	}
	return nil
}
