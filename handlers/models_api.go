package handlers

import (
	"net/http"
	"time"

	"gateway/models"
	"gateway/proxy/pricing"
)

// modelEntryJSON is a model entry in API answers. Unset optional fields are null.
type modelEntryJSON struct {
	ID              int64    `json:"id"`
	PublicName      string   `json:"public_name"`
	Wildcard        bool     `json:"wildcard"`
	ProviderID      int64    `json:"provider_id"`
	Provider        string   `json:"provider"`
	UpstreamModel   string   `json:"upstream_model"`
	Weight          *float64 `json:"weight"`
	CooldownSeconds *int     `json:"cooldown_seconds"`
	TimeoutSeconds  *int     `json:"timeout_seconds"`
	ContextWindow   *int     `json:"context_window"`
	// The entry's own prices (null: the catalog's, see effective_prices).
	priceFields
	BaseModel string `json:"base_model"`
	// EffectivePrices are what its tokens cost, and where each price comes from.
	EffectivePrices effectivePricesJSON `json:"effective_prices"`
	RPMLimit        *int                `json:"rpm_limit"`
	TPMLimit        *int                `json:"tpm_limit"`
	Priority        int                 `json:"priority"`
	Enabled         bool                `json:"enabled"`
	CreatedAt       time.Time           `json:"created_at"`
	UpdatedAt       time.Time           `json:"updated_at"`
}

func modelEntryJSONOf(cat *pricing.Catalog, d *models.Deployment) modelEntryJSON {
	prices := entryPrices(cat, d)
	return modelEntryJSON{
		ID: d.ID, PublicName: d.PublicName, Wildcard: d.IsWildcard(),
		ProviderID: d.ProviderID, Provider: d.Provider.Name, UpstreamModel: d.UpstreamModel,
		Weight: d.Weight, CooldownSeconds: d.CooldownSeconds, TimeoutSeconds: d.TimeoutSeconds, ContextWindow: d.ContextWindow,
		priceFields: priceFieldsOf(d.Prices), BaseModel: d.BaseModel, EffectivePrices: effectivePricesOf(&prices, cat),
		RPMLimit: d.RPMLimit, TPMLimit: d.TPMLimit, Priority: d.Priority, Enabled: d.Enabled,
		CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt,
	}
}

// createModelEntryAPI handles POST /api/models.
func (a *App) createModelEntryAPI(w http.ResponseWriter, r *http.Request) {
	createAs(a, w, r, newRow[modelEntryInput](a, a.store.CreateDeployment), a.writtenEntry)
}

// listModelEntries handles GET /api/models.
func (a *App) listModelEntries(w http.ResponseWriter, r *http.Request) {
	cat, err := a.catalog(r.Context())
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	listAs(a, w, r, a.store.ListDeployments, func(d *models.Deployment) modelEntryJSON { return modelEntryJSONOf(cat, d) })
}

// writtenEntry answers a written entry with its effective prices.
func (a *App) writtenEntry(w http.ResponseWriter, r *http.Request, status int, d *models.Deployment) {
	cat, err := a.catalog(r.Context())
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	a.written(w, r, status, modelEntryJSONOf(cat, d))
}

// updateModelEntry handles PATCH /api/models/{id}: absent fields keep their
// value, null resets one to its default (weight: unset).
func (a *App) updateModelEntry(w http.ResponseWriter, r *http.Request) {
	patchAs(a, w, r, "model entry", overRow(a, a.store.UpdateDeployment, modelEntryInputOf), a.writtenEntry)
}

// deleteModelEntry handles DELETE /api/models/{id}.
func (a *App) deleteModelEntry(w http.ResponseWriter, r *http.Request) {
	deleteAs(a, w, r, "model entry", a.store.DeleteDeployment, a.written)
}
