package cluster

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Attempt is one finished call to a member, for the shared statistics.
type Attempt struct {
	DeploymentID        int64
	OK                  bool
	Latency             time.Duration
	TokensIn, TokensOut int64
	CostNanos           int64
	Err                 string // when !OK
	At                  time.Time
}

// latencySamples is how many recent latencies a member keeps for its p95,
// across replicas.
const latencySamples = 512

// statScript adds one attempt to a member's counters and latencies.
// KEYS: stats, latencies. ARGV: ok, latency µs, tokens in, out, cost, error, error at.
var statScript = redis.NewScript(`
redis.call('HINCRBY', KEYS[1], 'requests', 1)
if ARGV[1] == '1' then redis.call('HINCRBY', KEYS[1], 'successes', 1) end
redis.call('HINCRBY', KEYS[1], 'latency_us', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'tokens_in', ARGV[3])
redis.call('HINCRBY', KEYS[1], 'tokens_out', ARGV[4])
redis.call('HINCRBY', KEYS[1], 'cost_nanos', ARGV[5])
if ARGV[6] ~= '' then redis.call('HSET', KEYS[1], 'last_error', ARGV[6], 'last_error_at', ARGV[7]) end
redis.call('LPUSH', KEYS[2], ARGV[2])
redis.call('LTRIM', KEYS[2], 0, ` + strconv.Itoa(latencySamples-1) + `)
return 0`)

// RecordAttempt adds an attempt to the shared statistics, without waiting.
func (c *Cluster) RecordAttempt(a Attempt) {
	c.enqueue(func(ctx context.Context, p redis.Pipeliner) {
		ok := "0"
		if a.OK {
			ok = "1"
		}
		statScript.Eval(ctx, p, []string{c.keys.stats(a.DeploymentID), c.keys.latencies(a.DeploymentID)},
			ok, a.Latency.Microseconds(), a.TokensIn, a.TokensOut, a.CostNanos, oneLine(a.Err), a.At.UnixMilli())
	})
}

// MemberStats are one member's statistics over every replica.
type MemberStats struct {
	Requests, Successes int64
	LatencySum          time.Duration
	Latencies           []time.Duration // the most recent, newest first
	TokensIn, TokensOut int64
	CostNanos           int64
	LastError           string
	LastErrorAt         time.Time
}

// Stats reads the shared statistics of the members ids, in one round trip.
func (c *Cluster) Stats(ctx context.Context, ids []int64) (map[int64]MemberStats, error) {
	ctx, cancel := c.commandContext(ctx)
	defer cancel()
	p := c.rdb.Pipeline()
	counters := make([]*redis.MapStringStringCmd, len(ids))
	lats := make([]*redis.StringSliceCmd, len(ids))
	for i, id := range ids {
		counters[i] = p.HGetAll(ctx, c.keys.stats(id))
		lats[i] = p.LRange(ctx, c.keys.latencies(id), 0, -1)
	}
	if _, err := p.Exec(ctx); err != nil {
		c.failed(err)
		return nil, err
	}
	out := make(map[int64]MemberStats, len(ids))
	for i, id := range ids {
		out[id] = memberStats(counters[i].Val(), lats[i].Val())
	}
	return out, nil
}

func memberStats(h map[string]string, lats []string) MemberStats {
	n := func(f string) int64 {
		v, _ := strconv.ParseInt(h[f], 10, 64)
		return v
	}
	s := MemberStats{Requests: n("requests"), Successes: n("successes"), LatencySum: time.Duration(n("latency_us")) * time.Microsecond,
		TokensIn: n("tokens_in"), TokensOut: n("tokens_out"), CostNanos: n("cost_nanos"), LastError: h["last_error"]}
	if at := n("last_error_at"); at > 0 {
		s.LastErrorAt = time.UnixMilli(at)
	}
	for _, l := range lats {
		if us, err := strconv.ParseInt(l, 10, 64); err == nil {
			s.Latencies = append(s.Latencies, time.Duration(us)*time.Microsecond)
		}
	}
	return s
}
