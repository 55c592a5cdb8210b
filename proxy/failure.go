package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"gateway/models"
)

// failure is why one attempt, or a whole pool, did not serve the request, and
// what the router may do about it (design, Routing 5–7).
type failure struct {
	err      *apiError       // what the caller is told if this is the last word
	upstream *upstreamAnswer // the upstream's own answer, relayed as is when nothing else was tried
	trigger  cooldownTrigger
	// retry: another member of the same pool may do better.
	retry bool
	// kind selects the fallback list; "" is the caller's own error, which no
	// other pool would answer differently.
	kind       string
	retryAfter time.Duration // the upstream's retry-after, 0 when it sent none
	// status is the upstream's answer, 0 when it gave none; for the trace.
	status int
	// untranslatable: the gateway could not put the request into the
	// member's protocol and called no one. The caller's error, unless a
	// member taking the caller's protocol as is is left to try.
	untranslatable bool
}

// cooldownTrigger says what a failure means for the member's cooldown.
type cooldownTrigger int

const (
	noTrigger    cooldownTrigger = iota // the caller's fault, or the gateway's configuration
	coolNow                             // 429, 401, 404, 408: set the member aside at once
	countFailure                        // 5xx, timeouts, connection errors: past allowed_fails or the failure rate
)

// upstreamAnswer is an upstream's complete answer, kept to be relayed.
type upstreamAnswer struct {
	status      int
	contentType string
	retryAfter  string
	body        []byte
}

// classifyAnswer judges an upstream's error answer from provider p.
func classifyAnswer(a *upstreamAnswer, p *provider, now time.Time) *failure {
	e := parseUpstreamError(a.body)
	f := &failure{upstream: a, status: a.status, kind: models.FallbackGeneral, retryAfter: parseRetryAfter(a.retryAfter, now),
		err: &apiError{Status: a.status, Type: cmpStr(e.Type, typeServer), Code: cmpStr(e.Code, "upstream_error"),
			Message: cmpStr(e.Message, fmt.Sprintf("upstream answered %d", a.status))}}
	switch {
	case a.status == http.StatusUnauthorized, a.status == http.StatusForbidden:
		// The provider refused the gateway's key: the caller's key was fine,
		// so the caller must not see a 401, nor the upstream's text, which
		// may quote part of the provider key.
		f.upstream, f.retry = nil, true
		f.err = errProviderAuth(p, a.status)
		if a.status == http.StatusUnauthorized {
			f.trigger = coolNow
		}
	case a.status == http.StatusTooManyRequests, a.status == http.StatusNotFound,
		a.status == http.StatusRequestTimeout:
		f.trigger, f.retry = coolNow, true
	case a.status >= 500:
		f.trigger, f.retry = countFailure, true
	case e.contextWindowExceeded():
		// Another member may have a longer window; no member is to blame.
		f.kind, f.retry = models.FallbackContextWindow, true
	case e.contentPolicy():
		f.kind = models.FallbackContentPolicy
	default:
		f.kind = "" // the caller's bad request: the same everywhere
	}
	return f
}

// callFailure judges an upstream call that produced no answer.
func callFailure(ctx, callerCtx context.Context, p *provider, err error, timeout time.Duration) *failure {
	if callerCtx.Err() != nil {
		return clientGoneFailure()
	}
	f := &failure{trigger: countFailure, retry: true, kind: models.FallbackGeneral}
	if errors.Is(context.Cause(ctx), errUpstreamTimeout) {
		f.err = errUpstreamTimedOut(p, timeout)
	} else {
		f.err = errUpstreamUnreachable(p, err)
	}
	return f
}

func clientGoneFailure() *failure { return &failure{err: asAPIError(errClientGone)} }

// clientGone reports whether the failure is the caller hanging up.
func (f *failure) clientGone() bool { return errors.Is(f.err, errClientGone) }

// mayPass reports whether the member that failed may do better after a wait:
// it was rate-limited, overloaded or unreachable. Anything else (the
// request refused, a prompt too long for it, its provider misconfigured)
// would only come again.
func (f *failure) mayPass() bool { return f.retry && f.trigger != noTrigger }

// upstreamError is the error object of either protocol's error shape:
// OpenAI's {"error":{"message","type","code"}} and Anthropic's
// {"type":"error","error":{"type","message"}}.
type upstreamError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    string `json:"-"`
}

func parseUpstreamError(body []byte) upstreamError {
	var v struct {
		Error struct {
			Message string          `json:"message"`
			Type    string          `json:"type"`
			Code    json.RawMessage `json:"code"` // a string, a number or null
		} `json:"error"`
	}
	if json.Unmarshal(body, &v) != nil {
		return upstreamError{}
	}
	e := upstreamError{Message: v.Error.Message, Type: v.Error.Type}
	if err := json.Unmarshal(v.Error.Code, &e.Code); err != nil {
		e.Code = strings.Trim(string(v.Error.Code), `"`)
	}
	return e
}

// contextWindowExceeded: OpenAI's code context_length_exceeded, Anthropic's
// "prompt is too long".
func (e upstreamError) contextWindowExceeded() bool {
	msg := strings.ToLower(e.Message)
	return e.Code == "context_length_exceeded" || strings.Contains(msg, "prompt is too long") ||
		strings.Contains(msg, "maximum context length")
}

// contentPolicy: the upstream refused the content.
func (e upstreamError) contentPolicy() bool {
	return e.Code == "content_policy_violation" || e.Code == "content_filter" ||
		e.Type == "content_policy_violation"
}

// parseRetryAfter reads integer seconds or an HTTP-date. There is no upper
// bound: a provider that says "come back in 309788 s" means it.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 || secs > 1e9 {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}

func cmpStr(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
