package proxy

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"gateway/models"
)

// streamCall makes a streaming call and relays the answer event by event.
// Until the upstream's first event is relayed nothing reaches the caller, so
// an error answer is still the router's to retry.
func (rq *routing) streamCall(m *member, c *callPlan) *failure {
	s, r := rq.s, rq.r
	s.enableFullDuplex(rq.w)
	timeout := cmp.Or(m.timeout, defaultStreamHeaderTimeout)
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	// One timer guards the whole stream: first the wait for the response
	// headers and the first event, then the silence between two events.
	timer := time.AfterFunc(timeout, func() { cancel(errUpstreamTimeout) })
	defer timer.Stop()
	resp, err := s.send(ctx, r, m.provider, c)
	if err == nil && !timer.Stop() {
		resp.Body.Close()
		err = context.Cause(ctx)
	}
	if err != nil {
		return callFailure(ctx, r.Context(), m.provider, err, timeout)
	}
	defer resp.Body.Close()
	timer.Reset(timeout) // the first event is due as soon as the headers were
	if resp.StatusCode/100 != 2 || !isEventStream(resp.Header.Get("Content-Type")) {
		// An error (or a provider that ignored stream: true) comes as one body.
		a, err := readAnswer(resp)
		if err != nil {
			return callFailure(ctx, r.Context(), m.provider, err, streamIdleTimeout)
		}
		return rq.deliver(a, c)
	}
	rs := &relayedStream{w: rq.w, rc: http.NewResponseController(rq.w), x: rq.x, ad: c.stream(),
		rearm: func() { timer.Reset(streamIdleTimeout) }, firstEventTimeout: timeout}
	return s.relayEvents(ctx, r, rs, resp)
}

// enableFullDuplex lets a stream be written while the server still considers
// the request body open: without it Go's HTTP/1 server loses some fast
// streams (golang/go#40747). It is called only here, once readBody has
// consumed the body to EOF: a full-duplex handler that returns with the body
// unread (any early 4xx) makes the server panic on the connection's next
// request (golang/go#68560). HTTP/2 is always full duplex and answers
// ErrNotSupported, which is fine.
func (s *Server) enableFullDuplex(w http.ResponseWriter) {
	err := http.NewResponseController(w).EnableFullDuplex()
	if err != nil && !errors.Is(err, http.ErrNotSupported) {
		s.log.Debug("enable full duplex", "err", err)
	}
}

func isEventStream(contentType string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(contentType)), "text/event-stream")
}

// relayedStream is the state of one stream being relayed.
type relayedStream struct {
	w     http.ResponseWriter
	rc    *http.ResponseController
	x     *exchange
	ad    streamAdapter
	rearm func() // restarts the idle timer
	// firstEventTimeout is how long the member had to send its first event.
	firstEventTimeout time.Duration
	deadlineSet       time.Time // when the write deadline was last renewed
}

// relayEvents forwards each event as it arrives, with a flush after each, and
// ends the caller's stream with an error event if the upstream breaks off.
// The caller gets nothing until the upstream's first event is here: until
// then a silent or broken member is still the router's to retry.
func (s *Server) relayEvents(ctx context.Context, r *http.Request, rs *relayedStream, resp *http.Response) *failure {
	events := s.eventReaders.get(resp.Body)
	defer s.eventReaders.put(events)
	ev, err := events.next()
	if err != nil {
		return callFailure(ctx, r.Context(), rs.x.member.provider, fmt.Errorf("before the first event: %w", err), rs.firstEventTimeout)
	}
	if f := firstEventFailure(ev); f != nil {
		return f
	}
	rs.startCallerStream(resp)
	defer rs.finish()
	for {
		rs.rearm()
		out, evErr := rs.ad.event(ev)
		if len(out) > 0 {
			if err := rs.forward(out, s.now(), rs.ad.done() || !events.hasCompleteEvent()); err != nil {
				return clientGoneFailure()
			}
		}
		if evErr != nil {
			// The upstream ended the stream with an error; the caller has it.
			ae := errUpstreamStream(rs.x.member.provider, evErr)
			rs.x.row.Error = ae.Error()
			return &failure{err: ae, trigger: countFailure, kind: models.FallbackGeneral}
		}
		if rs.ad.done() {
			// Nothing follows the end; the caller may already be closing.
			return nil
		}
		if ev, err = events.next(); err != nil {
			return s.endStream(ctx, r, rs, err)
		}
	}
}

