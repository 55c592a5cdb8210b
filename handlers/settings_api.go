package handlers

import (
	"context"
	"net/http"
	"strconv"

	"gateway/models"
)

// settingsJSON is the body and answer of /api/settings.
type settingsJSON struct {
	LogRetentionDays *int `json:"log_retention_days" validate:"omitnil,gte=0,lte=36500"`
	// HealthCheckIntervalMinutes > 0 checks pools in the background (see
	// RunBackgroundChecks); 0, the default, never on a timer.
	HealthCheckIntervalMinutes *int `json:"health_check_interval_minutes" validate:"omitnil,gte=0,lte=10080"`
	// ResponsesRetentionDays: stored Responses answers older than this are
	// pruned every hour; 30 (OpenAI's) until set, 0 keeps them for ever.
	ResponsesRetentionDays *int `json:"responses_retention_days" validate:"omitnil,gte=0,lte=36500"`
	// AllowUnpricedWithBudget lets callers under a budget use entries with
	// no price (false, the default, refuses them: a budget never fails open).
	AllowUnpricedWithBudget *bool `json:"allow_unpriced_with_budget"`
}

// showSettings handles GET /api/settings.
func (a *App) showSettings(w http.ResponseWriter, r *http.Request) {
	s, err := a.settings(r.Context())
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	a.writeJSON(w, r, http.StatusOK, s)
}

func (a *App) settings(ctx context.Context) (settingsJSON, error) {
	var s settingsJSON
	for _, f := range settingFields(&s) {
		v, ok, err := a.store.GetSetting(ctx, f.key)
		if err != nil {
			return s, err
		}
		n := f.def
		if ok {
			n, _ = strconv.Atoi(v)
		}
		*f.value = &n
	}
	v, _, err := a.store.GetSetting(ctx, models.SettingAllowUnpricedWithBudget)
	if err != nil {
		return s, err
	}
	allow := v == "true"
	s.AllowUnpricedWithBudget = &allow
	return s, nil
}

// settingField is one integer setting of the API.
type settingField struct {
	key   string
	value **int
	def   int // while unset
}

func settingFields(s *settingsJSON) []settingField {
	return []settingField{{models.SettingLogRetentionDays, &s.LogRetentionDays, 0},
		{models.SettingHealthCheckMinutes, &s.HealthCheckIntervalMinutes, 0},
		{models.SettingResponsesRetentionDays, &s.ResponsesRetentionDays, models.DefaultResponsesRetentionDays}}
}

// putSettings handles PUT /api/settings: log_retention_days (0 keeps logs
// for ever; request logs older than that are pruned every hour) and
// health_check_interval_minutes (0 never checks on a timer). A field left
// out keeps its value.
func (a *App) putSettings(w http.ResponseWriter, r *http.Request) {
	var in settingsJSON
	if err := a.decodeBody(w, r, &in); err != nil {
		a.apiError(w, r, err)
		return
	}
	changes := map[string]string{}
	for _, f := range settingFields(&in) {
		if *f.value != nil {
			changes[f.key] = strconv.Itoa(**f.value)
		}
	}
	if in.AllowUnpricedWithBudget != nil {
		changes[models.SettingAllowUnpricedWithBudget] = strconv.FormatBool(*in.AllowUnpricedWithBudget)
	}
	if err := a.store.PutSettings(r.Context(), changes); err != nil {
		a.apiError(w, r, err)
		return
	}
	s, err := a.settings(r.Context())
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	// The proxy reads allow_unpriced_with_budget from its snapshot.
	a.written(w, r, http.StatusOK, s)
}
