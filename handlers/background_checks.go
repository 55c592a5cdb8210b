package handlers

import (
	"context"
	"slices"
	"strconv"
	"time"

	"gateway/models"
	"gateway/proxy/catalog"
)

// backgroundCheckTick is how often RunBackgroundChecks looks for pools due.
const backgroundCheckTick = time.Minute

// RunBackgroundChecks checks, until ctx ends, the pools that are due for a
// live check (see CheckDuePools). It does nothing while the interval setting
// is 0 or unset, which is the default: a check really calls every member,
// so it is an admin's decision to run them on a timer.
func (a *App) RunBackgroundChecks(ctx context.Context) {
	t := time.NewTicker(backgroundCheckTick)
	defer t.Stop()
	for {
		if _, err := a.CheckDuePools(ctx, time.Now()); err != nil && ctx.Err() == nil {
			a.log.Warn("background health checks failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// CheckDuePools checks every pool with an enabled member whose last check
// (by anyone: Check now, the API, another replica) is missing or at least the
// setting's interval old at now, and returns the pools it checked. Members
// whose upstream model is a wildcard pattern cannot be called and never make
// a pool due.
func (a *App) CheckDuePools(ctx context.Context, now time.Time) ([]string, error) {
	interval, err := a.healthCheckInterval(ctx)
	if err != nil || interval <= 0 || a.runtime == nil {
		return nil, err
	}
	due, err := a.duePools(ctx, now, interval)
	if err != nil {
		return nil, err
	}
	for _, name := range due {
		if _, err := a.checkAndStore(ctx, a.runtime, name); err != nil {
			return nil, err
		}
	}
	return due, nil
}

func (a *App) healthCheckInterval(ctx context.Context) (time.Duration, error) {
	v, ok, err := a.store.GetSetting(ctx, models.SettingHealthCheckMinutes)
	if err != nil || !ok {
		return 0, err
	}
	minutes, err := strconv.Atoi(v)
	if err != nil {
		return 0, nil // the API never stores one that does not parse
	}
	return time.Duration(minutes) * time.Minute, nil
}

// duePools lists, in name order, the pools with a checkable member not
// checked within interval of now.
func (a *App) duePools(ctx context.Context, now time.Time, interval time.Duration) ([]string, error) {
	entries, err := a.store.ListDeployments(ctx)
	if err != nil {
		return nil, err
	}
	checks, err := a.store.ListHealthChecks(ctx)
	if err != nil {
		return nil, err
	}
	checkedAt := make(map[int64]time.Time, len(checks))
	for _, h := range checks {
		checkedAt[h.DeploymentID] = h.CheckedAt
	}
	var due []string
	for _, e := range entries {
		if !e.Enabled || !catalog.Checkable(e.UpstreamModel) || slices.Contains(due, e.PublicName) {
			continue
		}
		if at, ok := checkedAt[e.ID]; !ok || now.Sub(at) >= interval {
			due = append(due, e.PublicName)
		}
	}
	slices.Sort(due)
	return due, nil
}
