package proxy

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Default upstream timeouts (design, "Limits and timeouts"); a member's own
// timeout_seconds replaces them.
const (
	defaultStreamHeaderTimeout = 15 * time.Second // no response headers yet: give up on the member
	defaultRequestTimeout      = 10 * time.Minute // a whole non-streaming exchange
	// streamIdleTimeout ends a stream whose upstream went silent; as long as
	// the longest exchange the gateway waits for, because reasoning models may
	// think for minutes between two events.
	streamIdleTimeout = defaultRequestTimeout
)

// send posts body to the provider's chat endpoint with the provider's key.
func (s *Server) send(ctx context.Context, r *http.Request, p *provider, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.chatURL, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("proxy: build request to %s: %w", p.name, err)
	}
	copyForwardedHeaders(req.Header, r.Header)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", p.authorization)
	// RoundTrip, not a Client: no redirects to follow with the key, no cookies.
	resp, err := p.transport.RoundTrip(req)
	if err != nil {
		return nil, fmt.Errorf("proxy: call %s: %w", p.name, err)
	}
	return resp, nil
}

// copyForwardedHeaders copies the few caller headers that describe the
// request. Everything else stays behind: above all Authorization, x-api-key
// and Cookie, which belong to the caller and the gateway, and Accept-Encoding,
// which the transport negotiates itself so that the gateway can read usage
// from the answer.
func copyForwardedHeaders(dst, src http.Header) {
	for _, name := range [...]string{"Accept", "Accept-Language", "User-Agent", "OpenAI-Beta"} {
		if v := src.Values(name); len(v) > 0 {
			dst[name] = append([]string(nil), v...)
		}
	}
}

// relayChat makes a non-streaming call and relays the answer, which is read
// whole so that its cost can be sent as a header before it.
func (s *Server) relayChat(w http.ResponseWriter, r *http.Request, x *exchange, body []byte) error {
	p := x.member.provider
	timeout := cmp.Or(x.member.timeout, defaultRequestTimeout)
	ctx, cancel := context.WithTimeoutCause(r.Context(), timeout, errUpstreamTimeout)
	defer cancel()
	resp, err := s.send(ctx, r, p, body)
	if err != nil {
		return x.upstreamFailure(ctx, r.Context(), err, timeout)
	}
	defer resp.Body.Close()
	return s.relayWhole(ctx, w, r, x, resp, timeout)
}

// relayWhole reads the upstream answer, accounts its usage and relays status,
// content type and body. Upstream errors are already in OpenAI's shape.
func (s *Server) relayWhole(ctx context.Context, w http.ResponseWriter, r *http.Request, x *exchange, resp *http.Response, timeout time.Duration) error {
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return x.upstreamFailure(ctx, r.Context(), err, timeout)
	}
	x.noteUpstreamStatus(resp.StatusCode, body)
	if u, ok := usageFromBody(body); ok {
		x.account(u)
	}
	h := w.Header()
	copyRelayedHeaders(h, resp.Header)
	h.Set("X-Gateway-Cost-Usd", formatCost(x.row.CostUSD))
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(resp.StatusCode)
	x.wrote(s.now())
	if _, err := w.Write(body); err != nil {
		return errClientGone
	}
	return nil
}

// copyRelayedHeaders copies what a caller needs of the upstream's headers;
// the rest (rate-limit counters, request ids, cookies) is the provider's.
func copyRelayedHeaders(dst, src http.Header) {
	for _, name := range [...]string{"Content-Type", "Retry-After"} {
		if v := src.Get(name); v != "" {
			dst.Set(name, v)
		}
	}
}

// noteUpstreamStatus records the status and, on an error, the upstream's
// message. 5xx and 429 are the member's failures; other 4xx are the caller's.
func (x *exchange) noteUpstreamStatus(status int, body []byte) {
	x.row.Status = status
	if status < 400 {
		return
	}
	x.upstreamFailed = status >= 500 || status == http.StatusTooManyRequests
	var e errorBody
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		x.row.Error = fmt.Sprintf("upstream %d: %s", status, e.Error.Message)
		return
	}
	x.row.Error = fmt.Sprintf("upstream %d", status)
}

// upstreamFailure names what went wrong with a call: the caller left (which is
// never the member's fault), the member ran out of time, or it could not be
// reached. ctx is the call's context, callerCtx the request's.
func (x *exchange) upstreamFailure(ctx, callerCtx context.Context, err error, timeout time.Duration) error {
	if callerCtx.Err() != nil {
		return errClientGone
	}
	x.upstreamFailed = true
	p := x.member.provider
	if errors.Is(context.Cause(ctx), errUpstreamTimeout) {
		return errUpstreamTimedOut(p, timeout)
	}
	return errUpstreamUnreachable(p, err)
}
