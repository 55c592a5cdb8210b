package handlers

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// loginThrottle counts failed sign-ins per client IP and username, in
// memory: after limit failures within window, that pair must wait.
type loginThrottle struct {
	mu       sync.Mutex
	limit    int
	window   time.Duration
	now      func() time.Time
	failures map[string][]time.Time // oldest first, at most limit
}

// Beyond this many keys, every failure first drops the expired ones, so an
// attacker cycling usernames cannot grow the map for long.
const throttlePruneAbove = 10_000

func newLoginThrottle(limit int, window time.Duration) *loginThrottle {
	return &loginThrottle{limit: limit, window: window, now: time.Now, failures: map[string][]time.Time{}}
}

// wait returns how long key must wait before its next try; 0 when it may try now.
func (t *loginThrottle) wait(key string) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	recent := t.recent(key, t.now())
	if len(recent) < t.limit {
		return 0
	}
	return recent[0].Add(t.window).Sub(t.now())
}

// fail records a failed sign-in of key.
func (t *loginThrottle) fail(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	if len(t.failures) > throttlePruneAbove {
		for k := range t.failures {
			t.recent(k, now)
		}
	}
	recent := append(t.recent(key, now), now)
	if len(recent) > t.limit {
		recent = recent[len(recent)-t.limit:]
	}
	t.failures[key] = recent
}

// reset forgets key's failures after a successful sign-in.
func (t *loginThrottle) reset(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.failures, key)
}

// recent drops key's failures older than the window and returns the rest.
func (t *loginThrottle) recent(key string, now time.Time) []time.Time {
	fs := t.failures[key]
	i := 0
	for i < len(fs) && now.Sub(fs[i]) >= t.window {
		i++
	}
	if i == len(fs) {
		delete(t.failures, key)
		return nil
	}
	t.failures[key] = fs[i:]
	return fs[i:]
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
