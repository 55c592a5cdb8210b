package cluster

import (
	"context"
	"crypto/rand"
	"errors"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// This file shares what the routing strategies decide on: each model
// entry's use of its rpm/tpm limits in the current minute (claimed
// atomically, so a limit of R admits at most R a minute over all replicas)
// and the requests each replica has in flight per entry (exchanged in the
// background, for least-busy routing).

// EntryUse is one entry's requests and tokens in one minute, over every
// replica.
type EntryUse struct{ Requests, Tokens int64 }

// claimEntryLua counts one request and its estimated tokens on an entry's
// minute k unless it is at a limit (rpm, tpm: 0 is none), and returns
// whether it did and the minute's use. The admission script claims with it
// too.
const claimEntryLua = `
local function claimEntry(k, rpm, tpm, tokens)
  local r = tonumber(redis.call('HGET', k, 'r')) or 0
  local t = tonumber(redis.call('HGET', k, 't')) or 0
  if (rpm > 0 and r >= rpm) or (tpm > 0 and t >= tpm) then return {0, r, t} end
  r = redis.call('HINCRBY', k, 'r', 1)
  t = redis.call('HINCRBY', k, 't', tokens)
  redis.call('EXPIRE', k, 120)
  return {1, r, t}
end
`

// claimEntryScript claims an entry's minute on its own.
// KEYS: the entry's minute. ARGV: rpm, tpm (0: none), tokens.
var claimEntryScript = redis.NewScript(claimEntryLua +
	`return claimEntry(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3])`)

func (k keyspace) entryMinute(id, minute int64) string {
	return k.prefix + "entry:" + strconv.FormatInt(id, 10) + ":" + strconv.FormatInt(minute, 10)
}

// ClaimEntry takes a place in an entry's limits for minute (unix minutes)
// in one round trip: ok is false when the entry is at a limit; use is the
// minute's use over every replica either way. On an error the caller
// decides on its own books.
func (c *Cluster) ClaimEntry(ctx context.Context, id, minute, rpm, tpm, tokens int64) (ok bool, use EntryUse, err error) {
	if !c.up.Load() {
		return false, use, ErrDown
	}
	ctx, cancel := c.commandContext(ctx)
	defer cancel()
	res, err := claimEntryScript.Run(ctx, c.admits, []string{c.keys.entryMinute(id, minute)}, rpm, tpm, tokens).Int64Slice()
	if err != nil {
		c.failed(err)
		return false, use, err
	}
	if len(res) < 3 {
		return false, use, errShortAnswer
	}
	return res[0] == 1, EntryUse{Requests: res[1], Tokens: res[2]}, nil
}

// errShortAnswer: a script answered with fewer values than it returns.
var errShortAnswer = errors.New("cluster: short answer from a script")

// SettleEntry corrects the tokens an attempt held on an entry's minute by
// delta (used less estimated), without waiting.
func (c *Cluster) SettleEntry(id, minute, delta int64) {
	if delta == 0 {
		return
	}
	key := c.keys.entryMinute(id, minute)
	c.enqueue(op{fn: func(ctx context.Context, p redis.Pipeliner) {
		p.HIncrBy(ctx, key, "t", delta)
		p.Expire(ctx, key, 120*time.Second)
	}})
}

// busyScript publishes this replica's requests in flight per entry and
// returns the others', summed. Each replica's counts live in a hash of its
// own that lapses when the replica stops publishing, listed in a sorted set
// by when it last did.
// KEYS: the set of replicas. ARGV: prefix of the hashes, this replica, its
// hash's life in ms, then entry id and count pairs.
var busyScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local mine = ARGV[1] .. ARGV[2]
local life = tonumber(ARGV[3])
redis.call('DEL', mine)
if #ARGV > 3 then
  redis.call('HSET', mine, unpack(ARGV, 4))
  redis.call('PEXPIRE', mine, life)
end
redis.call('ZADD', KEYS[1], now, ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - life)
local sums, out = {}, {}
for _, r in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if r ~= ARGV[2] then
    local all = redis.call('HGETALL', ARGV[1] .. r)
    for f = 1, #all, 2 do sums[all[f]] = (sums[all[f]] or 0) + tonumber(all[f + 1]) end
  end
end
for id, n in pairs(sums) do
  out[#out + 1] = id
  out[#out + 1] = n
end
return out`)

// busyLife is how long a replica's in-flight counts stand without being
// published again: a replica that stopped is forgotten after it.
const busyLife = 2 * time.Second

// ExchangeBusy publishes this replica's requests in flight per entry (those
// with none may be left out) and returns the other replicas' totals, in
// one round trip. Call it every few hundred milliseconds.
func (c *Cluster) ExchangeBusy(ctx context.Context, mine map[int64]int64) (map[int64]int64, error) {
	if !c.up.Load() {
		return nil, ErrDown
	}
	args := make([]any, 0, 3+2*len(mine))
	args = append(args, c.keys.prefix+"busy:", c.replica, busyLife.Milliseconds())
	for id, n := range mine {
		if n > 0 {
			args = append(args, id, n)
		}
	}
	ctx, cancel := c.commandContext(ctx)
	defer cancel()
	res, err := busyScript.Run(ctx, c.rdb, []string{c.keys.prefix + "busyreplicas"}, args...).Int64Slice()
	if err != nil {
		c.failed(err)
		return nil, err
	}
	out := make(map[int64]int64, len(res)/2)
	for i := 0; i+1 < len(res); i += 2 {
		out[res[i]] = res[i+1]
	}
	return out, nil
}

// newReplicaID names this replica among the others for as long as it runs.
func newReplicaID() string { return rand.Text()[:12] }
