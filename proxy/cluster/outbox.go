package cluster

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// op is one write that no request waits for: settling a request, counting an
// attempt, sharing a cooldown or a binding. It queues its commands on p.
type op func(ctx context.Context, p redis.Pipeliner)

const (
	outboxSize = 16 << 10 // ops waiting; past it they are dropped and counted
	batchSize  = 512      // ops sent in one pipeline, one round trip
)

// enqueue hands an op to the sender without ever blocking. While Redis is
// down the op is dropped: what it would have shared is caught up with when
// Redis is back (cooldowns are shared again, spend is raised to the
// database's, reservations lapse).
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
// round trip for whatever has gathered while the last one was out.
func (c *Cluster) send() {
	batch := make([]op, 0, batchSize)
	for {
		select {
		case o := <-c.outbox:
			batch = append(batch[:0], o)
		case <-c.ctx.Done():
			c.flushLeft()
			return
		}
	gather:
		for len(batch) < batchSize {
			select {
			case o := <-c.outbox:
				batch = append(batch, o)
			default:
				break gather
			}
		}
		c.exec(context.Background(), batch)
	}
}

// flushLeft sends what is still queued at Close, for a short while.
func (c *Cluster) flushLeft() {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	for {
		var batch []op
	gather:
		for len(batch) < batchSize {
			select {
			case o := <-c.outbox:
				batch = append(batch, o)
			default:
				break gather
			}
		}
		if len(batch) == 0 || ctx.Err() != nil || !c.up.Load() {
			c.dropped.Add(int64(len(batch)))
			return
		}
		c.exec(ctx, batch)
	}
}

// exec sends one batch. A batch that fails is dropped: the ops are
// idempotent only in part, and a retry could count a settlement twice.
func (c *Cluster) exec(ctx context.Context, batch []op) {
	ctx, cancel := context.WithTimeout(ctx, 2*c.timeout)
	defer cancel()
	p := c.rdb.Pipeline()
	for _, o := range batch {
		o(ctx, p)
	}
	cmds, err := p.Exec(ctx)
	if err == nil {
		return
	}
	failed := 0
	for _, cmd := range cmds {
		if cmd.Err() != nil {
			failed++
		}
	}
	c.dropped.Add(int64(failed))
	c.failed(err) // down, or refused: logged either way
}
