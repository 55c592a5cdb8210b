package handlers

import (
	"net/http"
	"time"

	"gateway/models"
)

// modelEntryJSON is a model entry in API answers. Unset optional fields are null.
type modelEntryJSON struct {
	ID              int64     `json:"id"`
	PublicName      string    `json:"public_name"`
	Wildcard        bool      `json:"wildcard"`
	ProviderID      int64     `json:"provider_id"`
	Provider        string    `json:"provider"`
	UpstreamModel   string    `json:"upstream_model"`
	Weight          *float64  `json:"weight"`
	CooldownSeconds *int      `json:"cooldown_seconds"`
	TimeoutSeconds  *int      `json:"timeout_seconds"`
	ContextWindow   *int      `json:"context_window"`
	InputPrice      float64   `json:"input_price"`
	OutputPrice     float64   `json:"output_price"`
	CacheReadPrice  *float64  `json:"cache_read_price"`
	RPMLimit        *int      `json:"rpm_limit"`
	TPMLimit        *int      `json:"tpm_limit"`
	Priority        int       `json:"priority"`
	Enabled         bool      `json:"enabled"`
	CreatedAt       time.Time `json:"created_at"`
	UpdatedAt       time.Time `json:"updated_at"`
}

func modelEntryJSONOf(d *models.Deployment) modelEntryJSON {
	return modelEntryJSON{
		ID:              d.ID,
		PublicName:      d.PublicName,
		Wildcard:        d.IsWildcard(),
		ProviderID:      d.ProviderID,
		Provider:        d.Provider.Name,
		UpstreamModel:   d.UpstreamModel,
		Weight:          d.Weight,
		CooldownSeconds: d.CooldownSeconds,
		TimeoutSeconds:  d.TimeoutSeconds,
		ContextWindow:   d.ContextWindow,
		InputPrice:      d.InputPrice,
		OutputPrice:     d.OutputPrice,
		CacheReadPrice:  d.CacheReadPrice,
		RPMLimit:        d.RPMLimit,
		TPMLimit:        d.TPMLimit,
		Priority:        d.Priority,
		Enabled:         d.Enabled,
		CreatedAt:       d.CreatedAt,
		UpdatedAt:       d.UpdatedAt,
	}
}

// createModelEntryAPI handles POST /api/models.
func (a *App) createModelEntryAPI(w http.ResponseWriter, r *http.Request) {
	var in modelEntryInput
	if err := a.decodeBody(w, r, &in); err != nil {
		a.apiError(w, r, err)
		return
	}
	d, err := a.storeModelEntry(r.Context(), &in)
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	a.written(w, r, http.StatusCreated, modelEntryJSONOf(d))
}

// listModelEntries handles GET /api/models.
func (a *App) listModelEntries(w http.ResponseWriter, r *http.Request) {
	listAs(a, w, r, a.store.ListDeployments, modelEntryJSONOf)
}

// updateModelEntry handles PATCH /api/models/{id}: absent fields keep their
// value, null resets one to its default (weight: unset).
func (a *App) updateModelEntry(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "model entry")
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	body, err := readBody(w, r)
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	d, err := a.store.UpdateDeployment(r.Context(), id, func(d *models.Deployment) error {
		in := modelEntryInputOf(d)
		if err := a.applyBody(body, &in); err != nil {
			return err
		}
		in.applyTo(d)
		return nil
	})
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	a.written(w, r, http.StatusOK, modelEntryJSONOf(d))
}

// deleteModelEntry handles DELETE /api/models/{id}.
func (a *App) deleteModelEntry(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "model entry")
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	if err := a.store.DeleteDeployment(r.Context(), id); err != nil {
		a.apiError(w, r, err)
		return
	}
	a.written(w, r, http.StatusNoContent, nil)
}
