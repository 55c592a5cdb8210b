package handlers

import (
	"context"
	"net/http"
	"time"
)

// healthz answers 200 while the database answers a ping, 503 otherwise.
func (a *App) healthz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
	defer cancel()
	if err := a.store.DB().Ping(ctx); err != nil {
		a.logger(ctx).Error("health check: database does not answer", "err", err)
		a.writeJSON(w, r, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "error": "database does not answer"})
		return
	}
	a.writeJSON(w, r, http.StatusOK, map[string]string{"status": "ok"})
}
