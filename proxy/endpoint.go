package proxy

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"time"

	"gateway/models"
	"gateway/proxy/linger"
)

// endpoint is one proxied API: the caller's protocol and what it asks for.
type endpoint struct {
	path   string // for the request log
	caller protocol
	kind   callKind
}

// callKind is what a request asks a member for.
type callKind int

const (
	callGenerate    callKind = iota // chat completions, messages
	callCountTokens                 // messages/count_tokens
	callEmbeddings                  // embeddings
)

var (
	endpointChat        = endpoint{"/v1/chat/completions", protoOpenAI, callGenerate}
	endpointMessages    = endpoint{"/v1/messages", protoAnthropic, callGenerate}
	endpointCountTokens = endpoint{"/v1/messages/count_tokens", protoAnthropic, callCountTokens}
	endpointEmbeddings  = endpoint{"/v1/embeddings", protoOpenAI, callEmbeddings}
	endpointResponses   = endpoint{"/v1/responses", protoResponses, callGenerate}
)

// handle returns the handler of one proxied endpoint.
func (s *Server) handle(ep endpoint) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		x := s.begin(w, ep.path, ep.caller)
		defer s.finish(w, x)
		if err := s.serveEndpoint(w, r, x, ep); err != nil {
			// A refusal of admission, maybe with the body unread.
			linger.Refusing(w)
			s.fail(w, x, err)
		}
	}
}

func (s *Server) serveEndpoint(w http.ResponseWriter, r *http.Request, x *exchange, ep endpoint) error {
	snap, req, err := s.admit(w, r, x, ep)
	if err != nil {
		return err
	}
	rq := &routing{s: s, w: w, r: r, x: x, snap: snap, model: req.model, estimate: estimatePromptTokens(req.body),
		generates: ep.kind == callGenerate}
	// A budget never fails open: a caller under a hard budget is served
	// only by members whose tokens have a price, unless the admin allows it.
	rq.pricedOnly = ep.kind != callCountTokens && x.key.hasHardBudget() && !snap.allowUnpriced
	rq.attempt = func(m *member, upstreamModel string) *failure {
		if m.provider.err != nil {
			// Not the member's fault, and another member may do: no cooldown.
			return &failure{err: errProviderMisconfigured(m.provider), retry: true, kind: models.FallbackGeneral}
		}
		return rq.call(m, upstreamModel, req, ep)
	}
	return rq.serve()
}

// call makes one attempt of the endpoint's kind at member m.
func (rq *routing) call(m *member, upstreamModel string, req *chatRequest, ep endpoint) *failure {
	var c *callPlan
	var err error
	switch ep.kind {
	case callCountTokens:
		if m.provider.apiType != models.APITypeAnthropic {
			// Only Anthropic's own API counts tokens as Messages callers ask.
			return rq.estimateTokens(m, upstreamModel, req)
		}
		c = &callPlan{url: m.provider.client.URL("/v1/messages/count_tokens"), body: req.rewrite(upstreamModel, false),
			caller: protoAnthropic, upstream: protoAnthropic}
	case callEmbeddings:
		if m.provider.apiType != models.APITypeOpenAI {
			return &failure{err: errUnsupportedByProvider(m.provider, "embeddings"), retry: true, kind: models.FallbackGeneral}
		}
		c = &callPlan{url: m.provider.client.URL("/embeddings"), body: req.rewrite(upstreamModel, false), caller: protoOpenAI, upstream: protoOpenAI}
	default:
		if c, err = planGenerate(req, ep.caller, m.provider, upstreamModel); err != nil {
			return translationFailure(err)
		}
	}
	if req.stream && ep.kind == callGenerate {
		return rq.streamCall(m, c)
	}
	return rq.relayCall(m, c)
}

// admit runs every check that needs no upstream: readiness, the key, the
// body, and the key's allow-list.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, x *exchange, ep endpoint) (*snapshot, *chatRequest, error) {
	snap := s.snap.Load()
	if snap == nil {
		return nil, nil, errNotReady()
	}
	key, err := snap.authenticate(r.Header, x.start)
	if err != nil {
		return nil, nil, err
	}
	x.setKey(key)
	body, err := readBody(w, r, s.maxBody)
	if err != nil {
		return nil, nil, err
	}
	req, err := parseRequest(body, ep.kind == callGenerate && ep.caller != protoResponses)
	if err != nil {
		return nil, nil, err
	}
	x.row.Model, x.row.Stream = req.model, req.stream
	if !key.allows(req.model) {
		return nil, nil, errModelNotAllowed(req.model)
	}
	if ep.caller == protoResponses {
		// The whole conversation is what is estimated, and routed.
		if req, err = s.prepareResponses(r.Context(), x, req); err != nil {
			return nil, nil, err
		}
	}
	if err := s.admitSpend(w, x, snap, req); err != nil {
		return nil, nil, err
	}
	return snap, req, nil
}

// prepareResponses expands a Responses request from the state it refers
// to, and notes whether its answer is to be kept.
func (s *Server) prepareResponses(ctx context.Context, x *exchange, req *chatRequest) (*chatRequest, error) {
	body, turn, err := s.responses.prepare(ctx, x.key.id, req.body, req.model)
	if err != nil {
		return nil, err
	}
	x.turn = turn
	if body == nil {
		return req, nil
	}
	return parseRequest(body, false)
}

// admitSpend applies the key's and its team's rate limits and reserves the
// request's worst case on the budgets of its key, user and team. What is
// shared in Redis is admitted at the first pick instead, with the picked
// member's own limits, in one round trip (routing.claimFor).
func (s *Server) admitSpend(w http.ResponseWriter, x *exchange, snap *snapshot, req *chatRequest) error {
	amount := snap.requestEstimate(req.model, req)
	if x.pending = s.prepareShared(x, amount); x.pending != nil {
		return nil
	}
	return s.admitLocal(w, x, amount)
}

// admitLocal admits the request on this replica's books.
func (s *Server) admitLocal(w http.ResponseWriter, x *exchange, amount float64) error {
	for _, l := range x.key.limiters {
		if l != nil {
			if err := l.admit(x.start); err != nil {
				return err
			}
		}
	}
	res, err := s.reserve(x.key, amount, x.start)
	if err != nil {
		return err
	}
	x.reservation, x.reserved = res, true
	s.warnOverSoft(w, x.key)
	return nil
}

// warnOverSoft tells the caller when a budget of its key is past its soft
// budget.
func (s *Server) warnOverSoft(w http.ResponseWriter, k *virtualKey) {
	if warning := k.overSoft(); warning != "" {
		w.Header().Set("X-Gateway-Budget-Warning", warning)
	}
}

// readBody reads the whole body, refusing more than limit bytes.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, errBodyTooLarge(limit)
	}
	// A caller that announces a large body and sends nothing must neither
	// hold the handler for ever nor make the gateway reserve the memory.
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(bodyReadTimeout)) //nolint:errcheck // unsupported: no deadline
	defer rc.SetReadDeadline(time.Time{})               //nolint:errcheck // as above
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		// Room for the body and the final empty read, so it is rarely copied.
		buf.Grow(int(min(r.ContentLength, 1<<20)) + bytes.MinRead)
	}
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, limit))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, errBodyTooLarge(limit)
	case err != nil && r.Context().Err() != nil:
		return nil, errClientGone
	case err != nil:
		return nil, errBadRequest("unreadable_body", "could not read the request body: "+err.Error())
	}
	return buf.Bytes(), nil
}
