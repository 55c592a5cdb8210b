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
	"gateway/proxy/upstreamerr"
)

// streamCall makes a streaming call and relays the answer event by event.
// Until the stream is committed to the caller (its first event, or the first
// keep-alive, went out) nothing reaches the caller, so an error answer is
// still the router's to retry.
//
// The entry's timeout_seconds bounds the whole wait for the first event,
// counted from the request's sending (default 10 min); the response headers
// are due within 15 s, or timeout_seconds when that is shorter.
func (rq *routing) streamCall(m *member, c *callPlan) *failure {
	s, r := rq.s, rq.r
	s.enableFullDuplex(rq.w)
	firstEvent := cmp.Or(m.timeout, defaultFirstEventTimeout)
	headers := min(s.streamHeaderTimeout, firstEvent)
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	// One timer guards the whole stream: first the wait for the response
	// headers, then for the first event, then the silence between two events.
	sent := time.Now()
	timer := time.AfterFunc(headers, func() { cancel(errUpstreamTimeout) })
	defer timer.Stop()
	resp, err := s.send(ctx, r, m.provider, c)
	if err == nil && !timer.Stop() {
		resp.Body.Close()
		err = context.Cause(ctx)
	}
	if err != nil {
		return callFailure(ctx, r.Context(), m.provider, err, headers)
	}
	defer resp.Body.Close()
	timer.Reset(firstEvent - time.Since(sent))
	if resp.StatusCode/100 != 2 || !c.isStream(resp.Header.Get("Content-Type")) {
		// An error (or a provider that ignored stream: true) comes as one body.
		a, err := readAnswer(resp)
		if err != nil {
			return callFailure(ctx, r.Context(), m.provider, err, firstEvent)
		}
		return rq.deliver(a, c)
	}
	// The adapter is made once the stream is there: its writer stamps the
	// caller's chunks with the time it is made.
	ad, err := c.stream(rq.estimate)
	if err != nil {
		return translationFailure(err)
	}
	rs := &relayedStream{w: rq.w, rc: http.NewResponseController(rq.w), x: rq.x, ad: ad, resp: resp,
		body:   c.events(resp.Body),
		cancel: cancel, rearm: func() { timer.Reset(streamIdleTimeout) }, firstEventTimeout: firstEvent,
		keepAlive: s.streamKeepAlive, promptTokens: rq.estimate}
	return s.relayEvents(ctx, r, rs)
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

// isStream reports whether an answer of this content type is the
// upstream's stream: SSE, or for Bedrock AWS's binary event stream.
func (c *callPlan) isStream(contentType string) bool {
	if c.upstream == protoConverse {
		return strings.HasPrefix(strings.ToLower(strings.TrimSpace(contentType)), awsEventStreamContentType)
	}
	return isEventStream(contentType)
}

// events is the upstream's stream body as SSE events.
func (c *callPlan) events(body io.Reader) io.Reader {
	if c.upstream == protoConverse {
		return newAWSEventStream(body)
	}
	return body
}

func isEventStream(contentType string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(contentType)), "text/event-stream")
}

// relayedStream is the state of one stream being relayed.
type relayedStream struct {
	w      http.ResponseWriter
	rc     *http.ResponseController
	x      *exchange
	ad     streamAdapter
	resp   *http.Response
	body   io.Reader               // the upstream's events as SSE (see callPlan.events)
	cancel context.CancelCauseFunc // ends the upstream request
	rearm  func()                  // restarts the idle timer
	// firstEventTimeout is how long the member had to send its first event.
	firstEventTimeout time.Duration
	keepAlive         time.Duration // see awaitFirstEvent
	promptTokens      int           // the request's estimate, for a cut stream's usage
	committed         bool          // the caller has the stream's headers
	gotEvent          bool          // the upstream's first event arrived
	answered          bool          // an upstream event other than an error was relayed
	deadlineSet       time.Time     // when the write deadline was last renewed
}

// relayEvents forwards each event as it arrives, with a flush after each, and
// ends the caller's stream with an error event if the upstream breaks off.
// Until the stream is committed (see awaitFirstEvent) a silent or broken
// member is still the router's to retry.
func (s *Server) relayEvents(ctx context.Context, r *http.Request, rs *relayedStream) *failure {
	events := s.eventReaders.get(rs.body)
	defer s.eventReaders.put(events)
	ev, err := s.awaitFirstEvent(rs, events)
	if !rs.committed {
		if err != nil {
			return callFailure(ctx, r.Context(), rs.x.member.provider, fmt.Errorf("before the first event: %w", err), rs.firstEventTimeout)
		}
		if f := firstEventFailure(ev); f != nil {
			return f
		}
		rs.startCallerStream()
	}
	defer rs.finish()
	if err != nil {
		return s.endStream(ctx, r, rs, err)
	}
	return s.relayFrom(ctx, r, rs, events, ev)
}

// relayFrom relays the stream from its event ev on.
func (s *Server) relayFrom(ctx context.Context, r *http.Request, rs *relayedStream, events *eventReader, ev []byte) *failure {
	for {
		rs.rearm()
		out, evErr := rs.ad.event(ev)
		rs.answered = rs.answered || evErr == nil
		if rs.x.turn != nil && len(out) > 0 {
			if resp := finalResponse(out); resp != nil {
				s.responses.keep(rs.x.turn, resp)
			}
		}
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
		var err error
		if ev, err = events.next(); err != nil {
			return s.endStream(ctx, r, rs, err)
		}
	}
}

