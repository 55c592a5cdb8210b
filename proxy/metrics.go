package proxy

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the proxy's Prometheus series. Label values come from the
// configuration (public names, deployment ids, providers), never from what a
// caller typed, so that the series stay bounded.
type metrics struct {
	requests  *prometheus.CounterVec   // endpoint, model, status
	duration  *prometheus.HistogramVec // endpoint
	ttfb      *prometheus.HistogramVec // endpoint
	attempts  *prometheus.CounterVec   // deployment, provider, outcome
	tokens    *prometheus.CounterVec   // model, direction
	cost      *prometheus.CounterVec   // model
	cooldowns *prometheus.CounterVec   // deployment, provider
}

// latencyBuckets reach from a fast cached answer to a long generation.
var latencyBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300}

func newMetrics(reg prometheus.Registerer, s *Server) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gateway_requests_total",
			Help: "Proxied requests by endpoint, public model name and status."}, []string{"endpoint", "model", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "gateway_request_duration_seconds",
			Help: "Time from a request's arrival to its last byte.", Buckets: latencyBuckets}, []string{"endpoint"}),
		ttfb: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "gateway_time_to_first_byte_seconds",
			Help: "Time from a request's arrival to its first byte to the caller.", Buckets: latencyBuckets}, []string{"endpoint"}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gateway_upstream_attempts_total",
			Help: "Calls to pool members by outcome (ok, error)."}, []string{"deployment", "provider", "outcome"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gateway_tokens_total",
			Help: "Tokens by public model name and direction (in, out)."}, []string{"model", "direction"}),
		cost: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gateway_cost_usd_total",
			Help: "Cost in USD by public model name."}, []string{"model"}),
		cooldowns: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gateway_cooldowns_total",
			Help: "Times a member was set aside."}, []string{"deployment", "provider"}),
	}
	if reg == nil {
		return m
	}
	reg.MustRegister(m.requests, m.duration, m.ttfb, m.attempts, m.tokens, m.cost, m.cooldowns,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "gateway_members_cooling_down",
			Help: "Pool members cooling down now."}, func() float64 { return float64(s.coolingDownNow()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "gateway_log_queue_depth",
			Help: "Request logs waiting in memory to be written."}, func() float64 { return float64(s.logs.Waiting()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "gateway_log_spooled_rows",
			Help: "Request logs waiting in the spool in the data dir for the database."}, func() float64 { return float64(s.logs.Spooled()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "gateway_log_replayed_rows_total",
			Help: "Request logs written from the spool."}, func() float64 { return float64(s.logs.Replayed()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "gateway_log_dropped_total",
			Help: "Request logs dropped: refused by the database for their content, or no room left in memory and spool."}, func() float64 { return float64(s.logs.Dropped()) }),
	)
	return m
}

// observe records a finished request, under the public name of the pool it
// routed to ("" when none did).
func (m *metrics) observe(x *exchange, end time.Time) {
	model := x.route
	m.requests.WithLabelValues(x.row.Endpoint, model, strconv.Itoa(x.row.Status)).Inc()
	m.duration.WithLabelValues(x.row.Endpoint).Observe(end.Sub(x.start).Seconds())
	if !x.firstByte.IsZero() {
		m.ttfb.WithLabelValues(x.row.Endpoint).Observe(x.firstByte.Sub(x.start).Seconds())
	}
	if x.row.InputTokens > 0 || x.row.OutputTokens > 0 {
		m.tokens.WithLabelValues(model, "in").Add(float64(x.row.InputTokens))
		m.tokens.WithLabelValues(model, "out").Add(float64(x.row.OutputTokens))
		m.cost.WithLabelValues(model).Add(x.row.CostUSD)
	}
}

// attempt records one call to a member.
func (m *metrics) attempt(mb *member, ok bool) {
	outcome := "error"
	if ok {
		outcome = "ok"
	}
	m.attempts.WithLabelValues(strconv.FormatInt(mb.id, 10), mb.provider.name, outcome).Inc()
}

// coolingDownNow counts the members set aside at this moment.
func (s *Server) coolingDownNow() int {
	snap := s.snap.Load()
	if snap == nil {
		return 0
	}
	now, n := s.now(), 0
	for _, p := range snap.allPools() {
		for _, m := range p.members {
			if m.state.coolingDown(now) {
				n++
			}
		}
	}
	return n
}
