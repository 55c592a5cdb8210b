package handlers

import (
	"context"
	"net/http"

	"gateway/models"
	"gateway/views"
)

// modelEntryInput is a model entry as the API's JSON and the Models page's
// form send it: both decode into it and validate it with the same rules.
type modelEntryInput struct {
	PublicName    string `json:"public_name" validate:"required,max=500,publicname"`
	ProviderID    int64  `json:"provider_id" validate:"required,gt=0"`
	UpstreamModel string `json:"upstream_model" validate:"required,max=500,singleline"`
	// Weight nil is unset, which is not 0.
	Weight          *float64 `json:"weight" validate:"omitnil,gte=0"`
	CooldownSeconds *int     `json:"cooldown_seconds" validate:"omitnil,gte=0"`
	TimeoutSeconds  *int     `json:"timeout_seconds" validate:"omitnil,gt=0"`
	ContextWindow   *int     `json:"context_window" validate:"omitnil,gt=0"`
	priceFields
	// BaseModel names the model the catalog prices the entry as (an Azure
	// deployment's name is the admin's); nil or "" is its upstream model.
	BaseModel *string `json:"base_model" validate:"omitnil,max=500,singleline"`
	// RPMLimit and TPMLimit nil are no limit; 0 is refused, it would let
	// nothing through.
	RPMLimit *int `json:"rpm_limit" validate:"omitnil,ratelimit"`
	TPMLimit *int `json:"tpm_limit" validate:"omitnil,ratelimit"`
	// Priority is the tier, lower first; the range leaves room for any
	// sensible number of tiers and keeps typos (1e9) out.
	Priority int `json:"priority" validate:"gte=-1000,lte=1000"`
	// Enabled nil is the default: enabled.
	Enabled *bool `json:"enabled"`
}

// modelEntryInputOf is the entry's current state, the base a PATCH applies to.
func modelEntryInputOf(d *models.Deployment) modelEntryInput {
	return modelEntryInput{
		PublicName:      d.PublicName,
		ProviderID:      d.ProviderID,
		UpstreamModel:   d.UpstreamModel,
		Weight:          d.Weight,
		CooldownSeconds: d.CooldownSeconds,
		TimeoutSeconds:  d.TimeoutSeconds,
		ContextWindow:   d.ContextWindow,
		priceFields:     priceFieldsOf(d.Prices),
		BaseModel:       &d.BaseModel,
		RPMLimit:        d.RPMLimit,
		TPMLimit:        d.TPMLimit,
		Priority:        d.Priority,
		Enabled:         &d.Enabled,
	}
}

// applyTo writes the input onto d, defaults included.
func (in *modelEntryInput) applyTo(d *models.Deployment) {
	d.PublicName = in.PublicName
	d.ProviderID = in.ProviderID
	d.UpstreamModel = in.UpstreamModel
	d.Weight = in.Weight
	d.CooldownSeconds = in.CooldownSeconds
	d.TimeoutSeconds = in.TimeoutSeconds
	d.ContextWindow = in.ContextWindow
	d.Prices = in.prices()
	d.BaseModel = valueOr(in.BaseModel, "")
	d.RPMLimit, d.TPMLimit = in.RPMLimit, in.TPMLimit
	d.Priority = in.Priority
	d.Enabled = valueOr(in.Enabled, true)
}

func valueOr[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// parseModelEntryForm reads the add-entry form into the input. Numbers that
// do not parse are field errors; blank optional fields are unset.
func parseModelEntryForm(r *http.Request) (modelEntryInput, views.ModelEntryValues, *inputError) {
	v := views.ModelEntryValues{
		PublicName:      formValue(r, "public_name"),
		ProviderID:      formValue(r, "provider_id"),
		UpstreamModel:   formValue(r, "upstream_model"),
		Weight:          formValue(r, "weight"),
		CooldownSeconds: formValue(r, "cooldown_seconds"),
		TimeoutSeconds:  formValue(r, "timeout_seconds"),
		ContextWindow:   formValue(r, "context_window"),
		BaseModel:       formValue(r, "base_model"),
		RPMLimit:        formValue(r, "rpm_limit"),
		TPMLimit:        formValue(r, "tpm_limit"),
		Priority:        formValue(r, "priority"),
		Enabled:         r.PostFormValue("enabled") == "true",
	}
	p := formParser{}
	in := modelEntryInput{
		PublicName:      v.PublicName,
		UpstreamModel:   v.UpstreamModel,
		Weight:          p.float("weight", v.Weight),
		CooldownSeconds: p.int("cooldown_seconds", v.CooldownSeconds),
		TimeoutSeconds:  p.int("timeout_seconds", v.TimeoutSeconds),
		ContextWindow:   p.int("context_window", v.ContextWindow),
		RPMLimit:        p.int("rpm_limit", v.RPMLimit),
		TPMLimit:        p.int("tpm_limit", v.TPMLimit),
		// Blank is the default tier, 0.
		Priority: valueOr(p.int("priority", v.Priority), 0),
	}
	v.Prices, in.priceFields = priceForm(r, &p)
	if v.BaseModel != "" {
		in.BaseModel = &v.BaseModel
	}
	if id := p.int("provider_id", v.ProviderID); id != nil {
		in.ProviderID = int64(*id)
	}
	return in, v, p.err
}

// storeModelEntry stores the entry described by in.
func (a *App) storeModelEntry(ctx context.Context, in *modelEntryInput) (*models.Deployment, error) {
	var d models.Deployment
	in.applyTo(&d)
	if err := a.store.CreateDeployment(ctx, &d); err != nil {
		return nil, err
	}
	return &d, nil
}
