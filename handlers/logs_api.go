package handlers

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"gateway/models"
)

// listLogs handles GET /api/logs?model=&provider=&key_id=&status=&request_id=&from=&to=&errors=&before=&limit=:
// recent request logs, newest first; before (a log id) pages back.
func (a *App) listLogs(w http.ResponseWriter, r *http.Request) {
	f, err := apiLogFilter(r.URL.Query())
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	list := func(ctx context.Context) ([]models.RequestLog, error) { return a.store.ListRequestLogs(ctx, f) }
	listAs(a, w, r, list, requestLogOf)
}

// showLog handles GET /api/logs/{id}: one request log with its attempts.
func (a *App) showLog(w http.ResponseWriter, r *http.Request) {
	showAs(a, w, r, "request log", a.store.GetRequestLog, requestLogOf)
}

// apiLogFilter reads GET /api/logs' query; a bad value is a 400 naming it.
func apiLogFilter(q url.Values) (models.LogFilter, error) {
	f := models.LogFilter{Model: q.Get("model"), Provider: q.Get("provider"), RequestID: q.Get("request_id")}
	for _, err := range []error{queryPositive(q, "key_id", &f.KeyID), queryPositive(q, "before", &f.BeforeID),
		queryPositive(q, "status", &f.Status), queryPositive(q, "limit", &f.Limit),
		queryTime(q, "from", &f.From), queryTime(q, "to", &f.To)} {
		if err != nil {
			return f, err
		}
	}
	switch q.Get("errors") {
	case "", "0", "false":
	case "1", "true":
		f.ErrorsOnly = true
	default:
		return f, queryError("errors", "1 or 0")
	}
	if !f.From.IsZero() && !f.To.IsZero() && !f.From.Before(f.To) {
		return f, queryError("to", "later than from")
	}
	return f, nil
}

// requestLogOf is a request log as the API answers it, with its attempts
// ([] when it made none) and what its cost is made of.
func requestLogOf(l *models.RequestLog) requestLogJSON {
	out := requestLogJSON{requestLogColumns: requestLogColumns(*l)}
	out.Trace = l.AttemptTrace()
	if out.Trace == nil {
		out.Trace = models.Trace{}
	}
	out.CacheWrite5mTokens = max(l.CacheWriteTokens-l.CacheWrite1hTokens, 0)
	out.CostBreakdown = costBreakdownJSON{Input: usdJSON(l.CostInputUSD), CacheRead: usdJSON(l.CostCacheReadUSD),
		CacheWrite: usdJSON(l.CostCacheWriteUSD), Output: usdJSON(l.CostOutputUSD)}
	if l.CostKnown() {
		c := usdJSON(l.CostUSD)
		out.CostUSD = &c
	}
	return out
}

// requestLogJSON is a request log as GET /api/logs answers it: every
// column, with its cost null when unknown (a token had no price) and
// explained by part.
type requestLogJSON struct {
	requestLogColumns
	// CacheWrite5mTokens are the cache writes kept for 5 minutes
	// (cache_write_tokens less cache_write_1h_tokens).
	CacheWrite5mTokens int64 `json:"cache_write_5m_tokens"`
	// CostUSD is null when the cost is unknown (price_source "none").
	CostUSD       *usdJSON          `json:"cost_usd"`
	CostBreakdown costBreakdownJSON `json:"cost_breakdown"`
	// Trace is the attempts in order: member, status, latency, why the
	// router moved on and the fallback pool being routed.
	Trace models.Trace `json:"trace"`
}

// costBreakdownJSON is a cost by part: uncached input, cache reads, cache
// writes (5-minute and 1-hour), output (reasoning included).
type costBreakdownJSON struct {
	Input      usdJSON `json:"input"`
	CacheRead  usdJSON `json:"cache_read"`
	CacheWrite usdJSON `json:"cache_write"`
	Output     usdJSON `json:"output"`
}

// requestLogColumns are a request log's columns, in snake_case like every
// other answer (models.RequestLog has no JSON names of its own). They are
// converted, not copied field by field, so that a column added to
// models.RequestLog without its name here does not compile; the cost's
// columns are answered by requestLogJSON.
type requestLogColumns struct {
	ID                 int64        `json:"id"`
	CreatedAt          time.Time    `json:"created_at"`
	RequestID          string       `json:"request_id"`
	KeyID              *int64       `json:"key_id"`
	UserID             *int64       `json:"user_id"`
	TeamID             *int64       `json:"team_id"`
	Model              string       `json:"model"`
	DeploymentID       *int64       `json:"deployment_id"`
	ProviderID         *int64       `json:"provider_id"`
	ProviderName       string       `json:"provider"`
	UpstreamModel      string       `json:"upstream_model"`
	Endpoint           string       `json:"endpoint"`
	Stream             bool         `json:"stream"`
	Status             int          `json:"status"`
	LatencyMS          int64        `json:"latency_ms"`
	TTFBMS             int64        `json:"ttfb_ms"`
	InputTokens        int64        `json:"input_tokens"`
	OutputTokens       int64        `json:"output_tokens"`
	CacheReadTokens    int64        `json:"cache_read_tokens"`
	CacheWriteTokens   int64        `json:"cache_write_tokens"`
	CostUSD            float64      `json:"-"`
	CacheWrite1hTokens int64        `json:"cache_write_1h_tokens"`
	ReasoningTokens    int64        `json:"reasoning_tokens"`
	CostInputUSD       float64      `json:"-"`
	CostCacheReadUSD   float64      `json:"-"`
	CostCacheWriteUSD  float64      `json:"-"`
	CostOutputUSD      float64      `json:"-"`
	PriceSource        string       `json:"price_source"`
	LongContext        bool         `json:"long_context"`
	UsageEstimated     bool         `json:"usage_estimated"`
	Attempts           int          `json:"attempts"`
	Fallback           string       `json:"fallback"`
	Error              string       `json:"error"`
	Trace              models.Trace `json:"-"`
}
