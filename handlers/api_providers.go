package handlers

import (
	"encoding/json"
	"net/http"
	"time"

	"gateway/models"
)

// providerFields are a provider's settings except its key.
type providerFields struct {
	Name              string `json:"name" validate:"required,max=200,singleline"`
	APIType           string `json:"api_type" validate:"required,oneof=openai anthropic"`
	BaseURL           string `json:"base_url" validate:"required,max=2000,baseurl"`
	SupportsResponses bool   `json:"supports_responses"`
}

// newProviderInput is the body of POST /api/providers.
type newProviderInput struct {
	providerFields
	APIKey string `json:"api_key" validate:"required,max=4000,printascii"`
}

// providerPatchInput is the body of PATCH /api/providers/{id}: an absent or
// empty api_key keeps the stored one.
type providerPatchInput struct {
	providerFields
	APIKey string `json:"api_key" validate:"omitempty,max=4000,printascii"`
}

func (f *providerFields) applyTo(p *models.Provider) {
	p.Name = f.Name
	p.APIType = f.APIType
	p.BaseURL = f.BaseURL
	p.SupportsResponses = f.SupportsResponses
}

// providerJSON is a provider in API answers. The key itself is never in it:
// only its last four characters, when it is long enough to spare them.
type providerJSON struct {
	ID                int64     `json:"id"`
	Name              string    `json:"name"`
	APIType           string    `json:"api_type"`
	BaseURL           string    `json:"base_url"`
	APIKeyLast4       string    `json:"api_key_last4"`
	SupportsResponses bool      `json:"supports_responses"`
	CreatedAt         time.Time `json:"created_at"`
	UpdatedAt         time.Time `json:"updated_at"`
}

func providerJSONOf(p *models.Provider) providerJSON {
	return providerJSON{
		ID:                p.ID,
		Name:              p.Name,
		APIType:           p.APIType,
		BaseURL:           p.BaseURL,
		APIKeyLast4:       p.APIKeyLast4,
		SupportsResponses: p.SupportsResponses,
		CreatedAt:         p.CreatedAt,
		UpdatedAt:         p.UpdatedAt,
	}
}

// createProvider handles POST /api/providers.
func (a *App) createProvider(w http.ResponseWriter, r *http.Request) {
	var in newProviderInput
	if err := a.decodeBody(w, r, &in); err != nil {
		a.apiError(w, r, err)
		return
	}
	var p models.Provider
	in.applyTo(&p)
	if err := a.store.CreateProvider(r.Context(), &p, models.ProviderSecrets{APIKey: in.APIKey}); err != nil {
		a.apiError(w, r, nameTaken(err, "provider", in.Name))
		return
	}
	a.written(w, r, http.StatusCreated, providerJSONOf(&p))
}

// listProviders handles GET /api/providers.
func (a *App) listProviders(w http.ResponseWriter, r *http.Request) {
	listAs(a, w, r, a.store.ListProviders, providerJSONOf)
}

// updateProvider handles PATCH /api/providers/{id}.
func (a *App) updateProvider(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "provider")
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	body, err := readBody(w, r)
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	// The store takes the new key as an argument, so it is read from the body
	// first; apply validates it along with everything else.
	var newKey string
	if raw, ok := body["api_key"]; ok {
		if err := json.Unmarshal(raw, &newKey); err != nil {
			a.apiError(w, r, badInput("api_key", "must be a string"))
			return
		}
	}
	var in providerPatchInput
	p, err := a.store.UpdateProvider(r.Context(), id, models.ProviderSecrets{APIKey: newKey}, func(p *models.Provider) error {
		in = providerPatchInput{providerFields: providerFields{
			Name: p.Name, APIType: p.APIType, BaseURL: p.BaseURL, SupportsResponses: p.SupportsResponses,
		}}
		if err := a.applyBody(body, &in); err != nil {
			return err
		}
		in.applyTo(p)
		return nil
	})
	if err != nil {
		a.apiError(w, r, nameTaken(err, "provider", in.Name))
		return
	}
	a.written(w, r, http.StatusOK, providerJSONOf(p))
}

// deleteProvider handles DELETE /api/providers/{id}; a provider that model
// entries use is refused with 409.
func (a *App) deleteProvider(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "provider")
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	if err := a.store.DeleteProvider(r.Context(), id); err != nil {
		a.apiError(w, r, err)
		return
	}
	a.written(w, r, http.StatusNoContent, nil)
}
