package handlers_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"gateway/models"
)

// Helpers of the Providers, Keys, Users, Teams, Logs, Sticky and Dashboard
// page tests.

var hxHeader = http.Header{"Hx-Request": {"true"}}

func hx() http.Header { return hxHeader.Clone() }

// formOf builds a form from the CSRF token and name, value pairs.
func formOf(tok string, kv ...string) url.Values {
	v := url.Values{}
	if tok != "" {
		v.Set("csrf_token", tok)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

// wantStatus fails unless rec has the status.
func wantStatus(t *testing.T, what string, rec *httptest.ResponseRecorder, status int) {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("%s: status %d, want %d\n%s", what, rec.Code, status, rec.Body)
	}
}

// wantSeeOther checks a successful form post: 303 to path without htmx,
// 200 with HX-Redirect with it.
func wantSeeOther(t *testing.T, what string, rec *httptest.ResponseRecorder, htmx bool, path string) {
	t.Helper()
	if htmx {
		if rec.Code != http.StatusOK || rec.Header().Get("HX-Redirect") != path {
			t.Fatalf("%s (htmx): status %d HX-Redirect %q, want 200 and %s\n%s", what, rec.Code, rec.Header().Get("HX-Redirect"), path, rec.Body)
		}
		return
	}
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != path {
		t.Fatalf("%s: status %d Location %q, want 303 to %s\n%s", what, rec.Code, rec.Header().Get("Location"), path, rec.Body)
	}
}

// wantPartial checks an htmx answer: no layout, Vary: HX-Request.
func wantPartial(t *testing.T, what string, rec *httptest.ResponseRecorder) {
	t.Helper()
	if strings.Contains(rec.Body.String(), "<html") {
		t.Errorf("%s: htmx answer has the layout", what)
	}
	if !strings.Contains(rec.Header().Get("Vary"), "HX-Request") {
		t.Errorf("%s: htmx answer without Vary: HX-Request", what)
	}
}

// wantFullPage checks a page answer: the layout with its nav.
func wantFullPage(t *testing.T, what string, rec *httptest.ResponseRecorder) {
	t.Helper()
	if testid(parseHTML(t, rec), "nav").Length() != 1 {
		t.Errorf("%s: not a full page", what)
	}
	if !strings.Contains(rec.Header().Get("Vary"), "HX-Request") {
		t.Errorf("%s: page without Vary: HX-Request", what)
	}
}

// text is the trimmed text of the elements with this test id.
func text(in finder, id string) string {
	return strings.Join(strings.Fields(testid(in, id).Text()), " ")
}

func mustTeam(t *testing.T, s *models.Store, tm *models.Team) *models.Team {
	t.Helper()
	if err := s.CreateTeam(context.Background(), tm); err != nil {
		t.Fatal(err)
	}
	return tm
}

func mustUser(t *testing.T, s *models.Store, u *models.User) *models.User {
	t.Helper()
	if err := s.CreateUser(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	return u
}

func mustKey(t *testing.T, s *models.Store, k *models.VirtualKey) (*models.VirtualKey, string) {
	t.Helper()
	secret, err := s.CreateKey(context.Background(), k)
	if err != nil {
		t.Fatal(err)
	}
	return k, secret
}

func mustLogs(t *testing.T, s *models.Store, logs ...models.RequestLog) {
	t.Helper()
	if err := s.InsertRequestLogs(context.Background(), logs); err != nil {
		t.Fatal(err)
	}
}

// setSpend sets what a key spent, as the log writer would.
func setSpend(t *testing.T, s *models.Store, id int64, usd float64) {
	t.Helper()
	if _, err := s.UpdateKey(context.Background(), id, func(k *models.VirtualKey) error {
		k.SpendUSD = usd
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func minutesAgo(n int) time.Time { return time.Now().UTC().Add(-time.Duration(n) * time.Minute) }
