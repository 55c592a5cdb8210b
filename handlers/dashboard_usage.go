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

// usageReport is a window's request logs summed up in SQL: in time buckets,
// by model and by deployment.
type usageReport struct {
	window       usageWindow
	since, until time.Time
	buckets      []models.UsageBucket
	total        models.UsageSum // the buckets added up
	byModel      []models.UsageTotal
	byDeployment []models.UsageTotal
}

// newUsageReport is an empty report of the window ending with the bucket
// that holds now; buckets are aligned to whole multiples of their length.
func newUsageReport(w usageWindow, now time.Time) *usageReport {
	until := now.UTC().Truncate(w.bucket).Add(w.bucket)
	rep := &usageReport{window: w, since: until.Add(-w.span), until: until, buckets: make([]models.UsageBucket, w.span/w.bucket)}
	for i := range rep.buckets {
		rep.buckets[i].Start = rep.since.Add(time.Duration(i) * w.bucket)
	}
	return rep
}

// readUsage sums the request logs of the window that holds now. Its three
// queries each read the whole window: a log written between them may show
// in one and not yet in another.
func (a *App) readUsage(ctx context.Context, w usageWindow, now time.Time) (*usageReport, error) {
	rep := newUsageReport(w, now)
	var err error
	if rep.buckets, err = a.store.SumRequestLogsByTime(ctx, rep.since, w.bucket, len(rep.buckets)); err != nil {
		return nil, err
	}
	for _, b := range rep.buckets {
		rep.total.Add(b.UsageSum)
	}
	if rep.byModel, err = a.store.SumRequestLogs(ctx, "model", rep.since, rep.until); err != nil {
		return nil, err
	}
	if rep.byDeployment, err = a.store.SumRequestLogs(ctx, "deployment", rep.since, rep.until); err != nil {
		return nil, err
	}
	return rep, nil
}
