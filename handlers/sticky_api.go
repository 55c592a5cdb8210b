package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"gateway/models"
	"gateway/proxy"
)

// stickyPinInput is the body of POST /api/sticky: route model_name to one
// member of its pool for ttl_ms (default 2 h), until it fails or is cleared.
type stickyPinInput struct {
	ModelName    string `json:"model_name" validate:"required,max=500,publicname"`
	DeploymentID int64  `json:"deployment_id" validate:"required,gt=0"`
	// TTLMS is capped at a year, far below where milliseconds overflow a Duration.
	TTLMS *int64 `json:"ttl_ms" validate:"omitnil,gt=0,lte=31536000000"`
}

// stickyClearInput is the optional body of DELETE /api/sticky.
type stickyClearInput struct {
	ModelName string `json:"model_name" validate:"required,max=500,publicname"`
}

// stickyJSON is the answer of every /api/sticky call: the live bindings,
// by model name.
type stickyJSON struct {
	Bindings []proxy.StickyBinding `json:"bindings"`
}

func stickyJSONOf(rt Runtime) stickyJSON {
	bs := rt.StickyBindings()
	if bs == nil {
		bs = []proxy.StickyBinding{}
	}
	return stickyJSON{Bindings: bs}
}

// listSticky handles GET /api/sticky.
func (a *App) listSticky(w http.ResponseWriter, r *http.Request) {
	rt, err := a.runtimeState()
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	a.writeJSON(w, r, http.StatusOK, stickyJSONOf(rt))
}

// pinSticky handles POST /api/sticky. Bindings live in the proxy's memory,
// not in the database: there is nothing to reload.
func (a *App) pinSticky(w http.ResponseWriter, r *http.Request) {
	rt, err := a.runtimeState()
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	var in stickyPinInput
	if err := a.decodeBody(w, r, &in); err != nil {
		a.apiError(w, r, err)
		return
	}
	ttl := proxy.DefaultStickyTTL
	if in.TTLMS != nil {
		ttl = time.Duration(*in.TTLMS) * time.Millisecond
	}
	if err := rt.PinSticky(in.ModelName, in.DeploymentID, ttl); err != nil {
		a.apiError(w, r, pinError(err, in))
		return
	}
	a.logger(r.Context()).Info("sticky binding pinned", "model", in.ModelName, "deployment_id", in.DeploymentID, "ttl", ttl)
	a.auditRuntime(r.Context(), "pin", models.AuditSticky, in.ModelName, in.DeploymentID)
	a.writeJSON(w, r, http.StatusCreated, stickyJSONOf(rt))
}

// pinError words the proxy's refusals for the caller.
func pinError(err error, in stickyPinInput) error {
	switch {
	case errors.Is(err, proxy.ErrUnknownModel):
		return &userError{kind: models.ErrNotFound, msg: fmt.Sprintf("model_name: no pool serves %q", in.ModelName)}
	case errors.Is(err, proxy.ErrNotAMember):
		return badInput("deployment_id", "deployment %d is not an enabled member of the pool serving %q", in.DeploymentID, in.ModelName)
	}
	return err
}

// clearSticky handles DELETE /api/sticky: the model_name given in the body or
// the query loses its binding (404 when it had none); with neither, every
// binding goes. It answers the bindings that remain.
func (a *App) clearSticky(w http.ResponseWriter, r *http.Request) {
	rt, err := a.runtimeState()
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	model, all, err := a.stickyClearTarget(w, r)
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	log := a.logger(r.Context())
	if all {
		if err := rt.ClearAllSticky(); err != nil {
			a.apiError(w, r, err)
			return
		}
		log.Info("all sticky bindings cleared")
		a.auditRuntime(r.Context(), "clear", models.AuditSticky, "*", 0)
	} else {
		had, err := rt.ClearSticky(model)
		switch {
		case err != nil:
			a.apiError(w, r, err)
			return
		case !had:
			a.apiError(w, r, &userError{kind: models.ErrNotFound, msg: fmt.Sprintf("model_name: %q has no sticky binding", model)})
			return
		}
		log.Info("sticky binding cleared", "model", model)
		a.auditRuntime(r.Context(), "clear", models.AuditSticky, model, 0)
	}
	a.writeJSON(w, r, http.StatusOK, stickyJSONOf(rt))
}

// stickyClearTarget reads which binding DELETE /api/sticky clears: one model
// named in the body or the query (or both, when they agree), or all when
// neither names one.
func (a *App) stickyClearTarget(w http.ResponseWriter, r *http.Request) (model string, all bool, err error) {
	q, err := queryParams(r, "model_name")
	if err != nil {
		return "", false, err
	}
	body, err := readOptionalBody(w, r)
	if err != nil {
		return "", false, err
	}
	fromQuery, inQuery := q["model_name"]
	var in stickyClearInput
	switch {
	case body != nil:
		if err = a.applyBody(body, &in); err == nil && inQuery && in.ModelName != fromQuery {
			err = badInput("model_name", "the body says %q and the query %q: give one, or the same in both", in.ModelName, fromQuery)
		}
	case inQuery:
		in.ModelName = fromQuery
		err = a.validateStruct(&in)
	default:
		return "", true, nil
	}
	return in.ModelName, false, err
}
