package proxy

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"gateway/proxy/cluster"
)

// memberState is the runtime state of one deployment, kept apart from the
// snapshot and keyed by deployment id so that it survives reloads: an admin
// editing a weight must not reset a cooldown or the statistics. The pick reads
// only the cooldown, an atomic; the rest is written once per finished attempt
// under mu, never while an upstream call is in flight.
type memberState struct {
	coolUntil  atomic.Int64 // unix nanoseconds; 0 or past: not cooling down
	coolReason atomic.Pointer[string]
	// Every pick reads coolUntil; what follows is written by every request.
	// Apart on their own cache lines, the writes of requests in flight do not
	// make every other pick on this member wait for the line.
	_ [48]byte

	// What the routing strategies decide on: requests in flight here and,
	// with Redis, on the other replicas (a mirror); the moving average of
	// latency and when its last sample came; this minute's usage of an
	// entry's limits.
	inflight      atomic.Int64
	remoteBusy    atomic.Int64
	latencyEWMA   atomic.Int64 // nanoseconds; 0: no sample
	latencyUpdate atomic.Int64 // unix nanoseconds of the last sample
	window        entryWindow

	mu       sync.Mutex
	failures failureWindow
	stats    memberStats
}

// coolingDown reports whether the member is set aside at now.
func (st *memberState) coolingDown(now time.Time) bool {
	return st.coolUntil.Load() > now.UnixNano()
}

// cooldownLeft is how long the member stays set aside, 0 when it is not.
func (st *memberState) cooldownLeft(now time.Time) time.Duration {
	return max(time.Duration(st.coolUntil.Load()-now.UnixNano()), 0)
}

// coolDown sets the member aside until now+d. A deadline is only ever
// extended: a short cooldown (say a 5xx's) never cuts a provider's earlier
// "come back in 3 days". It reports whether the deadline moved.
func (st *memberState) coolDown(now time.Time, d time.Duration, reason string) bool {
	return st.extendTo(now.Add(d), reason)
}

// extendTo sets the member aside until until, unless it already is for
// longer, and reports whether the deadline moved.
func (st *memberState) extendTo(until time.Time, reason string) bool {
	u := until.UnixNano()
	for {
		cur := st.coolUntil.Load()
		if u <= cur {
			return false
		}
		if st.coolUntil.CompareAndSwap(cur, u) {
			st.coolReason.Store(&reason)
			// Whatever made it slow or failing, it is measured afresh when
			// it is back: latency-based routing explores it again.
			st.latencyEWMA.Store(0)
			return true
		}
	}
}

// endCooldown puts the member back at once.
func (st *memberState) endCooldown() { st.coolUntil.Store(0) }

// cooldown returns the deadline and why, when the member is cooling down.
func (st *memberState) cooldown(now time.Time) (until time.Time, reason string, ok bool) {
	n := st.coolUntil.Load()
	if n <= now.UnixNano() {
		return time.Time{}, "", false
	}
	if r := st.coolReason.Load(); r != nil {
		reason = *r
	}
	return time.Unix(0, n), reason, true
}

// busy is the member's requests in flight on every replica, as far as this
// one knows.
func (st *memberState) busy() int64 { return st.inflight.Load() + st.remoteBusy.Load() }

// latency is the moving average of the member's latency; ok is false when it
// has no sample from the last latencyStale, and is to be explored.
func (st *memberState) latency(now time.Time) (l time.Duration, ok bool) {
	l = time.Duration(st.latencyEWMA.Load())
	return l, l > 0 && now.UnixNano()-st.latencyUpdate.Load() < int64(latencyStale)
}

// observeLatency adds a sample of a served request to the moving average: a
// stream's time to its first byte, another answer's whole time. A stale
// average is started afresh.
func (st *memberState) observeLatency(now time.Time, sample time.Duration) {
	sample = max(sample, 1)
	_, fresh := st.latency(now)
	for {
		cur := st.latencyEWMA.Load()
		next := int64(sample)
		if cur > 0 && fresh {
			next = cur + int64(latencyAlpha*float64(int64(sample)-cur))
		}
		if st.latencyEWMA.CompareAndSwap(cur, max(next, 1)) {
			st.latencyUpdate.Store(now.UnixNano())
			return
		}
	}
}

// countFailure records a failure that counts towards allowed_fails and the
// failure rate (5xx, timeouts, connection errors) and says whether the member
// has now failed too often: more than allowedFails in the last minute, or more
// than half of at least 5 requests.
func (st *memberState) countFailure(now time.Time, allowedFails int) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.failures.add(now, true)
	reqs, fails := st.failures.sum(now)
	return fails > allowedFails || (reqs >= 5 && fails*2 > reqs)
}

