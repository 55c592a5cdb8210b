package handlers

import (
	"net/http"

	"gateway/proxy"
)

// statsJSON is the answer to GET /api/stats.
type statsJSON struct {
	Deployments []proxy.DeploymentStats `json:"deployments"`
}

// showStats handles GET /api/stats: every served deployment's statistics
// since the gateway started, which the proxy keeps in memory.
func (a *App) showStats(w http.ResponseWriter, r *http.Request) {
	rt, err := a.runtimeState()
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	stats := rt.Stats()
	if stats == nil {
		stats = []proxy.DeploymentStats{}
	}
	a.writeJSON(w, r, http.StatusOK, statsJSON{Deployments: stats})
}
