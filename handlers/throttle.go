package handlers

import (
	"context"
	"crypto/sha256"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"
)

// loginThrottle limits sign-in attempts, in memory. An attempt is counted
// under the lock before its password is checked, and forgotten again when it
// succeeds: checking first and counting a failure after the slow bcrypt would
// let parallel attempts all pass the check. Two limits apply: per client IP
// and username (an admin mistyping), and per username across all IPs (one
// client cycling addresses). The password checks themselves run a few at a
// time, so that parallel sign-ins cannot eat the CPU the proxy needs.
type loginThrottle struct {
	mu       sync.Mutex
	now      func() time.Time
	byClient attemptLog // by client IP and username
	byUser   attemptLog // by username
	slots    chan struct{}
	slotWait time.Duration // how long an attempt waits for a slot
}

// attemptLog counts recent attempts per key: at most limit within window.
type attemptLog struct {
	limit    int
	window   time.Duration
	attempts map[string][]time.Time // oldest first, at most limit
}

// loginAttempt is one counted attempt.
type loginAttempt struct {
	client, user string
	at           time.Time
}

// Beyond this many keys, every new attempt first drops the expired ones, so
// an attacker cycling usernames cannot grow the map for long.
const throttlePruneAbove = 10_000

// Limits of admin sign-ins: 5 failures per client IP and username, 20 per
// username from anywhere, within 15 minutes; 2 password checks at a time,
// waited for at most 10 seconds.
const (
	loginLimitPerClient = 5
	loginLimitPerUser   = 20
	loginWindow         = 15 * time.Minute
	loginCheckSlots     = 2
	loginSlotWait       = 10 * time.Second
)

func newLoginThrottle(perClient, perUser int, window time.Duration, slots int) *loginThrottle {
	return &loginThrottle{
		now:      time.Now,
		byClient: attemptLog{limit: perClient, window: window, attempts: map[string][]time.Time{}},
		byUser:   attemptLog{limit: perUser, window: window, attempts: map[string][]time.Time{}},
		slots:    make(chan struct{}, slots),
		slotWait: loginSlotWait,
	}
}

// begin counts an attempt to sign in as username from ip. When either limit
// is reached it counts nothing and returns how long the client must wait.
func (t *loginThrottle) begin(ip, username string) (loginAttempt, time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	user := throttleKey(username)
	a := loginAttempt{client: ip + "\x00" + user, user: user, at: now}
	if wait := max(t.byClient.wait(a.client, now), t.byUser.wait(a.user, now)); wait > 0 {
		return a, wait
	}
	t.byClient.add(a.client, now)
	t.byUser.add(a.user, now)
	return a, 0
}

// throttleKey is a fixed-size key for a username: a megabyte-long username
// must not cost a megabyte of memory for 15 minutes.
func throttleKey(username string) string {
	sum := sha256.Sum256([]byte(username))
	return string(sum[:])
}

// forget uncounts an attempt whose password was never judged (a database
// error, or no free slot).
func (t *loginThrottle) forget(a loginAttempt) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.byClient.remove(a.client, a.at)
	t.byUser.remove(a.user, a.at)
}

// succeeded forgets the client's failures and this attempt. Failures on the
// username from other clients stay counted: they may be an attack.
func (t *loginThrottle) succeeded(a loginAttempt) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.byClient.attempts, a.client)
	t.byUser.remove(a.user, a.at)
}

// acquire waits for a password-check slot; release it when done.
func (t *loginThrottle) acquire(ctx context.Context) (release func(), err error) {
	timer := time.NewTimer(t.slotWait)
	defer timer.Stop()
	select {
	case t.slots <- struct{}{}:
		return func() { <-t.slots }, nil
	case <-ctx.Done():
		return nil, errLoginBusy
	case <-timer.C:
		return nil, errLoginBusy
	}
}

// wait returns how long key must wait before its next try; 0 when it may try now.
func (l *attemptLog) wait(key string, now time.Time) time.Duration {
	recent := l.recent(key, now)
	if len(recent) < l.limit {
		return 0
	}
	return recent[len(recent)-l.limit].Add(l.window).Sub(now)
}

func (l *attemptLog) add(key string, now time.Time) {
	if len(l.attempts) > throttlePruneAbove {
		for k := range l.attempts {
			l.recent(k, now)
		}
	}
	recent := append(l.recent(key, now), now)
	if len(recent) > l.limit {
		recent = recent[len(recent)-l.limit:]
	}
	l.attempts[key] = recent
}

// remove drops one attempt of key made at at.
func (l *attemptLog) remove(key string, at time.Time) {
	as := l.attempts[key]
	i := slices.IndexFunc(as, at.Equal)
	switch {
	case i < 0:
	case len(as) == 1:
		delete(l.attempts, key)
	default:
		l.attempts[key] = slices.Delete(as, i, i+1)
	}
}

// recent drops key's attempts older than the window and returns the rest.
func (l *attemptLog) recent(key string, now time.Time) []time.Time {
	as := l.attempts[key]
	i := 0
	for i < len(as) && now.Sub(as[i]) >= l.window {
		i++
	}
	if i == len(as) {
		delete(l.attempts, key)
		return nil
	}
	l.attempts[key] = as[i:]
	return as[i:]
}

// clientIP is the peer's address. X-Forwarded-For is not trusted: anyone can
// send it, and it would let a client pick its own throttling key.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
