package handlers

import (
	"net/http"

	"gateway/models"
	"gateway/views"
)

// showLogDetail shows one request log with its attempts: which member each
// went to, what it answered, and why the router moved on.
func (a *App) showLogDetail(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "request log")
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	l, err := a.store.GetRequestLog(r.Context(), id)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	ks, err := a.store.ListKeys(r.Context())
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	ds, err := a.store.ListDeployments(r.Context())
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	keys := make(map[int64]*models.VirtualKey, len(ks))
	for i := range ks {
		keys[ks[i].ID] = &ks[i]
	}
	names := make(map[int64]string, len(ds))
	for _, d := range ds {
		names[d.ID] = d.PublicName
	}
	vm := views.LogDetailPage{Row: logRow(l, keys), RequestID: l.RequestID, TTFB: latencyText(float64(l.TTFBMS))}
	if l.CacheReadTokens != 0 || l.CacheWriteTokens != 0 {
		vm.Cache = countText(l.CacheReadTokens) + " / " + countText(l.CacheWriteTokens)
	}
	vm.CostParts, vm.PriceSource = costParts(l)
	if l.CostKnown() {
		vm.Row.Cost = usdExact(l.CostUSD)
	}
	trace := l.AttemptTrace()
	for i, at := range trace {
		vm.Attempts = append(vm.Attempts, attemptRow(i+1, at, names))
	}
	vm.Untraced = max(l.Attempts-len(trace), 0)
	a.renderPage(w, r, http.StatusOK, "Request "+l.RequestID, "logs", views.LogDetailContent(vm))
}

func attemptRow(n int, at models.Attempt, names map[int64]string) views.AttemptRow {
	member, ok := names[at.DeploymentID]
	if !ok {
		member = "deleted entry"
	}
	return views.AttemptRow{N: n, DeploymentID: at.DeploymentID, Member: member, Provider: at.Provider,
		UpstreamModel: at.UpstreamModel, Status: at.Status, OK: at.Status >= 200 && at.Status < 400 && at.Reason == "",
		Start: "+" + latencyText(float64(at.StartMS)), Latency: latencyText(float64(at.LatencyMS)),
		Reason: at.Reason, Error: at.Error, Fallback: at.Fallback}
}

// costParts explain a request's cost by token class: uncached input, cache
// reads, 5-minute and 1-hour cache writes (one cost: the log keeps writes'
// cost together), output with its reasoning tokens.
func costParts(l *models.RequestLog) ([]views.CostPart, string) {
	if l.PriceSource == "" {
		return nil, "" // nothing billed: no usage
	}
	source := l.PriceSource
	if l.LongContext {
		source += ", long-context prices"
	}
	if !l.CostKnown() {
		source = "none for some tokens: the cost is unknown"
	}
	uncached := max(l.InputTokens-l.CacheReadTokens-l.CacheWriteTokens, 0)
	writes := countText(l.CacheWriteTokens)
	if l.CacheWrite1hTokens > 0 {
		writes += " (" + countText(l.CacheWrite1hTokens) + " for 1 h)"
	}
	output := countText(l.OutputTokens)
	if l.ReasoningTokens > 0 {
		output += " (" + countText(l.ReasoningTokens) + " reasoning)"
	}
	return []views.CostPart{
		{Class: "input", Tokens: countText(uncached), Cost: usdExact(l.CostInputUSD)},
		{Class: "cache read", Tokens: countText(l.CacheReadTokens), Cost: usdExact(l.CostCacheReadUSD)},
		{Class: "cache write", Tokens: writes, Cost: usdExact(l.CostCacheWriteUSD)},
		{Class: "output", Tokens: output, Cost: usdExact(l.CostOutputUSD)},
	}, source
}
