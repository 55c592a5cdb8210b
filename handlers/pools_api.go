package handlers

import (
	"net/http"
	"time"

	"gateway/models"
)

// poolSettingInput is the body of PUT /api/pools/{public_name}. PUT replaces:
// an absent field goes back to the gateway's default.
type poolSettingInput struct {
	StickyTTLSeconds *int `json:"sticky_ttl_seconds" validate:"omitnil,gte=0"`
	NumRetries       *int `json:"num_retries" validate:"omitnil,gte=0"`
	AllowedFails     *int `json:"allowed_fails" validate:"omitnil,gte=0"`
	// RoutingStrategy "" is the default, simple-shuffle.
	RoutingStrategy string `json:"routing_strategy" validate:"omitempty,strategy"`
}

// poolSettingOf is the row the input stores for the pool name. The default
// strategy is stored as "", whichever way it was asked for, so that a pool
// has one way to say it.
func (in *poolSettingInput) poolSettingOf(name string) models.PoolSetting {
	strategy := in.RoutingStrategy
	if strategy == models.StrategySimpleShuffle {
		strategy = ""
	}
	return models.PoolSetting{
		PublicName:       name,
		StickyTTLSeconds: in.StickyTTLSeconds,
		NumRetries:       in.NumRetries,
		AllowedFails:     in.AllowedFails,
		RoutingStrategy:  strategy,
	}
}

// poolSettingJSON is one pool's settings in API answers; null is the default.
type poolSettingJSON struct {
	PublicName       string    `json:"public_name"`
	StickyTTLSeconds *int      `json:"sticky_ttl_seconds"`
	NumRetries       *int      `json:"num_retries"`
	AllowedFails     *int      `json:"allowed_fails"`
	RoutingStrategy  string    `json:"routing_strategy"` // never null: the default is named
	UpdatedAt        time.Time `json:"updated_at"`
}

func poolSettingJSONOf(p *models.PoolSetting) poolSettingJSON {
	return poolSettingJSON{PublicName: p.PublicName, StickyTTLSeconds: p.StickyTTLSeconds, NumRetries: p.NumRetries,
		AllowedFails: p.AllowedFails, RoutingStrategy: strategyName(p.RoutingStrategy), UpdatedAt: p.UpdatedAt}
}

// strategyName names a stored strategy; "" is the default.
func strategyName(s string) string {
	if s == "" {
		return models.StrategySimpleShuffle
	}
	return s
}

// putPoolSetting handles PUT /api/pools/{public_name}. The name is
// path-escaped by the caller ("anthropic%2F*"); PathValue unescapes it.
func (a *App) putPoolSetting(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("public_name")
	if err := a.validateVar("public_name", name, "required,max=500,publicname"); err != nil {
		a.apiError(w, r, err)
		return
	}
	var in poolSettingInput
	if err := a.decodeBody(w, r, &in); err != nil {
		a.apiError(w, r, err)
		return
	}
	p := in.poolSettingOf(name)
	if err := a.store.PutPoolSetting(r.Context(), &p); err != nil {
		a.apiError(w, r, err)
		return
	}
	a.written(w, r, http.StatusOK, poolSettingJSONOf(&p))
}

// listPoolSettings handles GET /api/pools: the settings of every pool that has any.
func (a *App) listPoolSettings(w http.ResponseWriter, r *http.Request) {
	listAs(a, w, r, a.store.ListPoolSettings, poolSettingJSONOf)
}
