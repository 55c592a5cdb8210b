package cluster

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// HolderKeys are the names of one holder's shared counters, built once per
// holder rather than per request.
type HolderKeys struct {
	Window  string
	Held    string
	HeldSum string
	spent   string // without the period
}

// Keys returns the names of a holder's counters.
func (c *Cluster) Keys(h Holder) HolderKeys {
	return HolderKeys{Window: c.keys.window(h), Held: c.keys.held(h), HeldSum: c.keys.heldSum(h), spent: c.keys.spent(h, 0)}
}

// Spent is the name of the holder's spend in the period that ends at
// periodEnd (unix seconds; 0 without a period).
func (k HolderKeys) Spent(periodEnd int64) string {
	if periodEnd == 0 {
		return k.spent
	}
	return k.spent[:len(k.spent)-1] + strconv.FormatInt(periodEnd, 10)
}

// Limit is one holder's requests and tokens per minute (0: no limit).
type Limit struct {
	Window   string
	RPM, TPM int
}

// Budget is one holder's budget in its current period, in nanodollars.
type Budget struct {
	Spent, Held, HeldSum string
	// Hard is the budget; 0 admits anything (the spend is still counted,
	// for a soft budget).
	Hard int64
	// Seed is the spend to start from when Redis has none for the period:
	// the database's, as this replica last read it, plus what it settled
	// since.
	Seed int64
}

// Admission is one request's claim on the shared limits and budgets.
type Admission struct {
	RequestID string
	Amount    int64 // the worst-case cost held until the request settles
	Limits    []Limit
	Budgets   []Budget
}

// EntryClaim is the claim on an entry's limits an admission makes too
// (AdmitClaiming). It is not part of the settlement: SettleEntry corrects
// its tokens.
type EntryClaim struct {
	ID, Minute, RPM, TPM, Tokens int64
}

// Refusal kinds of a Verdict.
const (
	Admitted = iota
	OverRPM
	OverTPM
	OverBudget
)

// Verdict is what the admission script decided.
type Verdict struct {
	Refusal int // Admitted, OverRPM, OverTPM or OverBudget
	Index   int // the limit or budget that refused, from 0
	// RetryAfter: when the refusing window has room again (limits).
	RetryAfter time.Duration
	// Spent and Held: the refusing budget's spend and what requests in
	// flight hold on it; admitted, Spent is each budget's spend.
	Spent [3]int64
	Held  int64
	// EntryAsked: the admission carried an entry claim and admitted the
	// request, so the claim was decided: EntryOK when it took its place,
	// EntryUse the entry's minute over every replica either way.
	EntryAsked, EntryOK bool
	EntryUse            EntryUse
}

// How long shared counters live: a reservation lapses after the longest a
// request may take (a replica that died holds nothing for ever); a period's
// spend is forgotten an hour after its last use, and then started again
// from the database, which by then has every row.
const (
	holdFor   = 15 * time.Minute
	spentLife = time.Hour
)

