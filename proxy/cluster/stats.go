package cluster

import (
	"context"
	"strconv"
	"sync"
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

// statScript adds what one replica gathered of a member's attempts to its
// shared counters and latencies.
// KEYS: stats, latencies. ARGV: requests, successes, latency µs, tokens in,
// out, cost, last error, its time (ms), then latencies in µs.
var statScript = redis.NewScript(`
redis.call('HINCRBY', KEYS[1], 'requests', ARGV[1])
redis.call('HINCRBY', KEYS[1], 'successes', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'latency_us', ARGV[3])
redis.call('HINCRBY', KEYS[1], 'tokens_in', ARGV[4])
redis.call('HINCRBY', KEYS[1], 'tokens_out', ARGV[5])
redis.call('HINCRBY', KEYS[1], 'cost_nanos', ARGV[6])
if ARGV[7] ~= '' then redis.call('HSET', KEYS[1], 'last_error', ARGV[7], 'last_error_at', ARGV[8]) end
if #ARGV > 8 then
  redis.call('LPUSH', KEYS[2], unpack(ARGV, 9))
  redis.call('LTRIM', KEYS[2], 0, ` + strconv.Itoa(latencySamples-1) + `)
end
return 0`)

// statBook gathers the attempts of this replica between two sends.
type statBook struct {
	mu   sync.Mutex
	byID map[int64]*statDelta
}

// statDelta is one member's attempts since the last send.
type statDelta struct {
	requests, successes, latencyUS int64
	tokensIn, tokensOut, costNanos int64
	lastErr                        string
	lastErrAt                      int64 // unix ms
	samples                        []int64
}

func (b *statBook) add(a Attempt) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.byID == nil {
		b.byID = make(map[int64]*statDelta)
	}
	d := b.byID[a.DeploymentID]
	if d == nil {
		d = &statDelta{}
		b.byID[a.DeploymentID] = d
	}
	d.requests++
	us := a.Latency.Microseconds()
	d.latencyUS += us
	d.tokensIn += a.TokensIn
	d.tokensOut += a.TokensOut
	d.costNanos += a.CostNanos
	if a.OK {
		d.successes++
	} else {
		d.lastErr, d.lastErrAt = oneLine(a.Err), a.At.UnixMilli()
	}
	if len(d.samples) < latencySamples {
		d.samples = append(d.samples, us)
	}
}

// take returns an op that sends what was gathered, and starts again.
func (b *statBook) take(c *Cluster) (op, bool) {
	b.mu.Lock()
	gathered := b.byID
	b.byID = nil
	b.mu.Unlock()
	if len(gathered) == 0 {
		return op{}, false
	}
	return op{fn: func(ctx context.Context, p redis.Pipeliner) {
		for id, d := range gathered {
			args := make([]any, 0, 8+len(d.samples))
			args = append(args, d.requests, d.successes, d.latencyUS, d.tokensIn, d.tokensOut, d.costNanos, d.lastErr, d.lastErrAt)
			for _, s := range d.samples {
				args = append(args, s)
			}
			statScript.EvalSha(ctx, p, []string{c.keys.stats(id), c.keys.latencies(id)}, args...)
		}
	}}, true
}

// RecordAttempt counts an attempt in the shared statistics: gathered here,
// and added to Redis's every statsEvery.
func (c *Cluster) RecordAttempt(a Attempt) {
	if !c.up.Load() {
		return // this replica's own statistics keep it
	}
	c.stats.add(a)
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
