package handlers

import (
	"net/http"

	"gateway/views"
)

// showDashboard shows how many providers, model entries and keys exist.
func (a *App) showDashboard(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	providers, err := a.store.ListProviders(ctx)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	entries, err := a.store.ListDeployments(ctx)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	keys, err := a.store.CountKeys(ctx)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	pools := map[string]bool{}
	for _, d := range entries {
		pools[d.PublicName] = true
	}
	vm := views.Dashboard{Providers: len(providers), ModelEntries: len(entries), Pools: len(pools), Keys: int(keys)}
	a.renderPage(w, r, http.StatusOK, "Dashboard", "dashboard", views.DashboardContent(vm))
}
