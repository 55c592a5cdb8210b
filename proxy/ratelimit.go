package proxy

import (
	"fmt"
	"net/http"
	"sync"
	"time"

	"gateway/models"
	"gateway/proxy/cluster"
)

// rateLimiter enforces one holder's requests and tokens per minute, in
// memory, over the last 60 one-second buckets. Tokens are only known after an
// answer, so a request is admitted on the tokens counted so far.
type rateLimiter struct {
	mu       sync.Mutex
	name     string
	rpm, tpm int    // 0: no limit
	window   string // the shared window's key, with Redis
	buckets  [60]struct {
		sec          int64
		reqs, tokens int
	}
}

// limiterFor returns the holder's limiter with its limits updated, or nil
// when it has none. Caller holds a.mu.
func (a *accounts) limiterFor(h holder, name string, limits models.RateLimits) *rateLimiter {
	r, t := positive(limits.RPMLimit), positive(limits.TPMLimit)
	if r == 0 && t == 0 {
		delete(a.limiters, h)
		return nil
	}
	l := a.limiters[h]
	if l == nil {
		l = &rateLimiter{}
		if a.cluster != nil {
			l.window = a.cluster.Keys(cluster.Holder{Kind: h.kind, ID: h.id}).Window
		}
		a.limiters[h] = l
	}
	l.mu.Lock()
	l.name, l.rpm, l.tpm = name, r, t
	l.mu.Unlock()
	return l
}

func positive(p *int) int {
	if p == nil || *p < 0 {
		return 0
	}
	return *p
}

// admit counts a request, or refuses it with how long until the window has
// room again.
func (l *rateLimiter) admit(now time.Time) *apiError {
	l.mu.Lock()
	defer l.mu.Unlock()
	reqs, tokens, oldest := l.sum(now)
	switch {
	case l.rpm > 0 && reqs >= l.rpm:
		return errRateLimited(fmt.Sprintf("%s is limited to %d requests per minute", l.name, l.rpm), oldest, now)
	case l.tpm > 0 && tokens >= l.tpm:
		return errRateLimited(fmt.Sprintf("%s is limited to %d tokens per minute", l.name, l.tpm), oldest, now)
	}
	l.bucket(now).reqs++
	return nil
}

// note counts a request that the shared limits admitted, so that this
// replica's own window is current should Redis go away.
func (l *rateLimiter) note(now time.Time) {
	l.mu.Lock()
	l.bucket(now).reqs++
	l.mu.Unlock()
}

// shared is the limit as the admission script takes it.
func (l *rateLimiter) shared() cluster.Limit {
	l.mu.Lock()
	defer l.mu.Unlock()
	return cluster.Limit{Window: l.window, RPM: l.rpm, TPM: l.tpm}
}

// addTokens counts an answer's tokens.
func (l *rateLimiter) addTokens(now time.Time, n int64) {
	l.mu.Lock()
	l.bucket(now).tokens += int(n)
	l.mu.Unlock()
}

func (l *rateLimiter) bucket(now time.Time) *struct {
	sec          int64
	reqs, tokens int
} {
	sec := now.Unix()
	b := &l.buckets[sec%60]
	if b.sec != sec {
		b.sec, b.reqs, b.tokens = sec, 0, 0
	}
	return b
}

// sum counts the last minute and finds its oldest busy second.
func (l *rateLimiter) sum(now time.Time) (reqs, tokens int, oldest int64) {
	sec := now.Unix()
	oldest = sec
	for _, b := range l.buckets {
		if b.sec > sec-60 && b.sec <= sec && (b.reqs > 0 || b.tokens > 0) {
			reqs += b.reqs
			tokens += b.tokens
			oldest = min(oldest, b.sec)
		}
	}
	return reqs, tokens, oldest
}

// errRateLimited is a 429 whose retry-after is when the oldest second of the
// window falls out of it.
func errRateLimited(msg string, oldest int64, now time.Time) *apiError {
	wait := max(time.Unix(oldest+60, 0).Sub(now), time.Second)
	return &apiError{Status: http.StatusTooManyRequests, Type: "rate_limit_error", Code: "rate_limit_exceeded",
		Message: msg, retryAfter: wait}
}
