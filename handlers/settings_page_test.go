package handlers_test

import (
	"context"
	"net/http"
	"testing"

	"gateway/models"
	"gateway/models/dbtest"
)

func TestSettingsPage(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		ctx := context.Background()
		br := ta.browser(t)
		tok := br.signIn()

		rec := br.get("/settings")
		wantStatus(t, "GET /settings", rec, http.StatusOK)
		doc := parseHTML(t, rec)
		if a, _ := testid(doc, "nav-settings").Attr("aria-current"); a != "page" {
			t.Error("the nav does not mark Settings")
		}
		for name, want := range map[string]string{"log_retention_days": "0", "health_check_interval_minutes": "0", "responses_retention_days": "30"} {
			if v, _ := testid(doc, "input-"+name).Attr("value"); v != want {
				t.Errorf("%s = %q, want %q", name, v, want)
			}
		}

		// Saved: the form again, saying so, the values stored.
		if _, checked := testid(doc, "input-allow_unpriced_with_budget").Attr("checked"); checked {
			t.Error("allow_unpriced_with_budget is on by default")
		}
		rec = br.post("/settings", formOf("", "log_retention_days", "14", "health_check_interval_minutes", "5", "responses_retention_days", "0",
			"allow_unpriced_with_budget", "true"),
			http.Header{"Hx-Request": {"true"}, "X-Csrf-Token": {tok}})
		wantStatus(t, "save", rec, http.StatusOK)
		wantPartial(t, "save", rec)
		doc = parseHTML(t, rec)
		if testid(doc, "settings-saved").Length() != 1 {
			t.Error("no Saved")
		}
		for key, want := range map[string]string{models.SettingLogRetentionDays: "14", models.SettingHealthCheckMinutes: "5", models.SettingResponsesRetentionDays: "0",
			models.SettingAllowUnpricedWithBudget: "true"} {
			if v, _, _ := s.GetSetting(ctx, key); v != want {
				t.Errorf("stored %s = %q, want %q", key, v, want)
			}
		}

		// Bad input: 422, the errors at their fields, what was typed kept, nothing stored.
		rec = br.post("/settings", formOf("", "log_retention_days", "-1", "health_check_interval_minutes", "often", "responses_retention_days", ""),
			http.Header{"Hx-Request": {"true"}, "X-Csrf-Token": {tok}})
		wantStatus(t, "bad input", rec, http.StatusUnprocessableEntity)
		doc = parseHTML(t, rec)
		for name, msg := range map[string]string{"log_retention_days": "must be 0 or more", "health_check_interval_minutes": "must be a whole number",
			"responses_retention_days": "is required"} {
			if got := text(doc, "error-"+name); got != msg {
				t.Errorf("error of %s = %q, want %q", name, got, msg)
			}
		}
		if v, _ := testid(doc, "input-health_check_interval_minutes").Attr("value"); v != "often" {
			t.Errorf("typed value not kept: %q", v)
		}
		if testid(doc, "settings-saved").Length() != 0 || testid(doc, "nav").Length() != 0 {
			t.Error("an error answer says Saved or has the layout")
		}
		if v, _, _ := s.GetSetting(ctx, models.SettingLogRetentionDays); v != "14" {
			t.Errorf("a refused form was stored: %q", v)
		}

		// Without htmx: 303 back, or the whole page around the errors.
		wantSeeOther(t, "form post", br.post("/settings", formOf(tok, "log_retention_days", "7", "health_check_interval_minutes", "0", "responses_retention_days", "30"), nil), false, "/settings")
		rec = br.post("/settings", formOf(tok, "log_retention_days", "99999", "health_check_interval_minutes", "0", "responses_retention_days", "30"), nil)
		wantStatus(t, "bad form post", rec, http.StatusUnprocessableEntity)
		wantFullPage(t, "bad form post", rec)
		if rec := br.post("/settings", formOf("", "log_retention_days", "1"), nil); rec.Code != http.StatusForbidden {
			t.Errorf("without CSRF: %d, want 403", rec.Code)
		}
	})
}
