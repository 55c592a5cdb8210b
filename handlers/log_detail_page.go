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
