package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"gateway/proxy/catalog"
	"gateway/proxy/providers"
	"gateway/proxy/requestlog"
	"gateway/proxy/upstreamerr"
)

// checkTimeout bounds one live check (design: 30 s).
const checkTimeout = 30 * time.Second

// checkAnswerLimit is how much of an upstream's answer a check reads: enough
// for an error message, never a whole runaway body.
const checkAnswerLimit = 64 << 10

// CheckResult is the outcome of one live check of a pool member.
type CheckResult struct {
	DeploymentID int64
	OK           bool
	Latency      time.Duration
	// Err says why the check failed (or was skipped): the upstream's status
	// and message with anything key-like masked, or the call's error.
	Err string
	// Skipped: the member was not called, because its upstream model is a
	// wildcard pattern that names no model. A skipped check says nothing about
	// the member's health and should not be stored as a failure.
	Skipped bool
}

// CheckPool calls every enabled member of the pool with exactly this public
// name (a wildcard route by its pattern) at once, with a 1-token request in
// the member's own protocol, and reports how each answered. ok is false when
// no such pool is being served (unknown name, or no member enabled).
//
// A check changes no runtime state: no cooldown, no statistics. What a failed
// check means for routing is up to the caller, which stores the results and
// passes them to PoolStatus as failedCheck.
func (s *Server) CheckPool(ctx context.Context, name string) (results []CheckResult, ok bool) {
	snap := s.snap.Load()
	if snap == nil {
		return nil, false
	}
	p := snap.poolNamed(name)
	if p == nil {
		return nil, false
	}
	results = make([]CheckResult, len(p.members))
	var wg sync.WaitGroup
	for i, m := range p.members {
		wg.Go(func() { results[i] = checkMember(ctx, m) })
	}
	wg.Wait()
	return results, true
}

// checkMember makes one member's live check.
func checkMember(ctx context.Context, m *member) CheckResult {
	res := CheckResult{DeploymentID: m.id}
	if !catalog.Checkable(m.upstreamModel) {
		res.Skipped = true
		res.Err = fmt.Sprintf("not checked: the upstream model %q is a wildcard pattern, which names no model to call", m.upstreamModel)
		return res
	}
	p := m.provider
	if p == nil || p.err != nil {
		res.Err = "provider is misconfigured"
		if p != nil {
			res.Err += ": " + requestlog.Fit(providers.MaskSecrets(p.err.Error()), 500)
		}
		return res
	}
	ctx, cancel := context.WithTimeoutCause(ctx, checkTimeout, errUpstreamTimeout)
	defer cancel()
	start := time.Now()
	status, body, err := callCheck(ctx, m, "max_tokens")
	if err == nil && status == http.StatusBadRequest && p.protocolFor(m.upstreamModel) == protoOpenAI &&
		strings.Contains(upstreamerr.Read(status, body).Message, "max_completion_tokens") {
		// OpenAI's reasoning models refuse max_tokens and name the field
		// they want instead: a healthy member must not fail for that.
		start = time.Now()
		status, body, err = callCheck(ctx, m, "max_completion_tokens")
	}
	res.Latency = time.Since(start)
	switch {
	case err != nil:
		res.Err = callError(ctx, err)
	case status < 200 || status > 299:
		res.Err = answerError(p, status, body)
	default:
		res.OK = true
	}
	return res
}

// callCheck sends m a 1-token request in its own protocol, with the
// provider's credentials, the token limit in the field named limitField,
// and reads the answer. The request is an OpenAI caller's, planned as the
// proxy plans one: translated for members of another protocol (Anthropic,
// Gemini, Converse), so that a check calls what a request would call.
func callCheck(ctx context.Context, m *member, limitField string) (status int, body []byte, err error) {
	body, err = json.Marshal(map[string]any{
		"model":    m.upstreamModel,
		limitField: 1,
		"messages": []map[string]string{{"role": "user", "content": "ping"}},
	})
	if err != nil {
		return 0, nil, fmt.Errorf("build check request: %w", err)
	}
	req, err := parseChatRequest(body)
	if err != nil {
		return 0, nil, fmt.Errorf("build check request: %w", err)
	}
	c, err := planGenerate(req, protoOpenAI, m.provider, m.upstreamModel)
	if err != nil {
		return 0, nil, fmt.Errorf("build check request: %w", err)
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(c.body))
	if err != nil {
		return 0, nil, fmt.Errorf("build check request: %w", err)
	}
	r.Header.Set("User-Agent", "gateway-health-check")
	// As an OpenAI caller: Anthropic upstreams get the default version.
	if err := setUpstreamHeaders(r, c.body, m.provider, protoOpenAI, nil); err != nil {
		return 0, nil, err
	}
	// RoundTrip, not a Client: no redirect is followed with the key.
	resp, err := m.provider.client.RoundTrip(r)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(io.LimitReader(resp.Body, checkAnswerLimit))
	return resp.StatusCode, body, err
}

// callError describes a call that got no answer. Transport errors name the
// URL and the network problem, never a header, so they carry no key.
func callError(ctx context.Context, err error) string {
	if errors.Is(context.Cause(ctx), errUpstreamTimeout) {
		return fmt.Sprintf("no answer within %s", checkTimeout)
	}
	return requestlog.Fit(providers.MaskSecrets(err.Error()), 500)
}

// answerError is an upstream's error answer in one line: its status and its
// own message (either protocol's error shape), or the start of its body.
// An upstream that refuses a key may quote it, or part of it: that is masked.
func answerError(p *provider, status int, body []byte) string {
	msg := strings.Join(strings.Fields(upstreamerr.Read(status, body).Message), " ")
	out := fmt.Sprintf("HTTP %d", status)
	if msg != "" {
		out += ": " + msg
	}
	return requestlog.Fit(p.client.Mask(out), 500)
}
