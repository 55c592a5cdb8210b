package proxy

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"gateway/models"
	"gateway/proxy/upstreamerr"
)

// Default upstream timeouts (design, "Limits and timeouts"). A member's own
// timeout_seconds replaces the request's and the first event's, which count
// from the request's sending, and shortens the headers' when it is shorter.
const (
	defaultStreamHeaderTimeout = 15 * time.Second // no response headers yet: give up on the member
	defaultRequestTimeout      = 10 * time.Minute // a whole non-streaming exchange
	// defaultFirstEventTimeout: reasoning models may think for minutes
	// before a stream's first event.
	defaultFirstEventTimeout = 10 * time.Minute
	// defaultStreamKeepAlive: a stream without its first event for this long
	// is committed to the caller, and kept alive this often, so that no load
	// balancer in front cuts the idle connection.
	defaultStreamKeepAlive = 10 * time.Second
	// streamIdleTimeout ends a stream whose upstream went silent; as long as
	// the longest exchange the gateway waits for, because reasoning models may
	// think for minutes between two events.
	streamIdleTimeout = defaultRequestTimeout
	// streamWriteTimeout ends a stream whose caller stopped reading.
	streamWriteTimeout = time.Minute
	// bodyReadTimeout bounds how long a caller may take to send its request.
	bodyReadTimeout = 2 * time.Minute
)

// send posts the plan's body to the provider's endpoint with the provider's key.
func (s *Server) send(ctx context.Context, r *http.Request, p *provider, c *callPlan) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(c.body))
	if err != nil {
		return nil, fmt.Errorf("proxy: build request to %s: %w", p.name, err)
	}
	copyForwardedHeaders(req.Header, r.Header)
	if err := setUpstreamHeaders(req, c.body, p, c.caller, r.Header); err != nil {
		return nil, fmt.Errorf("proxy: authorize the call to %s: %w", p.name, err)
	}
	// RoundTrip, not a Client: no redirects to follow with the key, no cookies.
	resp, err := p.client.RoundTrip(req)
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

// relayCall makes a non-streaming call and delivers the answer, which is
// read whole so that its cost can be sent as a header before it.
func (rq *routing) relayCall(m *member, c *callPlan) *failure {
	r := rq.r
	timeout := cmp.Or(m.timeout, defaultRequestTimeout)
	ctx, cancel := context.WithTimeoutCause(r.Context(), timeout, errUpstreamTimeout)
	defer cancel()
	resp, err := rq.s.send(ctx, r, m.provider, c)
	if err != nil {
		return callFailure(ctx, r.Context(), m.provider, err, timeout)
	}
	defer resp.Body.Close()
	a, err := readAnswer(resp)
	if err != nil {
		return callFailure(ctx, r.Context(), m.provider, err, timeout)
	}
	return rq.deliver(a, c)
}

// readAnswer reads a whole upstream answer.
func readAnswer(resp *http.Response) (*upstreamAnswer, error) {
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("proxy: read upstream answer: %w", err)
	}
	return &upstreamAnswer{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"),
		header: resp.Header, body: body}, nil
}

// deliver hands a complete answer to the caller in its protocol, or judges
// it a failure for the router: an error status, an answer that cannot be
// read, or content the upstream filtered when a content-policy fallback
// exists to try instead.
func (rq *routing) deliver(a *upstreamAnswer, c *callPlan) *failure {
	if a.status >= 400 {
		// Classified before the reshaping, which may drop what tells the
		// kinds apart (an OpenAI code has no place in Anthropic's shape).
		e := upstreamerr.Classify(a.status, a.header, a.body, rq.s.now())
		a.body = c.errorBody(a.status, a.body)
		a.contentType = "application/json"
		return classifyAnswer(a, e, rq.x.member.provider)
	}
	if contentFiltered(a.body, c.upstream) && len(rq.fallbackTargets(rq.current, models.FallbackContentPolicy)) > 0 {
		return &failure{kind: models.FallbackContentPolicy, err: errContentFiltered()}
	}
	body, u, err := c.answer(a.body)
	if err != nil {
		return &failure{trigger: countFailure, retry: true, retrySame: true, kind: models.FallbackGeneral,
			err: errUpstreamInvalid(rq.x.member.provider, err)}
	}
	x := rq.x
	if x.turn != nil {
		rq.s.responses.keep(x.turn, body)
	}
	cost := x.account(u)
	h := rq.w.Header()
	x.setGatewayHeaders(h)
	h["Content-Type"] = jsonOr(a.contentType)
	h.Set("X-Gateway-Cost-Usd", cost)
	rq.sendWhole(a.status, body)
	return nil
}

// sendWhole answers the caller with status and a whole body, its other
// headers set, and notes the answer in the log row.
func (rq *routing) sendWhole(status int, body []byte) {
	x, w := rq.x, rq.w
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	x.row.Status = status
	x.wrote(rq.s.now())
	w.Write(body) //nolint:errcheck // a caller gone now has had its answer sent
}

// contentFiltered reports an answer the upstream cut for its content: an
// OpenAI (or Azure) choice that finished with content_filter, an Anthropic
// refusal, a Gemini answer blocked for safety, a Converse answer stopped by
// its content filter or guardrail.
func contentFiltered(body []byte, p protocol) bool {
	switch p {
	case protoAnthropic:
		return bytes.Contains(body, []byte(`"refusal"`)) && stopReason(body) == "refusal"
	case protoGemini:
		return geminiBlocked(body)
	case protoConverse:
		if !bytes.Contains(body, []byte("content_filtered")) && !bytes.Contains(body, []byte("guardrail_intervened")) {
			return false
		}
		var v struct {
			StopReason string `json:"stopReason"`
		}
		json.Unmarshal(body, &v) //nolint:errcheck // an unreadable answer was not filtered
		return v.StopReason == "content_filtered" || v.StopReason == "guardrail_intervened"
	}
	if !bytes.Contains(body, []byte("content_filter")) {
		return false
	}
	var v struct {
		Choices []struct {
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	if json.Unmarshal(body, &v) != nil {
		return false
	}
	for _, c := range v.Choices {
		if c.FinishReason == "content_filter" {
			return true
		}
	}
	return false
}

func stopReason(body []byte) string {
	var v struct {
		StopReason string `json:"stop_reason"`
	}
	json.Unmarshal(body, &v) //nolint:errcheck // an unreadable answer has no stop reason
	return v.StopReason
}

// geminiBlocked: the prompt was blocked (promptFeedback.blockReason), or
// every candidate finished for its content.
func geminiBlocked(body []byte) bool {
	if !bytes.Contains(body, []byte("blockReason")) && !bytes.Contains(body, []byte("SAFETY")) &&
		!bytes.Contains(body, []byte("PROHIBITED_CONTENT")) && !bytes.Contains(body, []byte("BLOCKLIST")) &&
		!bytes.Contains(body, []byte("SPII")) {
		return false
	}
	var v struct {
		PromptFeedback struct {
			BlockReason string `json:"blockReason"`
		} `json:"promptFeedback"`
		Candidates []struct {
			FinishReason string `json:"finishReason"`
		} `json:"candidates"`
	}
	if json.Unmarshal(body, &v) != nil {
		return false
	}
	if v.PromptFeedback.BlockReason != "" {
		return true
	}
	for _, c := range v.Candidates {
		switch c.FinishReason {
		case "SAFETY", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "IMAGE_SAFETY":
		default:
			return false
		}
	}
	return len(v.Candidates) > 0
}
