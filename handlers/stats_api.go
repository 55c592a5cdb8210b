package handlers

import (
	"net/http"
	"time"

	"gateway/models"
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
	q := r.URL.Query()
	if err := queryTime(q, "from", &from); err != nil {
		return nil, err
	}
	if err := queryTime(q, "to", &to); err != nil {
		return nil, err
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
