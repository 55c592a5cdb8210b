package handlers

import "context"

// auditRuntime records a change to runtime state (a sticky pin or clear, a
// cooldown ended) in the audit log, after it was made: it has no row to
// share a transaction with. model is the pool ("*" for all of them),
// deploymentID the member (0 for none). A failure to record is logged; the
// change stands.
func (a *App) auditRuntime(ctx context.Context, action, kind, model string, deploymentID int64) {
	var change map[string]any
	if deploymentID != 0 {
		change = map[string]any{"deployment_id": deploymentID}
	} else {
		change = map[string]any{"model": model}
	}
	var before, after any = nil, change
	if action != "pin" {
		before, after = change, nil
	}
	if err := a.store.RecordAudit(ctx, action, kind, model, model, before, after); err != nil {
		a.logger(ctx).Error("audit: could not record a runtime change", "action", action, "kind", kind, "model", model, "err", err)
	}
}
