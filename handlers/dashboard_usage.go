package handlers

import (
	"context"
	"time"

	"gateway/models"
)

// usageWindow is a time window the dashboard sums the request logs over,
// cut into equal buckets for the charts.
type usageWindow struct {
	name, label  string
	span, bucket time.Duration
}

var usageWindows = []usageWindow{
	{name: "1h", label: "Last hour", span: time.Hour, bucket: 5 * time.Minute},
	{name: "24h", label: "Last 24 hours", span: 24 * time.Hour, bucket: time.Hour},
	{name: "7d", label: "Last 7 days", span: 7 * 24 * time.Hour, bucket: 6 * time.Hour},
}

const defaultUsageWindow = "24h"

// Reading the window from ListRequestLogs is bounded: at most this many
// logs, in pages of the store's maximum. A store method that aggregates in
// SQL would lift the bound.
const (
	usageLogPage = 1000
	usageMaxLogs = 20 * usageLogPage
)

// usageSum sums requests.
type usageSum struct {
	requests, successes int64
	latencyMS           int64
	tokensIn, tokensOut int64
	costUSD             float64
	// provider and upstream name a deployment as its newest log does, for
	// one deleted since.
	provider, upstream string
}

func (u *usageSum) add(l *models.RequestLog) {
	u.requests++
	if l.Status >= 200 && l.Status < 400 {
		u.successes++
	}
	u.latencyMS += l.LatencyMS
	u.tokensIn += l.InputTokens
	u.tokensOut += l.OutputTokens
	u.costUSD += l.CostUSD
}

func (u *usageSum) avgLatencyMS() float64 {
	if u.requests == 0 {
		return 0
	}
	return float64(u.latencyMS) / float64(u.requests)
}

// usageReport is a window's logs summed up: in time buckets, by model and by
// deployment.
type usageReport struct {
	window       usageWindow
	since, until time.Time
	buckets      []usageSum
	total        usageSum
	byModel      map[string]*usageSum
	byDeployment map[int64]*usageSum
	read         int
	truncated    bool
}

// newUsageReport is an empty report of the window ending with the bucket
// that holds now; buckets are aligned to whole multiples of their length.
func newUsageReport(w usageWindow, now time.Time) *usageReport {
	until := now.UTC().Truncate(w.bucket).Add(w.bucket)
	n := int(w.span / w.bucket)
	return &usageReport{window: w, since: until.Add(-w.span), until: until, buckets: make([]usageSum, n),
		byModel: map[string]*usageSum{}, byDeployment: map[int64]*usageSum{}}
}

// add counts a log if it lies in the window.
func (u *usageReport) add(l *models.RequestLog) {
	if l.CreatedAt.Before(u.since) || !l.CreatedAt.Before(u.until) {
		return
	}
	u.read++
	u.buckets[int(l.CreatedAt.Sub(u.since)/u.window.bucket)].add(l)
	u.total.add(l)
	m := u.byModel[l.Model]
	if m == nil {
		m = &usageSum{}
		u.byModel[l.Model] = m
	}
	m.add(l)
	if l.DeploymentID != nil {
		d := u.byDeployment[*l.DeploymentID]
		if d == nil {
			d = &usageSum{provider: l.ProviderName, upstream: l.UpstreamModel}
			u.byDeployment[*l.DeploymentID] = d
		}
		d.add(l)
	}
}

// readUsage sums the window's request logs, newest first, reading at most
// usageMaxLogs of them.
func (a *App) readUsage(ctx context.Context, w usageWindow, now time.Time) (*usageReport, error) {
	rep := newUsageReport(w, now)
	var before int64
	for seen := 0; seen < usageMaxLogs; {
		logs, err := a.store.ListRequestLogs(ctx, models.LogFilter{BeforeID: before, Limit: usageLogPage})
		if err != nil {
			return nil, err
		}
		for i := range logs {
			rep.add(&logs[i])
		}
		seen += len(logs)
		if len(logs) < usageLogPage || logs[len(logs)-1].CreatedAt.Before(rep.since) {
			return rep, nil
		}
		before = logs[len(logs)-1].ID
	}
	rep.truncated = true
	return rep, nil
}