// firstEventFailure: an Anthropic upstream may answer 200 and then, as its
// first event, an error (overloaded): nothing went to the caller yet, so it
// is a failure the router may retry.
func firstEventFailure(ev []byte) *failure {
	if eventName(ev) != "error" {
		return nil
	}
	return &failure{trigger: countFailure, retry: true, kind: models.FallbackGeneral,
		err: &apiError{Status: http.StatusBadGateway, Type: typeServer, Code: "upstream_error",
			Message: upstreamErrorMessage(eventData(ev))}}
}

// startCallerStream sends the caller the stream's headers: from here on the
// request is committed. The cost is only known at the end: it comes as a trailer.
func (rs *relayedStream) startCallerStream(resp *http.Response) {
	h := rs.w.Header()
	rs.x.setGatewayHeaders(h)
	h.Set("Content-Type", cmpStr(rs.ad.contentType(), resp.Header.Get("Content-Type")))
	h["Cache-Control"] = valueNoCache
	h["X-Accel-Buffering"] = valueNo // a reverse proxy in front must not buffer either
	h["Trailer"] = valueCostHeader
	rs.w.WriteHeader(resp.StatusCode)
	rs.x.row.Status = resp.StatusCode
}

// finish accounts the usage the stream reported, sets the cost trailer and
// lifts the write deadline for the connection's next request.
func (rs *relayedStream) finish() {
	if u, ok := rs.ad.usage(); ok {
		rs.x.account(u)
	}
	rs.w.Header().Set("X-Gateway-Cost-Usd", formatCost(rs.x.row.CostUSD))
	rs.rc.SetWriteDeadline(time.Time{}) //nolint:errcheck // nothing to do if unsupported
}

// forward writes an event to the caller and flushes it, unless another
// complete event is already waiting to follow: a burst goes out in one write,
// a lone event at once.
func (rs *relayedStream) forward(ev []byte, now time.Time, flush bool) error {
	// A caller that stops reading must not hold the handler and the upstream
	// connection for ever: a write that cannot finish in this time ends it.
	// Renewed at most once a second: a deadline costs a timer update.
	if wall := time.Now(); wall.Sub(rs.deadlineSet) > time.Second {
		rs.rc.SetWriteDeadline(wall.Add(streamWriteTimeout)) //nolint:errcheck // unsupported: no deadline
		rs.deadlineSet = wall
	}
	if _, err := rs.w.Write(ev); err != nil {
		return fmt.Errorf("proxy: write event: %w", err)
	}
	rs.x.wrote(now)
	if !flush {
		return nil
	}
	if err := rs.rc.Flush(); err != nil {
		return fmt.Errorf("proxy: flush event: %w", err)
	}
	return nil
}

// endStream decides what the end of the upstream stream means. A complete
// stream may end; anything else gets a final error event rather than a
// silent end the caller would take for a whole answer.
func (s *Server) endStream(ctx context.Context, r *http.Request, rs *relayedStream, err error) *failure {
	// Completeness first: an upstream that hangs up once it has said
	// everything did not break off.
	if errors.Is(err, io.EOF) && rs.ad.complete() {
		return nil
	}
	if r.Context().Err() != nil {
		return clientGoneFailure()
	}
	switch {
	case errors.Is(context.Cause(ctx), errUpstreamTimeout):
		err = fmt.Errorf("no event for %s", streamIdleTimeout)
	case errors.Is(err, io.EOF):
		err = errors.New("the stream ended before its end")
	}
	ae := errUpstreamStream(rs.x.member.provider, err)
	rs.x.row.Error = ae.Error()
	if werr := rs.forward(rs.ad.fail(ae), s.now(), true); werr != nil {
		return clientGoneFailure()
	}
	// The caller has its answer; the failure is for the member's record.
	return &failure{err: ae, trigger: countFailure, kind: models.FallbackGeneral}
}