// admitScript checks every limit and budget of a request and, when all
// admit it, counts the request and holds its worst case, atomically: N
// replicas on one budget spend at most that budget, and a limit of R admits
// at most R a minute in total.
//
// A limit's window is a hash of the last minute's requests ("r<unix
// second>") and tokens ("t<unix second>") with their totals ("R", "T") as
// of the second "b": each admission takes off only the seconds that left
// the minute since then, rather than adding up all sixty again (that sum
// was most of what an admission cost Redis). A window without totals (new,
// or started again by a settlement after it lapsed), idle for a minute, or
// whose clock went back, is counted from its seconds.
//
// KEYS: a window per limit, then spent, held, heldsum per budget, then
// maybe an entry's minute.
// ARGV: reservation member, amount, #limits, #budgets, hold ms, spent ttl s,
// then rpm, tpm per limit, then hard, seed per budget, then the entry's
// rpm, tpm and tokens when it is claimed too.
var admitScript = redis.NewScript(claimEntryLua + `
local t = redis.call('TIME')
local sec = tonumber(t[1])
local now = sec * 1000 + math.floor(tonumber(t[2]) / 1000)
local member, amount = ARGV[1], tonumber(ARGV[2])
local nl, nb = tonumber(ARGV[3]), tonumber(ARGV[4])
local hold, life = tonumber(ARGV[5]), tonumber(ARGV[6])

local function recount(k)
  local all = redis.call('HGETALL', k)
  local reqs, toks = 0, 0
  for f = 1, #all, 2 do
    local s = tonumber(string.sub(all[f], 2))
    if s and s <= sec - 60 then
      redis.call('HDEL', k, all[f])
    elseif s and string.sub(all[f], 1, 1) == 'r' then
      reqs = reqs + tonumber(all[f + 1])
    elseif s then
      toks = toks + tonumber(all[f + 1])
    end
  end
  return reqs, toks
end

local function window(k)
  local v = redis.call('HMGET', k, 'R', 'T', 'b')
  local b = tonumber(v[3])
  local reqs, toks = tonumber(v[1]), tonumber(v[2])
  if not (b and reqs and toks and reqs >= 0 and toks >= 0) or sec - b >= 60 or sec < b then
    reqs, toks = recount(k)
  elseif b == sec then
    return reqs, toks
  else
    local gone = {}
    for s = b - 59, sec - 60 do
      gone[#gone + 1] = 'r' .. s
      gone[#gone + 1] = 't' .. s
    end
    local n = redis.call('HMGET', k, unpack(gone))
    for i = 1, #gone, 2 do
      reqs = reqs - (tonumber(n[i]) or 0)
      toks = toks - (tonumber(n[i + 1]) or 0)
    end
    redis.call('HDEL', k, unpack(gone))
  end
  redis.call('HSET', k, 'R', reqs, 'T', toks, 'b', sec)
  redis.call('EXPIRE', k, 120)
  return reqs, toks
end

local function oldest(k, kind)
  local f = {}
  for s = sec - 59, sec do f[#f + 1] = kind .. s end
  local n = redis.call('HMGET', k, unpack(f))
  for i = 1, #f do
    if (tonumber(n[i]) or 0) > 0 then return sec - 60 + i end
  end
  return sec
end

local a = 7
for i = 1, nl do
  local rpm, tpm = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
  a = a + 2
  local reqs, toks = window(KEYS[i])
  if rpm > 0 and reqs >= rpm then return {1, i - 1, oldest(KEYS[i], 'r') + 60 - sec} end
  if tpm > 0 and toks >= tpm then return {2, i - 1, oldest(KEYS[i], 't') + 60 - sec} end
end
local spent = {}
for j = 1, nb do
  local k = nl + 3 * (j - 1)
  local hard, seed = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
  a = a + 2
  local s = tonumber(redis.call('GET', KEYS[k + 1]))
  if not s then
    s = seed
    redis.call('SET', KEYS[k + 1], seed, 'EX', life)
  end
  local lapsed = redis.call('ZRANGEBYSCORE', KEYS[k + 2], '-inf', now)
  if #lapsed > 0 then
    local gone = 0
    for _, m in ipairs(lapsed) do gone = gone + tonumber(string.match(m, ':(%d+)$')) end
    redis.call('ZREMRANGEBYSCORE', KEYS[k + 2], '-inf', now)
    redis.call('DECRBY', KEYS[k + 3], gone)
  end
  local held = math.max(tonumber(redis.call('GET', KEYS[k + 3])) or 0, 0)
  if hard > 0 and s + held + amount > hard then return {3, j - 1, 0, s, held} end
  spent[j] = s
end
for i = 1, nl do
  redis.call('HINCRBY', KEYS[i], 'r' .. sec, 1)
  redis.call('HINCRBY', KEYS[i], 'R', 1)
  redis.call('EXPIRE', KEYS[i], 120)
end
local out = {0, 0, 0}
for j = 1, nb do
  local k = nl + 3 * (j - 1)
  redis.call('ZADD', KEYS[k + 2], now + hold, member)
  redis.call('INCRBY', KEYS[k + 3], amount)
  redis.call('PEXPIRE', KEYS[k + 2], hold)
  redis.call('PEXPIRE', KEYS[k + 3], hold)
  redis.call('EXPIRE', KEYS[k + 1], life)
  out[#out + 1] = spent[j]
end
local e = nl + 3 * nb + 1
if KEYS[e] then
  for _, v in ipairs(claimEntry(KEYS[e], tonumber(ARGV[a]), tonumber(ARGV[a + 1]), ARGV[a + 2])) do
    out[#out + 1] = v
  end
end
return out`)

// settleScript replaces the holds of a batch of requests by their costs
// and counts their tokens. A spend is only added to a period Redis still
// has: one it forgot starts again from the database, which will have it.
//
// ARGV[1]: how many; then per request: member, amount, cost, tokens,
// #limits, #budgets. KEYS: per request, a window per limit, then spent,
// held, heldsum per budget.
var settleScript = redis.NewScript(`
local t = redis.call('TIME')
local sec = tonumber(t[1])
local k, a = 0, 2
for n = 1, tonumber(ARGV[1]) do
  local member, amount, cost, tokens = ARGV[a], tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3])
  local nl, nb = tonumber(ARGV[a + 4]), tonumber(ARGV[a + 5])
  a = a + 6
  for i = 1, nl do
    k = k + 1
    if tokens > 0 then
      redis.call('HINCRBY', KEYS[k], 't' .. sec, tokens)
      redis.call('HINCRBY', KEYS[k], 'T', tokens)
      redis.call('EXPIRE', KEYS[k], 120)
    end
  end
  for j = 1, nb do
    if redis.call('ZREM', KEYS[k + 2], member) == 1 then redis.call('DECRBY', KEYS[k + 3], amount) end
    if cost > 0 and redis.call('EXISTS', KEYS[k + 1]) == 1 then redis.call('INCRBY', KEYS[k + 1], cost) end
    k = k + 3
  end
end
return 0`)

// settlement is one request's settling, waiting to be sent.
type settlement struct {
	a            *Admission
	cost, tokens int64
}

