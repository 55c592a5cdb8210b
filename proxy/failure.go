package proxy

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"gateway/models"
	"gateway/proxy/providers"
	"gateway/proxy/upstreamerr"
)

// failure is why one attempt, or a whole pool, did not serve the request, and
// what the router may do about it (design, Routing 5–7).
type failure struct {
	err      *apiError       // what the caller is told if this is the last word
	upstream *upstreamAnswer // the upstream's own answer, relayed as is when nothing else was tried
	trigger  cooldownTrigger
	// retry: another member of the same pool may do better.
	retry bool
	// retrySame: the member that failed may do better after a wait: it was
	// rate-limited, overloaded or unreachable. Anything else (the request
	// refused, a prompt too long for it, its provider misconfigured or
	// refusing the gateway's key) would only come again.
	retrySame bool
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
	header      http.Header
	body        []byte
}

// classifyAnswer judges an upstream's error answer from provider p by e, what
// the one classifier read in the upstream's own bytes, before a.body was
// reshaped for the caller: the same upstream error routes the same way
// whether or not the call was translated.
func classifyAnswer(a *upstreamAnswer, e upstreamerr.Error, p *provider) *failure {
	f := failureOf(e, a.status)
	if e.Kind == upstreamerr.Auth {
		// The provider refused the gateway's key: the caller's key was fine,
		// so the caller must not see a 401, nor the upstream's text, which
		// may quote part of the provider key.
		f.err = errProviderAuth(p, a.status)
		return f
	}
	f.upstream, f.err = a, shownError(a)
	return f
}

// failureOf is what the router may do about an upstream error of status
// (0 for an error event in a stream) that the classifier read as e.
func failureOf(e upstreamerr.Error, status int) *failure {
	return &failure{status: status, kind: fallbackKind(e.Kind), retryAfter: e.RetryAfter,
		trigger: cooldownTriggerOf(status, e.Kind), retrySame: e.RetrySame(),
		// Another member may have a longer window, or may not be rate
		// limited or failing; content refused and the caller's own mistake
		// would be answered the same by any.
		retry: e.Kind != upstreamerr.ContentPolicy && e.Kind != upstreamerr.Caller}
}

// fallbackKind is the fallback list an upstream error calls for; "" for
// the caller's own error, which no other pool would answer differently.
func fallbackKind(k upstreamerr.Kind) string {
	switch k {
	case upstreamerr.ContextWindow:
		return models.FallbackContextWindow
	case upstreamerr.ContentPolicy:
		return models.FallbackContentPolicy
	case upstreamerr.Caller:
		return ""
	}
	return models.FallbackGeneral
}

// cooldownTriggerOf is the list of cooldown triggers: 429, 401, 404 and 408
// set the member aside at once, 5xx count towards allowed_fails, and
// anything else is no fault of the member's. What the classifier read
// counts as much as the status: a vendor's refusal of the credentials in
// any status (403, Gemini's invalid-key 400, a refused token) and a rate
// limit told in another (Bedrock's quota 400, a stream's throttling
// exception) set the member aside at once like a 401 and a 429.
func cooldownTriggerOf(status int, k upstreamerr.Kind) cooldownTrigger {
	switch {
	case status == http.StatusTooManyRequests, status == http.StatusUnauthorized,
		status == http.StatusNotFound, status == http.StatusRequestTimeout,
		k == upstreamerr.Auth, k == upstreamerr.RateLimit:
		return coolNow
	case k == upstreamerr.Upstream:
		return countFailure
	}
	return noTrigger
}

// shownError is the upstream's error as the caller is told it when it is
// not relayed as is: in the words of the answer already in the caller's
// shape.
func shownError(a *upstreamAnswer) *apiError {
	e := upstreamerr.Read(a.status, a.body)
	return &apiError{Status: a.status, Type: cmpStr(e.Type, typeServer), Code: cmpStr(e.Code, "upstream_error"),
		Message: cmpStr(e.Message, fmt.Sprintf("upstream answered %d", a.status))}
}

// callFailure judges an upstream call that produced no answer.
func callFailure(ctx, callerCtx context.Context, p *provider, err error, timeout time.Duration) *failure {
	if callerCtx.Err() != nil {
		return clientGoneFailure()
	}
	var te *providers.TokenError
	if errors.As(err, &te) && te.Refused() {
		// The token endpoint refused the service account's key: the
		// provider's credentials, like a 401.
		return &failure{trigger: coolNow, retry: true, kind: models.FallbackGeneral,
			err: errProviderAuth(p, http.StatusUnauthorized)}
	}
	f := &failure{trigger: countFailure, retry: true, retrySame: true, kind: models.FallbackGeneral}
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

func cmpStr(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