// fieldIsNotNull is a cheap filter: does a key named like this appear with a
// value other than null? Inside JSON strings quotes are escaped, so text that
// merely mentions the key does not match; decoding decides for real.
func fieldIsNotNull(data []byte, quotedKey string) bool {
	for {
		i := bytes.Index(data, []byte(quotedKey))
		if i < 0 {
			return false
		}
		data = data[i+len(quotedKey):]
		j := skipSpace(data, 0)
		if j < len(data) && data[j] == ':' {
			j = skipSpace(data, j+1)
			if j < len(data) && data[j] != 'n' {
				return true
			}
		}
	}
}

// eventData returns the payload of an event's first data line, which is where
// OpenAI puts the whole chunk.
func eventData(ev []byte) []byte {
	for len(ev) > 0 {
		line, rest, _ := bytes.Cut(ev, []byte("\n"))
		ev = rest
		if payload, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			return bytes.TrimSpace(payload)
		}
	}
	return nil
}

// eventReader splits an SSE stream into events, each with its raw bytes (its
// lines and the blank line that ends it) so it can be forwarded unchanged.
type eventReader struct {
	br  *bufio.Reader
	buf []byte // reused between events
}

func newEventReader(r io.Reader) *eventReader {
	return &eventReader{br: bufio.NewReaderSize(r, 32<<10)}
}

// eventReaders recycles event readers: their 32 KiB buffer was the largest
// allocation of a streamed request, allocated and cleared for every stream.
type eventReaders struct{ pool sync.Pool }

// get returns a reader of r.
func (p *eventReaders) get(r io.Reader) *eventReader {
	if er, ok := p.pool.Get().(*eventReader); ok {
		er.br.Reset(r)
		return er
	}
	return newEventReader(r)
}

// put takes back a reader whose last event is no longer used. One that grew
// for an unusually long event is left to the collector.
func (p *eventReaders) put(er *eventReader) {
	if cap(er.buf) > 64<<10 {
		return
	}
	er.br.Reset(nil)
	er.buf = er.buf[:0]
	p.pool.Put(er)
}

// hasCompleteEvent reports whether a whole further event is already read
// from the upstream and waiting.
func (er *eventReader) hasCompleteEvent() bool {
	n := er.br.Buffered()
	if n == 0 {
		return false
	}
	b, err := er.br.Peek(n)
	return err == nil && (bytes.Contains(b, []byte("\n\n")) || bytes.Contains(b, []byte("\r\n\r\n")))
}

// next returns the next event. The slice is valid until the next call.
func (er *eventReader) next() ([]byte, error) {
	er.buf = er.buf[:0]
	for {
		start := len(er.buf)
		err := er.appendLine()
		if err != nil {
			return er.last(err)
		}
		if len(bytes.TrimRight(er.buf[start:], "\r\n")) > 0 {
			continue
		}
		if start == 0 {
			er.buf = er.buf[:0] // blank lines between events carry nothing
			continue
		}
		return er.buf, nil
	}
}

// last handles the end of the body: an event cut short by a clean EOF is still
// delivered (some upstreams omit the final blank line after [DONE]), an error
// is passed on.
func (er *eventReader) last(err error) ([]byte, error) {
	if !errors.Is(err, io.EOF) || len(bytes.TrimSpace(er.buf)) == 0 {
		return nil, err
	}
	er.buf = append(bytes.TrimRight(er.buf, "\r\n"), "\n\n"...)
	return er.buf, nil
}

// appendLine appends one line, newline included, however long it is.
func (er *eventReader) appendLine() error {
	for {
		chunk, err := er.br.ReadSlice('\n')
		er.buf = append(er.buf, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}