// settleBatch is the keys and arguments of settleScript for settles.
func settleBatch(settles []*settlement) ([]string, []any) {
	var keys []string
	args := make([]any, 0, 1+6*len(settles))
	args = append(args, len(settles))
	for _, s := range settles {
		keys = append(keys, s.a.keys()...)
		args = append(args, s.a.member(), s.a.Amount, s.cost, s.tokens, len(s.a.Limits), len(s.a.Budgets))
	}
	return keys, args
}

// raiseScript raises each spend in KEYS to at least the floor in ARGV: the
// database's view, which a Redis that restarted, or missed settlements
// while it was down, may be behind.
var raiseScript = redis.NewScript(`
for i, k in ipairs(KEYS) do
  local s = tonumber(redis.call('GET', k))
  local f = tonumber(ARGV[i])
  if s and s < f then redis.call('SET', k, f, 'KEEPTTL') end
end
return 0`)

// ErrDown is returned instead of asking a Redis known to be down.
var ErrDown = errors.New("cluster: redis is unreachable")

// Admit checks and counts a request against the shared limits and budgets
// in one round trip. On an error the caller admits on its own books; the
// script may still have run (an answer lost to the timeout): then the
// request counts once more in its windows, and its hold lapses after
// holdFor, both on the safe side.
func (c *Cluster) Admit(ctx context.Context, a *Admission) (Verdict, error) {
	return c.AdmitClaiming(ctx, a, nil)
}

// AdmitClaiming is Admit that, once the limits and budgets admit the
// request, claims e (when not nil) in the same round trip: the entry the
// request's first pick chose. A refusal of the request leaves e untouched.
func (c *Cluster) AdmitClaiming(ctx context.Context, a *Admission, e *EntryClaim) (Verdict, error) {
	if !c.up.Load() {
		return Verdict{}, ErrDown
	}
	args := make([]any, 0, 9+2*len(a.Limits)+2*len(a.Budgets))
	args = append(args, a.member(), a.Amount, len(a.Limits), len(a.Budgets), holdFor.Milliseconds(), int64(spentLife/time.Second))
	for _, l := range a.Limits {
		args = append(args, l.RPM, l.TPM)
	}
	for _, b := range a.Budgets {
		args = append(args, b.Hard, b.Seed)
	}
	keys := a.keys()
	if e != nil {
		keys = append(keys, c.keys.entryMinute(e.ID, e.Minute))
		args = append(args, e.RPM, e.TPM, e.Tokens)
	}
	ctx, cancel := c.commandContext(ctx)
	defer cancel()
	res, err := admitScript.Run(ctx, c.admits, keys, args...).Int64Slice()
	if err != nil {
		c.failed(err)
		return Verdict{}, err
	}
	return verdict(res, len(a.Budgets), e != nil)
}

// verdict reads the admission script's answer for an admission of
// nb budgets, with an entry claim or not.
func verdict(res []int64, nb int, entry bool) (Verdict, error) {
	var v Verdict
	if len(res) < 3 {
		return v, errShortAnswer
	}
	v.Refusal, v.Index = int(res[0]), int(res[1])
	switch v.Refusal {
	case OverRPM, OverTPM:
		v.RetryAfter = max(time.Duration(res[2])*time.Second, time.Second)
	case OverBudget:
		if len(res) >= 5 {
			v.Spent[0], v.Held = res[3], res[4]
		}
	default:
		need := 3 + nb
		if entry {
			need += 3 // ok, requests, tokens
		}
		if len(res) < need {
			return v, errShortAnswer
		}
		copy(v.Spent[:], res[3:3+nb])
		if entry {
			e := res[3+nb:]
			v.EntryAsked, v.EntryOK, v.EntryUse = true, e[0] == 1, EntryUse{Requests: e[1], Tokens: e[2]}
		}
	}
	return v, nil
}

// Settle replaces the request's hold by its cost (nanodollars) and counts
// its tokens, without waiting.
func (c *Cluster) Settle(a *Admission, cost, tokens int64) {
	c.enqueue(op{settle: &settlement{a: a, cost: cost, tokens: tokens}})
}

// keys are the keys of a request's scripts: a window per limit, then
// spent, held, heldsum per budget.
func (a *Admission) keys() []string {
	keys := make([]string, 0, len(a.Limits)+3*len(a.Budgets))
	for _, l := range a.Limits {
		keys = append(keys, l.Window)
	}
	for _, b := range a.Budgets {
		keys = append(keys, b.Spent, b.Held, b.HeldSum)
	}
	return keys
}

// member names the request's hold; the amount in it is what lapses.
func (a *Admission) member() string {
	return a.RequestID + ":" + strconv.FormatInt(a.Amount, 10)
}

// Raise lifts shared spends to at least floors (nanodollars, by key name),
// without waiting.
func (c *Cluster) Raise(floors map[string]int64) {
	if len(floors) == 0 {
		return
	}
	keys := make([]string, 0, len(floors))
	args := make([]any, 0, len(floors))
	for k, f := range floors {
		keys = append(keys, k)
		args = append(args, f)
	}
	c.enqueue(op{fn: func(ctx context.Context, p redis.Pipeliner) {
		raiseScript.EvalSha(ctx, p, keys, args...)
	}})
}
