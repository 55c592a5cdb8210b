package handlers

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"strconv"
	"time"

	"gateway/models"
	"gateway/proxy"
	"gateway/views"
)

// showDashboard shows what is configured, usage over a time window (the
// query's window: 1h, 24h or 7d) with charts, and the live statistics.
func (a *App) showDashboard(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	win := windowNamed(r.URL.Query().Get("window"))
	vm := views.DashboardPage{Window: win.name}
	entries, err := a.dashboardCounts(ctx, &vm.Dashboard)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	rep, err := a.readUsage(ctx, win, time.Now())
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	fillUsage(&vm, rep, entries)
	if vm.Attention, err = a.attention(ctx, entries, time.Now()); err != nil {
		a.pageError(w, r, err)
		return
	}
	if a.runtime != nil {
		vm.LiveAvailable = true
		vm.Live = liveRows(a.runtime.Stats())
	}
	a.renderPage(w, r, http.StatusOK, "Dashboard", "dashboard", views.DashboardContent(vm))
}

// dashboardCounts counts providers, entries, pools and keys, and returns the
// entries.
func (a *App) dashboardCounts(ctx context.Context, d *views.Dashboard) ([]models.Deployment, error) {
	providers, err := a.store.ListProviders(ctx)
	if err != nil {
		return nil, err
	}
	entries, err := a.store.ListDeployments(ctx)
	if err != nil {
		return nil, err
	}
	keys, err := a.store.CountKeys(ctx)
	if err != nil {
		return nil, err
	}
	pools := map[string]bool{}
	for _, e := range entries {
		pools[e.PublicName] = true
	}
	*d = views.Dashboard{Providers: len(providers), ModelEntries: len(entries), Pools: len(pools), Keys: int(keys)}
	return entries, nil
}

// windowNamed is the window of that name; anything else is the default.
func windowNamed(name string) usageWindow {
	for _, w := range usageWindows {
		if w.name == name {
			return w
		}
	}
	return windowNamed(defaultUsageWindow)
}

// fillUsage turns the report into totals, charts and tables.
func fillUsage(vm *views.DashboardPage, rep *usageReport, entries []models.Deployment) {
	for _, w := range usageWindows {
		vm.Windows = append(vm.Windows, views.WindowChoice{Value: w.name, Label: w.label, Active: w.name == rep.window.name})
	}
	vm.Since, vm.Until = rep.since.Format("2006-01-02 15:04"), rep.until.Format("2006-01-02 15:04")
	t := &rep.total
	vm.Totals = views.UsageTotals{Requests: countText(t.Requests), SuccessRate: rateText(t.Successes, t.Requests),
		AvgLatency: "–", Tokens: compactText(float64(t.TokensIn + t.TokensOut)), Cost: usdText(t.CostUSD)}
	if t.Requests > 0 {
		vm.Totals.AvgLatency = latencyText(t.AvgMS())
	}
	vm.Charts = usageCharts(rep)
	for _, u := range rep.byModel {
		vm.Models = append(vm.Models, usageRow(u.Group, "", u))
	}
	byID := make(map[string]*models.Deployment, len(entries))
	for i := range entries {
		byID[strconv.FormatInt(entries[i].ID, 10)] = &entries[i]
	}
	for _, u := range rep.byDeployment {
		vm.Deployments = append(vm.Deployments, deploymentUsageRow(byID[u.Group], u))
	}
	for _, rows := range [][]views.UsageRow{vm.Models, vm.Deployments} {
		slices.SortStableFunc(rows, func(x, y views.UsageRow) int {
			return cmp.Or(cmp.Compare(y.RequestCount, x.RequestCount), cmp.Compare(x.Name, y.Name))
		})
	}
}

func usageRow(name, detail string, u models.UsageTotal) views.UsageRow {
	return views.UsageRow{Name: name, Detail: detail, RequestCount: u.Requests, Requests: countText(u.Requests),
		SuccessRate: rateText(u.Successes, u.Requests), AvgLatency: latencyText(u.AvgMS),
		TokensIn: countText(u.TokensIn), TokensOut: countText(u.TokensOut), Cost: usdText(u.CostUSD)}
}

// deploymentUsageRow names a deployment by its entry, or by its logs once
// the entry is gone.
func deploymentUsageRow(d *models.Deployment, u models.UsageTotal) views.UsageRow {
	tag := "#" + u.Group
	if d == nil {
		return usageRow(tag, "deleted · "+u.Provider+" / "+u.UpstreamModel, u)
	}
	return usageRow(d.PublicName, tag+" · "+d.Provider.Name+" / "+d.UpstreamModel, u)
}

// usageCharts draws requests (ok and failed), average latencyText, tokens (in
// and out) and cost per bucket.
func usageCharts(rep *usageReport) []views.Chart {
	n := len(rep.buckets)
	axis := chartAxis{ticks: make([]string, n), tips: make([]string, n)}
	ok, failed, tokIn, tokOut, cost, lat := make([]float64, n), make([]float64, n), make([]float64, n),
		make([]float64, n), make([]float64, n), make([]float64, n)
	has := make([]bool, n)
	for i, b := range rep.buckets {
		axis.ticks[i], axis.tips[i] = bucketLabels(b.Start, rep.window)
		ok[i], failed[i] = float64(b.Successes), float64(b.Requests-b.Successes)
		tokIn[i], tokOut[i], cost[i] = float64(b.TokensIn), float64(b.TokensOut), b.CostUSD
		lat[i], has[i] = b.AvgMS(), b.Requests > 0
	}
	charts := []views.Chart{
		barChart("Requests", "chart-requests", axis, []chartSeries{{"succeeded", 0, ok}, {"failed", 1, failed}}, compactText),
		lineChart("Average latency", "chart-latency", axis, lat, has, latencyText),
		barChart("Tokens", "chart-tokens", axis, []chartSeries{{"input", 0, tokIn}, {"output", 2, tokOut}}, compactText),
		barChart("Cost", "chart-cost", axis, []chartSeries{{"cost", 0, cost}}, usdText),
	}
	// An empty chart says why: no requests at all, or requests that
	// counted no tokens or cost nothing (no prices set).
	if slices.Contains(has, true) {
		charts[2].EmptyText, charts[3].EmptyText = "no tokens counted", "$0 in this window"
	}
	return charts
}

// bucketLabels are a bucket's tick label and tooltip.
func bucketLabels(start time.Time, w usageWindow) (tick, tip string) {
	if w.span <= 24*time.Hour {
		return start.Format("15:04"), start.Format("Jan 2 15:04") + " UTC"
	}
	return start.Format("Jan 2"), start.Format("Jan 2 15:04") + " UTC"
}

func liveRows(stats []proxy.DeploymentStats) []views.LiveStatsRow {
	rows := make([]views.LiveStatsRow, len(stats))
	for i, s := range stats {
		rows[i] = views.LiveStatsRow{ID: s.ID, PublicName: s.PublicName, Provider: s.Provider,
			Requests: countText(s.Requests), SuccessRate: rateText(s.Successes, s.Requests),
			AvgLatency: latencyText(s.AvgLatencyMS), P95Latency: latencyText(s.P95LatencyMS),
			TokensIn: countText(s.TokensIn), TokensOut: countText(s.TokensOut), Cost: usdText(s.CostUSD),
			LastError: shorten(s.LastError, 200)}
		if s.LastErrorAt != nil {
			rows[i].LastErrorAt = stampText(*s.LastErrorAt)
		}
		if s.Requests == 0 {
			rows[i].AvgLatency, rows[i].P95Latency = "–", "–"
		}
	}
	return rows
}