// countSuccess records a success in the failure window.
func (st *memberState) countSuccess(now time.Time) {
	st.mu.Lock()
	st.failures.add(now, false)
	st.mu.Unlock()
}

// failureWindow counts requests and failures over the last minute in
// one-second buckets.
type failureWindow struct {
	buckets [60]struct {
		sec         int64
		reqs, fails int
	}
}

func (w *failureWindow) add(now time.Time, failed bool) {
	sec := now.Unix()
	b := &w.buckets[sec%60]
	if b.sec != sec {
		b.sec, b.reqs, b.fails = sec, 0, 0
	}
	b.reqs++
	if failed {
		b.fails++
	}
}

func (w *failureWindow) sum(now time.Time) (reqs, fails int) {
	sec := now.Unix()
	for _, b := range w.buckets {
		if b.sec > sec-60 && b.sec <= sec {
			reqs += b.reqs
			fails += b.fails
		}
	}
	return reqs, fails
}

// latencySamples is how many recent latencies a member keeps for its p95.
const latencySamples = 512

// memberStats are a member's statistics: requests, successes,
// latency, tokens, cost and the last error. Guarded by memberState.mu.
type memberStats struct {
	requests, successes int64
	latencySum          time.Duration
	latencies           []time.Duration // ring of the last latencySamples
	next                int
	tokensIn, tokensOut int64
	costUSD             float64
	lastError           string
	lastErrorAt         time.Time
}

// attemptOutcome is what one call to a member ended with.
type attemptOutcome struct {
	latency   time.Duration
	ok        bool
	err       string // when !ok
	tokensIn  int64
	tokensOut int64
	costUSD   float64
}

// recordAttempt adds one finished attempt to the statistics.
func (st *memberState) recordAttempt(now time.Time, o attemptOutcome) {
	st.mu.Lock()
	defer st.mu.Unlock()
	s := &st.stats
	s.requests++
	s.latencySum += o.latency
	if len(s.latencies) < latencySamples {
		s.latencies = append(s.latencies, o.latency)
	} else {
		s.latencies[s.next] = o.latency
		s.next = (s.next + 1) % latencySamples
	}
	s.tokensIn += o.tokensIn
	s.tokensOut += o.tokensOut
	s.costUSD += o.costUSD
	if o.ok {
		s.successes++
		return
	}
	s.lastError, s.lastErrorAt = o.err, now
}

// statsCopy returns the statistics with the p95 latency computed.
func (st *memberState) statsCopy() (memberStats, time.Duration) {
	st.mu.Lock()
	s := st.stats
	lat := slices.Clone(s.latencies)
	st.mu.Unlock()
	s.latencies = nil
	return s, p95(lat)
}

// p95 is the 95th percentile of latencies, which it sorts.
func p95(lat []time.Duration) time.Duration {
	if len(lat) == 0 {
		return 0
	}
	slices.Sort(lat)
	return lat[(len(lat)*95+99)/100-1]
}

// memberStates holds the state of every deployment. Only Reload takes its
// lock; requests reach a state through their snapshot's member.
type memberStates struct {
	mu   sync.Mutex
	byID map[int64]*memberState
}

func newMemberStates() *memberStates {
	return &memberStates{byID: make(map[int64]*memberState)}
}

// get returns the state of a deployment, creating it on first sight.
func (s *memberStates) get(id int64) *memberState {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.byID[id]
	if st == nil {
		st = &memberState{}
		s.byID[id] = st
	}
	return st
}

// all returns every deployment's state, by id.
func (s *memberStates) all() map[int64]*memberState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.byID)
}

// cooldowns returns the members cooling down at now.
func (s *memberStates) cooldowns(now time.Time) []cluster.Cooldown {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []cluster.Cooldown
	for id, st := range s.byID {
		if until, reason, ok := st.cooldown(now); ok {
			out = append(out, cluster.Cooldown{DeploymentID: id, Until: until, Reason: reason})
		}
	}
	return out
}

// endCooldownsExcept ends every cooldown but those of the members in live.
func (s *memberStates) endCooldownsExcept(live map[int64]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, st := range s.byID {
		if !live[id] {
			st.endCooldown()
		}
	}
}

// retain forgets deleted deployments so that the map does not grow forever;
// a disabled one keeps its state for when it is enabled again.
func (s *memberStates) retain(keep map[int64]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id := range s.byID {
		if !keep[id] {
			delete(s.byID, id)
		}
	}
}
