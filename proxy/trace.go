package proxy

import (
	"errors"
	"strconv"
	"time"
	"unicode/utf8"

	"gateway/models"
)

// traceAttempt adds the attempt just made to the request's trace, at most
// models.MaxTraceAttempts of them. A request served at its first attempt
// keeps none: its row says the same, and the hot path allocates nothing for
// it. Every failure is kept, so an empty trace at a success means a first.
func (x *exchange) traceAttempt(m *member, f *failure, start, end time.Time) {
	if f == nil && len(x.row.Trace) == 0 || len(x.row.Trace) >= models.MaxTraceAttempts {
		return
	}
	a := models.Attempt{DeploymentID: m.id, Provider: m.provider.name, UpstreamModel: x.row.UpstreamModel,
		Status: x.row.Status, StartMS: start.Sub(x.start).Milliseconds(), LatencyMS: end.Sub(start).Milliseconds(),
		Fallback: x.row.Fallback}
	if f != nil {
		a.Status = f.attemptStatus(x)
		a.Reason = f.traceReason(m, end)
		a.Error = clip(f.err.Error(), models.MaxTraceText)
	}
	if x.row.Trace == nil {
		x.row.Trace = make(models.Trace, 0, 4)
	}
	x.row.Trace = append(x.row.Trace, a)
}

// attemptStatus is what the failed attempt came to: the upstream's status
// when it answered (a 401 too, though the caller is told 502), the stream's
// when it broke after its headers, 0 when the member was never called, else
// the gateway's (504 timeout, 502 unreachable, 499 caller gone).
func (f *failure) attemptStatus(x *exchange) int {
	switch {
	case f.status != 0:
		return f.status
	case f.untranslatable:
		return 0
	case f.clientGone():
		return statusClientClosed
	case x.committed() && x.row.Status != 0:
		return x.row.Status
	}
	return f.err.Status
}

// traceReason says in a few words why the router moved on from a member,
// and until when the member is set aside if the failure cooled it down.
func (f *failure) traceReason(m *member, now time.Time) string {
	reason := f.shortReason() + f.retryAfterText()
	if until, _, ok := m.state.cooldown(now); ok && f.trigger != noTrigger {
		reason += ", cooling down until " + until.UTC().Format(time.RFC3339)
	}
	return reason
}

// retryAfterText is ", retry-after 309788s" when the upstream sent one.
func (f *failure) retryAfterText() string {
	if f.retryAfter <= 0 {
		return ""
	}
	return ", retry-after " + strconv.FormatInt(int64(f.retryAfter.Round(time.Second)/time.Second), 10) + "s"
}

func (f *failure) shortReason() string {
	switch {
	case f.untranslatable:
		return "untranslatable"
	case f.clientGone():
		return "caller left"
	case errors.Is(f.err, errUpstreamTimeout):
		return "timeout"
	}
	switch f.err.Code {
	case "upstream_unreachable":
		return "unreachable"
	case "upstream_stream_error":
		return "stream broken"
	case "provider_auth_failed":
		return "provider refused the gateway's key"
	case "provider_misconfigured":
		return "provider misconfigured"
	}
	switch {
	case f.status >= 500:
		return "5xx"
	case f.status == 429, f.status == 404, f.status == 408:
		return strconv.Itoa(f.status)
	case f.kind == models.FallbackContextWindow:
		return "context window exceeded"
	case f.kind == models.FallbackContentPolicy:
		return "content policy"
	case f.kind == "":
		return "caller error"
	}
	return "failed"
}

// clip cuts s to at most n bytes, on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