// awaitFirstEvent reads the upstream's first event. A reasoning model may
// think for minutes before it: after rs.keepAlive without one, the stream
// is committed to the caller (its headers go out, nothing is retried from
// then on) and a keep-alive follows every rs.keepAlive, so that nothing in
// front of the gateway cuts the idle connection.
//
// Only this goroutine writes to the caller. A response body has no read
// deadline, and a timer writing keep-alives itself would race with the
// first event's write, so the first event is read by a goroutine of its
// own that ends with that one read, while this one waits for it or for the
// next keep-alive. Every way out waits for the read to end (the first
// event's deadline, the caller's leaving and a failed keep-alive all cancel
// the upstream request, which ends the read), so that the reader is this
// goroutine's alone again afterwards. From the second event on the stream is
// read here directly.
func (s *Server) awaitFirstEvent(rs *relayedStream, events *eventReader) ([]byte, error) {
	go events.readFirst()
	tick := events.keepAliveTimer(rs.keepAlive)
	defer tick.Stop()
	for {
		select {
		case err := <-events.firstRead:
			rs.gotEvent = err == nil
			return events.first, err
		case <-tick.C:
			if !rs.committed {
				rs.startCallerStream()
			}
			if err := rs.forward(keepAliveEvent(rs.x.proto), s.now(), true); err != nil {
				rs.cancel(errClientGone)
				<-events.firstRead
				return nil, errClientGone
			}
			tick.Reset(rs.keepAlive)
		}
	}
}

// keepAliveEvent is what keeps a caller's stream alive in its protocol, and
// what its SDKs skip: a comment line for OpenAI's two APIs, a ping event,
// as Anthropic sends them itself, for Anthropic callers.
func keepAliveEvent(caller protocol) []byte {
	if caller == protoAnthropic {
		return []byte("event: ping\ndata: {\"type\": \"ping\"}\n\n")
	}
	return []byte(": keep-alive\n\n")
}

// firstEventFailure: an Anthropic upstream may answer 200 and then, as its
// first event, an error (overloaded): nothing went to the caller yet, so it
// is a failure the router may retry.
func firstEventFailure(ev []byte) *failure {
	name := eventName(ev)
	var e upstreamerr.Error
	switch {
	case name == "error":
		e = upstreamerr.Read(0, eventData(ev))
	case strings.HasSuffix(name, "Exception"):
		// An AWS event stream's exception (throttlingException…): typed
		// by its name, as the same error before the stream would be.
		e = upstreamerr.AWSEvent(name, upstreamerr.Read(0, eventData(ev)).Message)
	default:
		return nil
	}
	f := failureOf(e, 0)
	f.err = &apiError{Status: http.StatusBadGateway, Type: typeServer, Code: "upstream_error",
		Message: upstreamErrorMessage(eventData(ev))}
	return f
}

// startCallerStream sends the caller the stream's headers: from here on the
// request is committed. The cost is only known at the end: it comes as a trailer.
func (rs *relayedStream) startCallerStream() {
	h := rs.w.Header()
	rs.x.setGatewayHeaders(h)
	h.Set("Content-Type", cmpStr(rs.ad.contentType(), rs.resp.Header.Get("Content-Type")))
	h["Cache-Control"] = valueNoCache
	h["X-Accel-Buffering"] = valueNo // a reverse proxy in front must not buffer either
	h["Trailer"] = valueCostHeader
	rs.w.WriteHeader(rs.resp.StatusCode)
	rs.x.row.Status = rs.resp.StatusCode
	rs.committed = true
}

// finish accounts the usage the stream reported, or an estimate when it
// ended before its final usage, sets the cost trailer and lifts the write
// deadline for the connection's next request. A stream whose upstream never
// answered (it failed before its first event, or that event was an error)
// costs nothing, like any failed request.
func (rs *relayedStream) finish() {
	cost := "0"
	switch u, final := rs.ad.usage(); {
	case final:
		cost = rs.x.account(u)
	case rs.answered:
		cost = rs.x.account(estimatedUsage(u, rs.ad.outputBytes(), rs.promptTokens))
		rs.x.row.UsageEstimated = true
	}
	rs.w.Header().Set("X-Gateway-Cost-Usd", cost)
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
	if errors.Is(err, errClientGone) || r.Context().Err() != nil {
		return clientGoneFailure()
	}
	switch {
	case errors.Is(context.Cause(ctx), errUpstreamTimeout) && !rs.gotEvent:
		err = fmt.Errorf("no first event within %s", rs.firstEventTimeout)
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
	// The first event is read in a goroutine of its own (see
	// awaitFirstEvent): its outcome, and the keep-alive timer, are kept with
	// the reader, so that a recycled reader's stream allocates neither.
	first     []byte
	firstRead chan error
	keepAlive *time.Timer
}

func newEventReader(r io.Reader) *eventReader {
	return &eventReader{br: bufio.NewReaderSize(r, 32<<10), firstRead: make(chan error, 1)}
}

// readFirst reads the next event into er.first and sends the read's error
// on er.firstRead.
func (er *eventReader) readFirst() {
	ev, err := er.next()
	er.first = ev
	er.firstRead <- err
}

// keepAliveTimer returns the reader's timer, stopped before, now set to d.
func (er *eventReader) keepAliveTimer(d time.Duration) *time.Timer {
	if er.keepAlive == nil {
		er.keepAlive = time.NewTimer(d)
	} else {
		er.keepAlive.Reset(d)
	}
	return er.keepAlive
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
	er.buf, er.first = er.buf[:0], nil
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
