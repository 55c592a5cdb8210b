package handlers

import (
	"errors"
	"fmt"
	"net/http"

	"gateway/models"
	"gateway/proxy"
)

// endCooldown handles DELETE /api/pools/{public_name}/cooldowns/{id}: the
// member is back in rotation at once, on every replica when they share
// Redis. 204 also when it was not cooling down.
func (a *App) endCooldown(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("public_name")
	if err := a.validateVar("public_name", name, "required,max=500,publicname"); err != nil {
		a.apiError(w, r, err)
		return
	}
	id, err := pathID(r, "member")
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	rt, err := a.runtimeState()
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	if err := rt.EndCooldown(r.Context(), name, id); err != nil {
		a.apiError(w, r, cooldownError(err, name, id))
		return
	}
	a.logger(r.Context()).Info("cooldown ended", "model", name, "deployment_id", id)
	a.auditRuntime(r.Context(), "end", models.AuditCooldown, name, id)
	w.WriteHeader(http.StatusNoContent)
}

// cooldownError words the proxy's refusals for the caller.
func cooldownError(err error, name string, id int64) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, proxy.ErrUnknownModel):
		return &userError{kind: models.ErrNotFound, msg: fmt.Sprintf("no pool %q is served", name)}
	case errors.Is(err, proxy.ErrNotAMember):
		return &userError{kind: models.ErrNotFound, msg: fmt.Sprintf("deployment %d is not an enabled member of %q", id, name)}
	}
	return err
}
