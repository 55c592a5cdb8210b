package proxy

import (
	"bytes"
	"errors"
	"net/http"
	"strconv"
	"time"

	"gateway/models"
)

const endpointChat = "/v1/chat/completions"

// chatCompletions serves POST /v1/chat/completions for openai-type members.
func (s *Server) chatCompletions(w http.ResponseWriter, r *http.Request) {
	x := s.begin(w, endpointChat)
	defer s.finish(x)
	if err := s.serveChat(w, r, x); err != nil {
		s.fail(w, x, err)
	}
}

func (s *Server) serveChat(w http.ResponseWriter, r *http.Request, x *exchange) error {
	snap, req, err := s.admitChat(w, r, x)
	if err != nil {
		return err
	}
	rq := &routing{s: s, w: w, r: r, x: x, snap: snap, model: req.model, estimate: estimatePromptTokens(req.body)}
	rq.attempt = func(m *member, upstreamModel string) *failure {
		if err := m.provider.chatError(); err != nil {
			// Not the member's fault, and another member may do: no cooldown.
			return &failure{err: asAPIError(err), retry: true, kind: models.FallbackGeneral}
		}
		body := req.rewrite(upstreamModel)
		if req.stream {
			return rq.streamChat(m, body, req.wantsUsage)
		}
		return rq.relayChat(m, body)
	}
	rq.serve()
	return nil
}

// admitChat runs every check that needs no upstream: readiness, the key, the
// body, and the key's allow-list.
func (s *Server) admitChat(w http.ResponseWriter, r *http.Request, x *exchange) (*snapshot, *chatRequest, error) {
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
	req, err := parseChatRequest(body)
	if err != nil {
		return nil, nil, err
	}
	x.row.Model, x.row.Stream = req.model, req.stream
	if !key.allows(req.model) {
		return nil, nil, errModelNotAllowed(req.model)
	}
	return snap, req, nil
}

// chatError says why the provider cannot take a chat completion, if it cannot.
func (p *provider) chatError() error {
	switch {
	case p.err != nil:
		return errProviderMisconfigured(p)
	case p.apiType == models.APITypeAnthropic:
		return errTranslationUnsupported(p)
	}
	return nil
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

// setGatewayHeaders tells the caller who served: the body's model stays what
// the upstream said.
func (x *exchange) setGatewayHeaders(h http.Header) {
	h.Set("X-Gateway-Deployment-Id", strconv.FormatInt(x.member.id, 10))
	h.Set("X-Gateway-Upstream-Model", x.row.UpstreamModel)
	h.Set("X-Gateway-Provider", x.member.provider.name)
	h.Set("X-Gateway-Attempts", strconv.Itoa(x.row.Attempts))
	if x.row.Fallback != "" {
		h.Set("X-Gateway-Fallback", x.row.Fallback)
	}
}
