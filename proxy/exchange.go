package proxy

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"time"

	"gateway/models"
	"gateway/proxy/cluster"
	"gateway/proxy/pricing"
)

// exchange is one proxied request on its way through: what its log row and
// its error line will say.
type exchange struct {
	proto     protocol // the caller's
	start     time.Time
	firstByte time.Time
	key       *virtualKey
	member    *member
	// prices are the member's for this attempt's model (room holds a
	// wildcard route's, looked up for the model; allocated for them only).
	prices *pricing.Prices
	room   *pricing.Prices
	// upstreamFailed: a member, not the caller, was to blame (unreachable,
	// timeout, 5xx, 429, broken stream), for the log level.
	upstreamFailed bool
	row            models.RequestLog
	// reservation is held on the key's budgets from admission to finish.
	reservation reservation
	reserved    bool
	// shared is the request's claim on the limits and budgets in Redis,
	// when they admitted it there; settled at finish.
	shared *cluster.Admission
	// pending is the shared admission that waits for the first pick.
	pending *sharedAdmission
	// route is the public name of the pool the asked-for model routed to
	// ("openai/*" through a wildcard route), "" when none did. Metrics are
	// labelled with it: the model string is the caller's, without bound.
	route string
	// turn is a Responses request whose answer is to be kept; nil when not.
	turn *responsesTurn
}

// begin starts an exchange and tells the caller its request id.
func (s *Server) begin(w http.ResponseWriter, endpoint string, p protocol) *exchange {
	x := &exchange{start: s.now(), proto: p}
	x.row.RequestID = newRequestID()
	x.row.Endpoint = endpoint
	w.Header().Set("X-Request-Id", x.row.RequestID)
	return x
}

// newRequestID returns 128 random bits in hex. math/rand/v2's generator is
// seeded from the OS and needs no lock, which is enough for an id.
func newRequestID() string {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(b[8:], rand.Uint64())
	return hex.EncodeToString(b[:])
}

func (x *exchange) setKey(k *virtualKey) {
	x.key = k
	// The row may point into the snapshot: it is immutable, and the log
	// writer only reads these fields.
	x.row.KeyID, x.row.UserID, x.row.TeamID = &k.id, k.userID, k.teamID
}

// setMember records the member of a new attempt; fallback names the pool
// being routed when it is not the one asked for.
func (x *exchange) setMember(m *member, upstreamModel, fallback string) {
	x.member = m
	if m.perModel && x.room == nil {
		x.room = new(pricing.Prices)
	}
	x.prices = m.pricesFor(upstreamModel, x.room)
	x.row.DeploymentID, x.row.ProviderID = &m.id, &m.provider.id
	x.row.ProviderName = m.provider.name
	x.row.UpstreamModel = upstreamModel
	x.row.Fallback = fallback
	x.row.Attempts++
}

// committed reports whether the caller has received bytes: from then on
// nothing may be retried.
// latencySample is what an attempt that took latency and ended at now adds
// to its member's latency average: a stream's time to its first byte,
// another answer's whole time.
func (x *exchange) latencySample(latency time.Duration, now time.Time) time.Duration {
	if x.row.Stream && !x.firstByte.IsZero() {
		if ttfb := x.firstByte.Sub(now.Add(-latency)); ttfb > 0 {
			return ttfb
		}
	}
	return latency
}

func (x *exchange) committed() bool { return !x.firstByte.IsZero() }

// wrote marks the first byte sent to the caller.
func (x *exchange) wrote(now time.Time) {
	if x.firstByte.IsZero() {
		x.firstByte = now
	}
}

// callerLeft records that the caller went away before its answer was done.
func (x *exchange) callerLeft() {
	x.row.Status, x.row.Error = statusClientClosed, "client disconnected"
}

// fail answers the caller with err in its protocol's shape and records it; a
// caller that is gone gets nothing.
func (s *Server) fail(w http.ResponseWriter, x *exchange, err error) {
	if errors.Is(err, errClientGone) {
		x.callerLeft()
		return
	}
	ae := asAPIError(err)
	x.row.Status, x.row.Error = ae.Status, ae.Error()
	writeError(w, x.proto, ae)
	x.wrote(s.now())
}

// finish completes the exchange: the error line and the request log row.
// Member statistics are kept per attempt by the router. An answer of known
// length is sent on before the line is written, so that the caller does not
// wait for it; budgets, the row and metrics are settled first, so that the
// caller's next request and a scrape right after see this one.
func (s *Server) finish(w http.ResponseWriter, x *exchange) {
	end := s.now()
	x.row.CreatedAt = x.start.UTC()
	x.row.LatencyMS = end.Sub(x.start).Milliseconds()
	if !x.firstByte.IsZero() {
		x.row.TTFBMS = x.firstByte.Sub(x.start).Milliseconds()
	}
	if x.reserved {
		tokens := x.row.InputTokens + x.row.OutputTokens
		if x.shared != nil {
			// Queued before the local books take the cost: the spend floor
			// shared each second (refreshSpend) then never runs ahead of it.
			s.cluster.Settle(x.shared, nanos(x.row.CostUSD), tokens)
		}
		for _, l := range x.key.limiters {
			if l != nil {
				l.addTokens(s.now(), tokens)
			}
		}
		// The spend is numbered, counted and its row queued under one lock,
		// so that rows are queued in the order of their numbers: the highest
		// number committed then says that every one below it is too.
		var warn [3]*budget
		s.logs.EnqueueSettled(x.row, func(seq int64) { warn = s.settle(x.reservation, x.row.CostUSD, seq) })
		s.warnSoft(warn)
	} else if x.key != nil {
		// Only a known key's requests are stored: anyone can send bad keys,
		// and they must not be able to fill the database.
		s.logs.EnqueueRow(x.row)
	}
	s.metrics.observe(x, end)
	// Only an answer of known length is complete once flushed: a chunked
	// one ends when the handler returns. A caller who left gets nothing.
	if !x.firstByte.IsZero() && w.Header().Get("Content-Length") != "" && x.row.Status != statusClientClosed {
		http.NewResponseController(w).Flush() //nolint:errcheck // a caller gone is nothing to act on here
	}
	s.logRequest(x)
}

// logRequest writes the access line of a request, with its request id:
// info when it was served, warn when the caller erred, error when the
// gateway or an upstream failed.
func (s *Server) logRequest(x *exchange) {
	level, msg := slog.LevelInfo, "request"
	switch {
	case x.row.Status >= 500 || x.upstreamFailed && (x.row.Status >= 400 || x.row.Error != ""):
		level, msg = slog.LevelError, "request failed"
	case x.row.Status >= 400 || x.row.Error != "":
		level, msg = slog.LevelWarn, "request failed"
	}
	if !s.log.Enabled(context.Background(), level) {
		return
	}
	s.log.LogAttrs(context.Background(), level, msg,
		slog.String("request_id", x.row.RequestID),
		slog.String("endpoint", x.row.Endpoint),
		slog.Int("status", x.row.Status),
		slog.String("model", x.row.Model),
		slog.String("provider", x.row.ProviderName),
		slog.String("upstream_model", x.row.UpstreamModel),
		slog.Int("attempts", x.row.Attempts),
		slog.Int64("latency_ms", x.row.LatencyMS),
		slog.Int64("ttfb_ms", x.row.TTFBMS),
		slog.Int64("tokens_in", x.row.InputTokens),
		slog.Int64("tokens_out", x.row.OutputTokens),
		slog.String("error", x.row.Error))
}
