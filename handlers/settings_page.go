package handlers

import (
	"errors"
	"net/http"
	"strconv"

	"gateway/models"
	"gateway/views"
)

// showSettingsPage handles GET /settings.
func (a *App) showSettingsPage(w http.ResponseWriter, r *http.Request) {
	s, err := a.settings(r.Context())
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	f := views.SettingsForm{CSRFToken: sessionFrom(r.Context()).csrfToken(), Values: views.SettingsValues{
		LogRetentionDays:           strconv.Itoa(*s.LogRetentionDays),
		HealthCheckIntervalMinutes: strconv.Itoa(*s.HealthCheckIntervalMinutes),
		ResponsesRetentionDays:     strconv.Itoa(*s.ResponsesRetentionDays),
		AllowUnpricedWithBudget:    *s.AllowUnpricedWithBudget,
	}}
	a.renderPage(w, r, http.StatusOK, "Settings", "settings", views.SettingsContent(f))
}

// settingsValuesOf is the settings form as typed.
func settingsValuesOf(r *http.Request) views.SettingsValues {
	return views.SettingsValues{
		LogRetentionDays:           formValue(r, "log_retention_days"),
		HealthCheckIntervalMinutes: formValue(r, "health_check_interval_minutes"),
		ResponsesRetentionDays:     formValue(r, "responses_retention_days"),
		AllowUnpricedWithBudget:    r.PostFormValue("allow_unpriced_with_budget") == "true",
	}
}

// saveSettingsForm handles POST /settings with the API's rules (see
// putSettings). Every field is required: the form always shows the value.
func (a *App) saveSettingsForm(w http.ResponseWriter, r *http.Request) {
	f := views.SettingsForm{CSRFToken: sessionFrom(r.Context()).csrfToken(), Values: settingsValuesOf(r)}
	p := formParser{}
	in := settingsJSON{
		LogRetentionDays:           p.requiredInt("log_retention_days", f.Values.LogRetentionDays),
		HealthCheckIntervalMinutes: p.requiredInt("health_check_interval_minutes", f.Values.HealthCheckIntervalMinutes),
		ResponsesRetentionDays:     p.requiredInt("responses_retention_days", f.Values.ResponsesRetentionDays),
		AllowUnpricedWithBudget:    &f.Values.AllowUnpricedWithBudget,
	}
	err := joinInputErrors(p.err, a.validateStruct(&in))
	if err == nil {
		changes := map[string]string{}
		for _, field := range settingFields(&in) {
			changes[field.key] = strconv.Itoa(**field.value)
		}
		changes[models.SettingAllowUnpricedWithBudget] = strconv.FormatBool(*in.AllowUnpricedWithBudget)
		if err = a.store.PutSettings(r.Context(), changes); err == nil {
			err = a.reload(r.Context())
		}
	}
	var input *inputError
	if errors.As(err, &input) {
		f.Errors = input.byField()
		if isHTMX(r) {
			w.Header().Add("Vary", "HX-Request")
			a.render(w, r, http.StatusUnprocessableEntity, views.SettingsFormPartial(f))
			return
		}
		a.renderPage(w, r, http.StatusUnprocessableEntity, "Settings", "settings", views.SettingsContent(f))
		return
	}
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	if !isHTMX(r) {
		seeOther(w, r, "/settings")
		return
	}
	f.Saved = true
	w.Header().Add("Vary", "HX-Request")
	a.render(w, r, http.StatusOK, views.SettingsFormPartial(f))
}

// requiredInt is int, with a blank field an error.
func (p *formParser) requiredInt(field, s string) *int {
	if s == "" {
		p.fail(field, "is required")
		return nil
	}
	return p.int(field, s)
}
