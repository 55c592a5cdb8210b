package handlers

import (
	"net/http"

	"gateway/models"
	"gateway/views"
)

// setPoolSettingsForm handles POST /models/pool-settings, the settings form
// on a pool's card. Like PUT /api/pools/{public_name} it replaces: a blank
// field goes back to the gateway's default.
func (a *App) setPoolSettingsForm(w http.ResponseWriter, r *http.Request) {
	name := formValue(r, "public_name")
	// The name is the form's own hidden field: a wrong one is a bad request.
	if err := a.validateVar("public_name", name, "required,max=500,publicname"); err != nil {
		a.pageError(w, r, err)
		return
	}
	values := views.PoolSettingsForm{
		StickyTTLSeconds: formValue(r, "sticky_ttl_seconds"),
		NumRetries:       formValue(r, "num_retries"),
		AllowedFails:     formValue(r, "allowed_fails"),
		RoutingStrategy:  formValue(r, "routing_strategy"),
		Strategies:       strategyOptions(),
	}
	p := formParser{}
	in := poolSettingInput{
		StickyTTLSeconds: p.int("sticky_ttl_seconds", values.StickyTTLSeconds),
		NumRetries:       p.int("num_retries", values.NumRetries),
		AllowedFails:     p.int("allowed_fails", values.AllowedFails),
		RoutingStrategy:  values.RoutingStrategy,
	}
	err := joinInputErrors(p.err, a.validateStruct(&in))
	if err == nil {
		ps := in.poolSettingOf(name)
		err = a.store.PutPoolSetting(r.Context(), &ps)
	}
	a.edited(w, r, err, &inlineEdit{publicName: name, field: "settings", settings: values})
}

// poolSettingsFormOf is a pool's stored settings as its form shows them.
func poolSettingsFormOf(p *models.PoolSetting) views.PoolSettingsForm {
	if p == nil {
		return views.PoolSettingsForm{Strategies: strategyOptions()}
	}
	return views.PoolSettingsForm{
		StickyTTLSeconds: optionalInt(p.StickyTTLSeconds),
		NumRetries:       optionalInt(p.NumRetries),
		AllowedFails:     optionalInt(p.AllowedFails),
		RoutingStrategy:  p.RoutingStrategy,
		Strategies:       strategyOptions(),
	}
}

// strategyHelp says what each routing strategy picks by, as the settings
// form and the pool status page word it.
var strategyHelp = map[string]string{
	models.StrategySimpleShuffle: "by weight",
	models.StrategyLatencyBased:  "lowest recent latency",
	models.StrategyLeastBusy:     "fewest requests in flight",
	models.StrategyUsageBased:    "most rpm/tpm headroom this minute",
	models.StrategyCostBased:     "cheapest input + output price",
}

// strategyOptions are the settings form's strategies; the default's value
// is blank, as it is stored.
func strategyOptions() []views.Option {
	opts := make([]views.Option, 0, len(models.RoutingStrategies))
	for _, s := range models.RoutingStrategies {
		o := views.Option{Value: s, Label: s + ": " + strategyHelp[s]}
		if s == models.StrategySimpleShuffle {
			o = views.Option{Value: "", Label: s + " (default): " + strategyHelp[s]}
		}
		opts = append(opts, o)
	}
	return opts
}
