package handlers_test

import (
	"fmt"
	"net/http"
	"testing"

	"gateway/models"
	"gateway/models/dbtest"
)

// TestAPIAdminWritesRebuildNothing: admin accounts are not in the routing
// table, so their writes answer without rebuilding it, even while it cannot
// be rebuilt: no warning, and a delete stays a 204.
func TestAPIAdminWritesRebuildNothing(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		ta.reloader.err = errReloadFailed
		before := ta.reloader.n.Load()
		rec := ta.api(t, http.MethodPost, "/api/admins", `{"username":"vera","password":"vera password","role":"viewer"}`)
		created := decodeJSON[map[string]any](t, rec)
		if rec.Code != http.StatusCreated || created["warning"] != nil || created["username"] != "vera" {
			t.Fatalf("POST /api/admins: status %d, want 201 without a warning: %s", rec.Code, rec.Body)
		}
		path := fmt.Sprintf("/api/admins/%v", created["id"])
		rec = ta.api(t, http.MethodPatch, path, `{"role":"admin"}`)
		if got := decodeJSON[map[string]any](t, rec); rec.Code != http.StatusOK || got["warning"] != nil || got["role"] != "admin" {
			t.Fatalf("PATCH %s: status %d, want 200 without a warning: %s", path, rec.Code, rec.Body)
		}
		if rec = ta.api(t, http.MethodDelete, path, ""); rec.Code != http.StatusNoContent || rec.Body.Len() != 0 {
			t.Fatalf("DELETE %s: status %d, want 204 and no body: %s", path, rec.Code, rec.Body)
		}
		if got := ta.reloader.n.Load() - before; got != 0 {
			t.Errorf("admin writes rebuilt the routing table %d times, want 0", got)
		}
	})
}
