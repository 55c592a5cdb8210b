package cluster

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// op is one write that no request waits for: settling a request (batched:
// every settlement of a round trip goes in one script call), sharing a
// cooldown (remembered when it does not arrive, to be shared again at the
// next resync), or anything else (sharing a binding, raising spends), which
// queues its commands on p.
type op struct {
	settle *settlement
	cool   *Cooldown
	fn     func(ctx context.Context, p redis.Pipeliner)
}

const (
	outboxSize = 16 << 10 // ops waiting; past it they are dropped and counted
	batchSize  = 512      // ops sent in one pipeline, one round trip
	// statsEvery is how often the statistics gathered here are added to the
	// shared ones: one write per member and interval, not per request.
	statsEvery = 250 * time.Millisecond
)

// enqueue hands an op to the sender without ever blocking, and reports
// whether it was taken. While Redis is down the op is dropped: what it
// would have shared is caught up with when Redis is back (cooldowns are
// shared again, spend is raised to the database's, holds lapse).
func (c *Cluster) enqueue(o op) bool {
	if c.up.Load() {
		select {
		case c.outbox <- o:
			return true
		default:
		}
	}
	c.lost(o)
	return false
}

// lost counts an op that never reached Redis, and remembers a cooldown.
func (c *Cluster) lost(o op) {
	c.dropped.Add(1)
	if o.cool != nil {
		c.keepUnshared(*o.cool)
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
			for _, o := range batch {
				c.lost(o)
			}
			return
		}
		c.exec(ctx, batch)
		batch = batch[:0]
	}
}

// exec sends one batch: its settlements in one script call first (moving a
// settlement before a raise queued earlier is safe: a raise's floor only
// counts what was settled before it), then the other ops in order. A
// command Redis refused for want of its script (Redis restarted and forgot
// them) did not run: it is sent once more after the scripts are loaded.
// Any other failure is dropped, not retried: a retry could count a
// settlement twice.
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
	var settleCmd redis.Cmder
	if len(settles) > 0 {
		keys, args := settleBatch(settles)
		settleCmd = settleScript.EvalSha(ctx, p, keys, args...)
	}
	cools := make(map[redis.Cmder]Cooldown)
	for _, o := range batch {
		switch {
		case o.cool != nil:
			cools[c.coolCmd(ctx, p, *o.cool)] = *o.cool
		case o.fn != nil:
			o.fn(ctx, p)
		}
	}
	cmds, err := p.Exec(ctx)
	if err == nil {
		return
	}
	again := c.resendWithoutScripts(ctx, cmds)
	var lost int64
	for _, cmd := range cmds {
		if r, ok := again[cmd]; ok {
			cmd = r
		}
		if cmd.Err() == nil {
			continue
		}
		err = cmd.Err()
		if cmd == settleCmd {
			lost += int64(len(settles))
		} else {
			lost++
		}
		if cd, ok := cools[cmd]; ok {
			c.keepUnshared(cd)
		}
	}
	if lost > 0 {
		c.dropped.Add(lost)
		c.failed(err) // down, or refused: logged either way
	}
}

// resendWithoutScripts loads the scripts and sends again the commands
// Redis refused with NOSCRIPT, once; it returns their new results by the
// commands they replace.
func (c *Cluster) resendWithoutScripts(ctx context.Context, cmds []redis.Cmder) map[redis.Cmder]redis.Cmder {
	var missing []redis.Cmder
	for _, cmd := range cmds {
		if err := cmd.Err(); err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
			missing = append(missing, cmd)
		}
	}
	if len(missing) == 0 || c.loadScripts(ctx) != nil {
		return nil
	}
	p := c.rdb.Pipeline()
	again := make(map[redis.Cmder]redis.Cmder, len(missing))
	for _, cmd := range missing {
		again[cmd] = p.Do(ctx, cmd.Args()...)
	}
	p.Exec(ctx) //nolint:errcheck // each command's error is read by the caller
	return again
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
