package handlers

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
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
	logs, err := a.store.ListRequestLogs(r.Context(), f)
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	out := make([]requestLogJSON, len(logs))
	for i := range logs {
		out[i] = requestLogOf(&logs[i])
	}
	a.writeJSON(w, r, http.StatusOK, out)
}

// showLog handles GET /api/logs/{id}: one request log with its attempts.
func (a *App) showLog(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "request log")
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	l, err := a.store.GetRequestLog(r.Context(), id)
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	a.writeJSON(w, r, http.StatusOK, requestLogOf(l))
}

// apiLogFilter reads GET /api/logs' query; a bad value is a 400 naming it.
func apiLogFilter(q url.Values) (models.LogFilter, error) {
	f := models.LogFilter{Model: q.Get("model"), Provider: q.Get("provider"), RequestID: q.Get("request_id")}
	for _, p := range []struct {
		name string
		dst  *int64
	}{{"key_id", &f.KeyID}, {"before", &f.BeforeID}} {
		if v := q.Get(p.name); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				return f, queryError(p.name, "a positive integer")
			}
			*p.dst = n
		}
	}
	for _, p := range []struct {
		name string
		dst  *int
	}{{"status", &f.Status}, {"limit", &f.Limit}} {
		if v := q.Get(p.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return f, queryError(p.name, "a positive integer")
			}
			*p.dst = n
		}
	}
	for _, p := range []struct {
		name string
		dst  *time.Time
	}{{"from", &f.From}, {"to", &f.To}} {
		if v := q.Get(p.name); v != "" {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				return f, queryError(p.name, "an RFC 3339 time such as 2026-11-30T00:00:00Z")
			}
			*p.dst = t
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

func queryError(param, want string) error {
	return &userError{kind: models.ErrInvalid, msg: fmt.Sprintf("%s: must be %s", param, want)}
}

// usageJSON is what the request logs add up to over a time range.
type usageJSON struct {
	From        time.Time           `json:"from"`
	To          time.Time           `json:"to"`
	Keys        []models.UsageTotal `json:"keys"`
	Users       []models.UsageTotal `json:"users"`
	Teams       []models.UsageTotal `json:"teams"`
	Models      []models.UsageTotal `json:"models"`
	Deployments []models.UsageTotal `json:"deployments"`
}

// usageOver sums the request logs in [from, to) ("from" and "to" in the
// query as RFC 3339; the last 24 hours by default) per key, user, team,
// model and deployment.
func (a *App) usageOver(r *http.Request) (*usageJSON, error) {
	to, from := time.Now().UTC(), time.Time{}
	for _, p := range []struct {
		name string
		dst  *time.Time
	}{{"from", &from}, {"to", &to}} {
		if v := r.URL.Query().Get(p.name); v != "" {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				return nil, queryError(p.name, "an RFC 3339 time such as 2026-11-30T00:00:00Z")
			}
			*p.dst = t
		}
	}
	if from.IsZero() {
		from = to.Add(-24 * time.Hour)
	}
	u := &usageJSON{From: from, To: to}
	for _, g := range []struct {
		by  string
		dst *[]models.UsageTotal
	}{{"key", &u.Keys}, {"user", &u.Users}, {"team", &u.Teams}, {"model", &u.Models}, {"deployment", &u.Deployments}} {
		totals, err := a.store.SumRequestLogs(r.Context(), g.by, from, to)
		if err != nil {
			return nil, err
		}
		if totals == nil {
			totals = []models.UsageTotal{}
		}
		*g.dst = totals
	}
	return u, nil
}

// settingsJSON is the body and answer of /api/settings.
type settingsJSON struct {
	LogRetentionDays *int `json:"log_retention_days" validate:"omitnil,gte=0,lte=36500"`
	// HealthCheckIntervalMinutes > 0 checks pools in the background (see
	// RunBackgroundChecks); 0, the default, never on a timer.
	HealthCheckIntervalMinutes *int `json:"health_check_interval_minutes" validate:"omitnil,gte=0,lte=10080"`
	// ResponsesRetentionDays: stored Responses answers older than this are
	// pruned every hour; 30 (OpenAI's) until set, 0 keeps them for ever.
	ResponsesRetentionDays *int `json:"responses_retention_days" validate:"omitnil,gte=0,lte=36500"`
	// AllowUnpricedWithBudget lets callers under a budget use entries with
	// no price (false, the default, refuses them: a budget never fails open).
	AllowUnpricedWithBudget *bool `json:"allow_unpriced_with_budget"`
}

// showSettings handles GET /api/settings.
func (a *App) showSettings(w http.ResponseWriter, r *http.Request) {
	s, err := a.settings(r.Context())
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	a.writeJSON(w, r, http.StatusOK, s)
}

func (a *App) settings(ctx context.Context) (settingsJSON, error) {
	var s settingsJSON
	for _, f := range settingFields(&s) {
		v, ok, err := a.store.GetSetting(ctx, f.key)
		if err != nil {
			return s, err
		}
		n := f.def
		if ok {
			n, _ = strconv.Atoi(v)
		}
		*f.value = &n
	}
	v, _, err := a.store.GetSetting(ctx, models.SettingAllowUnpricedWithBudget)
	if err != nil {
		return s, err
	}
	allow := v == "true"
	s.AllowUnpricedWithBudget = &allow
	return s, nil
}

// settingField is one integer setting of the API.
type settingField struct {
	key   string
	value **int
	def   int // while unset
}

func settingFields(s *settingsJSON) []settingField {
	return []settingField{{models.SettingLogRetentionDays, &s.LogRetentionDays, 0},
		{models.SettingHealthCheckMinutes, &s.HealthCheckIntervalMinutes, 0},
		{models.SettingResponsesRetentionDays, &s.ResponsesRetentionDays, models.DefaultResponsesRetentionDays}}
}

// putSettings handles PUT /api/settings: log_retention_days (0 keeps logs
// for ever; request logs older than that are pruned every hour) and
// health_check_interval_minutes (0 never checks on a timer). A field left
// out keeps its value.
func (a *App) putSettings(w http.ResponseWriter, r *http.Request) {
	var in settingsJSON
	if err := a.decodeBody(w, r, &in); err != nil {
		a.apiError(w, r, err)
		return
	}
	changes := map[string]string{}
	for _, f := range settingFields(&in) {
		if *f.value != nil {
			changes[f.key] = strconv.Itoa(**f.value)
		}
	}
	if in.AllowUnpricedWithBudget != nil {
		changes[models.SettingAllowUnpricedWithBudget] = strconv.FormatBool(*in.AllowUnpricedWithBudget)
	}
	if err := a.store.PutSettings(r.Context(), changes); err != nil {
		a.apiError(w, r, err)
		return
	}
	s, err := a.settings(r.Context())
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	// The proxy reads allow_unpriced_with_budget from its snapshot.
	a.written(w, r, http.StatusOK, s)
}
