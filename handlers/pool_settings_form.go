package handlers

import (
	"net/http"
	"strings"

	"gateway/models"
	"gateway/views"
)

// setPoolSettingsForm handles POST /models/pool-settings, the settings form
// on a pool's card. Like PUT /api/pools/{public_name} it replaces: a blank
// field goes back to the gateway's default.
func (a *App) setPoolSettingsForm(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimSpace(r.PostFormValue("public_name"))
	// The name is the form's own hidden field: a wrong one is a bad request.
	if err := a.validateVar("public_name", name, "required,max=500,publicname"); err != nil {
		a.pageError(w, r, err)
		return
	}
	values := views.PoolSettingsForm{
		StickyTTLSeconds: strings.TrimSpace(r.PostFormValue("sticky_ttl_seconds")),
		NumRetries:       strings.TrimSpace(r.PostFormValue("num_retries")),
		AllowedFails:     strings.TrimSpace(r.PostFormValue("allowed_fails")),
	}
	p := formParser{}
	in := poolSettingInput{
		StickyTTLSeconds: p.int("sticky_ttl_seconds", values.StickyTTLSeconds),
		NumRetries:       p.int("num_retries", values.NumRetries),
		AllowedFails:     p.int("allowed_fails", values.AllowedFails),
	}
	err := withParseErrors(p.err, a.validateStruct(&in))
	if err == nil {
		err = a.store.PutPoolSetting(r.Context(), &models.PoolSetting{
			PublicName:       name,
			StickyTTLSeconds: in.StickyTTLSeconds,
			NumRetries:       in.NumRetries,
			AllowedFails:     in.AllowedFails,
		})
	}
	a.edited(w, r, err, &inlineEdit{publicName: name, field: "settings", settings: values})
}

// poolSettingsFormOf is a pool's stored settings as its form shows them.
func poolSettingsFormOf(p *models.PoolSetting) views.PoolSettingsForm {
	if p == nil {
		return views.PoolSettingsForm{}
	}
	return views.PoolSettingsForm{
		StickyTTLSeconds: optionalInt(p.StickyTTLSeconds),
		NumRetries:       optionalInt(p.NumRetries),
		AllowedFails:     optionalInt(p.AllowedFails),
	}
}
