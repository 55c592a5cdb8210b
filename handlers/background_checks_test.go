package handlers_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"gateway/models"
	"gateway/models/dbtest"
)

// TestBackgroundChecks: off until an admin sets an interval; then every pool
// whose members were not checked within it is checked (really called) and
// the results stored, a pool checked recently is left alone, and a member
// that cannot be called (wildcard pattern) or is disabled never makes a pool
// due.
func TestBackgroundChecks(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		e := newRuntimeEnv(t, s)
		ctx := context.Background()
		e.entry(t, "team", "ok-a", ptr(1.0), true)
		e.entry(t, "team", "ok-b", ptr(1.0), true)
		e.entry(t, "team", "ok-off", nil, false)
		e.entry(t, "solo", "ok-s", nil, true)
		e.entry(t, "wild/*", "wild-*", nil, true)
		e.entry(t, "parked", "ok-p", nil, false)
		e.reload(t)
		check := func(at time.Time, want ...string) {
			t.Helper()
			got, err := e.app.CheckDuePools(ctx, at)
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("at %v: checked %q, %v; want %q", at.Format(time.TimeOnly), got, err, want)
			}
		}
		now := time.Now()
		check(now) // no setting: off
		br := e.browser(t)
		br.signIn()
		if got := testid(parseHTML(t, br.get("/pools/team")), "background-checks").Text(); !strings.Contains(got, "off") {
			t.Errorf("pool page without the setting: %q", got)
		}
		if rec := e.api(t, "PUT", "/api/settings", `{"health_check_interval_minutes": 15}`); rec.Code != 200 {
			t.Fatalf("PUT settings: %d %s", rec.Code, rec.Body)
		}
		if got := testid(parseHTML(t, br.get("/pools/team")), "background-checks").Text(); !strings.Contains(got, "15 minutes ago") {
			t.Errorf("pool page with a 15-minute interval: %q", got)
		}
		if calls := e.up.calls.Load(); calls != 0 {
			t.Fatalf("upstream calls %d before any check was due", calls)
		}
		check(now, "solo", "team")
		if calls := e.up.calls.Load(); calls != 3 {
			t.Fatalf("upstream calls %d, want 3 (two team members and solo's)", calls)
		}
		if hs, _ := s.ListHealthChecks(ctx); len(hs) != 3 {
			t.Fatalf("stored checks %+v, want 3", hs)
		}
		check(now.Add(time.Minute)) // checked a minute ago
		check(now.Add(16*time.Minute), "solo", "team")
		if calls := e.up.calls.Load(); calls != 6 {
			t.Fatalf("upstream calls %d, want 6", calls)
		}
		if rec := e.api(t, "PUT", "/api/settings", `{"health_check_interval_minutes": 0}`); rec.Code != 200 {
			t.Fatalf("PUT settings: %d %s", rec.Code, rec.Body)
		}
		check(now.Add(time.Hour)) // off again
	})
}
