package upstreamerr

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryAfter reads how long the upstream asked to be left alone:
// retry-after-ms (OpenAI's, in milliseconds) first, then Retry-After in
// integer seconds or as an HTTP-date; 0 when it said nothing usable. There
// is no upper bound: a provider that says "come back in 309788 s" means it.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if d := parseSeconds(h.Get("Retry-After-Ms")) / 1000; d > 0 {
		return d
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if d := parseSeconds(v); d > 0 {
		return d
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}

// parseSeconds reads a positive number of seconds; 0 for anything else.
func parseSeconds(v string) time.Duration {
	secs, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || secs <= 0 || secs > 1e9 {
		return 0
	}
	return time.Duration(secs * float64(time.Second))
}
