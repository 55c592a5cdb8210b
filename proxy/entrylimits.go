package proxy

import (
	"context"
	"sync"
	"time"

	"gateway/proxy/cluster"
)

// entryWindow counts one entry's requests and tokens in the current clock
// minute, against its rpm_limit and tpm_limit. A member at a limit is no
// candidate until the next minute starts: "this minute" is the clock minute,
// what a provider's per-minute quota resets on. Tokens are reserved from the
// request's estimate when the member is picked and corrected by the answer's
// usage when the attempt ends.
type entryWindow struct {
	mu           sync.Mutex
	minute       int64 // unix minute the counts are of
	reqs, tokens int64
}

// entryClaim is what one attempt holds on its member's window.
type entryClaim struct {
	minute, tokens int64
	held           bool
	shared         bool // in Redis too
}

func unixMinute(now time.Time) int64 { return now.Unix() / 60 }

// nextMinute is when the window after now's starts.
func nextMinute(now time.Time) time.Time { return time.Unix((unixMinute(now)+1)*60, 0) }

// rollTo starts the window of minute if it is not the current one. Caller
// holds w.mu.
func (w *entryWindow) rollTo(minute int64) {
	if w.minute != minute {
		w.minute, w.reqs, w.tokens = minute, 0, 0
	}
}

// usage is the requests and tokens of now's minute (none when the window
// counts another).
func (w *entryWindow) usage(now time.Time) (reqs, tokens int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.minute != unixMinute(now) {
		return 0, 0
	}
	return w.reqs, w.tokens
}

// atLimit reports whether the member may take no more this minute.
func (m *member) atLimit(now time.Time) bool {
	if !m.limited() {
		return false
	}
	reqs, tokens := m.state.window.usage(now)
	return full(reqs, tokens, m.rpmLimit, m.tpmLimit)
}

func full(reqs, tokens, rpm, tpm int64) bool {
	return (rpm > 0 && reqs >= rpm) || (tpm > 0 && tokens >= tpm)
}

func (m *member) limited() bool { return m.rpmLimit > 0 || m.tpmLimit > 0 }

// claim counts one request and its estimated tokens on the member's window,
// unless the member is at a limit (another request may have taken the last
// place since the candidates were drawn up). A member without limits is
// counted only when count says its usage matters (usage-based routing).
func (m *member) claim(now time.Time, estimate int, count bool) (entryClaim, bool) {
	if !count && !m.limited() {
		return entryClaim{}, true
	}
	w := &m.state.window
	w.mu.Lock()
	defer w.mu.Unlock()
	minute := unixMinute(now)
	w.rollTo(minute)
	if full(w.reqs, w.tokens, m.rpmLimit, m.tpmLimit) {
		return entryClaim{}, false
	}
	w.reqs++
	w.tokens += int64(estimate)
	return entryClaim{minute: minute, tokens: int64(estimate), held: true}, true
}

// claimFor takes the member's place in the limits shared with the other
// replicas when Redis is up and the member has limits, in one round trip,
// and mirrors the minute's use over every replica into the local window
// (so the next candidates leave out a member the others filled). Without
// Redis, or when it does not answer, the local window decides.
//
// The request's own shared admission, while it waits, runs first: in the
// same round trip as the member's claim when that goes to Redis. Its
// refusal is returned as err.
func (rq *routing) claimFor(m *member, now time.Time, count bool) (c entryClaim, ok bool, err error) {
	s := rq.s
	shared := s.cluster != nil && m.limited() && s.cluster.Up()
	minute := unixMinute(now)
	if rq.x.pending != nil {
		var e *cluster.EntryClaim
		if shared {
			e = &cluster.EntryClaim{ID: m.id, Minute: minute, RPM: m.rpmLimit, TPM: m.tpmLimit, Tokens: int64(rq.estimate)}
		}
		v, err := s.admitPending(rq.w, rq.x, e)
		if err != nil {
			return c, false, err
		}
		if v.EntryAsked {
			return m.mirror(minute, v.EntryOK, v.EntryUse, rq.estimate)
		}
	}
	if !shared {
		c, ok = m.claim(now, rq.estimate, count)
		return c, ok, nil
	}
	ok, use, err := s.cluster.ClaimEntry(context.Background(), m.id, minute, m.rpmLimit, m.tpmLimit, int64(rq.estimate))
	if err != nil {
		c, ok = m.claim(now, rq.estimate, count)
		return c, ok, nil
	}
	return m.mirror(minute, ok, use, rq.estimate)
}

// mirror sets the member's window to the minute's use over every replica,
// as Redis answered a claim, and returns the claim.
func (m *member) mirror(minute int64, ok bool, use cluster.EntryUse, estimate int) (entryClaim, bool, error) {
	w := &m.state.window
	w.mu.Lock()
	w.rollTo(minute)
	w.reqs, w.tokens = use.Requests, use.Tokens
	w.mu.Unlock()
	if !ok {
		return entryClaim{}, false, nil
	}
	return entryClaim{minute: minute, tokens: int64(estimate), held: true, shared: true}, true, nil
}

// settleFor settles an attempt's claim here and, when it was shared, in
// Redis (without waiting).
func (s *Server) settleFor(m *member, c entryClaim, used int64) {
	m.settle(c, used)
	if c.shared && s.cluster != nil {
		s.cluster.SettleEntry(m.id, c.minute, used-c.tokens)
	}
}

// settle replaces the estimate held by c with the tokens the attempt used
// (0 when it failed). A window that has moved on keeps its own counts.
func (m *member) settle(c entryClaim, used int64) {
	if !c.held {
		return
	}
	w := &m.state.window
	w.mu.Lock()
	if w.minute == c.minute {
		w.tokens = max(w.tokens+used-c.tokens, 0)
	}
	w.mu.Unlock()
}
