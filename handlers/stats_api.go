package handlers

import (
	"net/http"

	"gateway/proxy"
)

// statsJSON is the answer to GET /api/stats.
type statsJSON struct {
	Deployments []proxy.DeploymentStats `json:"deployments"`
	// Usage is what the stored request logs add up to over ?from=&to=.
	Usage *usageJSON `json:"usage"`
}

// showStats handles GET /api/stats: every served deployment's statistics
// since the gateway started, which the proxy keeps in memory, and the usage
// per key, user, team, model and deployment over a time range, from the
// request logs.
func (a *App) showStats(w http.ResponseWriter, r *http.Request) {
	rt, err := a.runtimeState()
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	usage, err := a.usageOver(r)
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	stats := rt.Stats()
	if stats == nil {
		stats = []proxy.DeploymentStats{}
	}
	a.writeJSON(w, r, http.StatusOK, statsJSON{Deployments: stats, Usage: usage})
}
