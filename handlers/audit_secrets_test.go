package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"gateway/models"
	"gateway/models/dbtest"
)

// TestAuditShowsNoSecret: neither a provider's API key (first or rotated)
// nor a virtual key or its hash is in any audit answer or page.
func TestAuditShowsNoSecret(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		_, secret := auditWrites(t, ta)
		b := ta.browser(t)
		b.signIn()
		var bodies []string
		all, rec := getAudit(t, ta, "?limit=500")
		bodies = append(bodies, rec.Body.String())
		for _, q := range []string{"?kind=provider", "?kind=key", "?limit=1"} {
			_, rec := getAudit(t, ta, q)
			bodies = append(bodies, rec.Body.String())
		}
		for _, e := range all.Data {
			id := fmt.Sprint(e["id"])
			rec := ta.api(t, "GET", "/api/audit/"+id, "")
			wantStatus(t, "/api/audit/"+id, rec, http.StatusOK)
			bodies = append(bodies, rec.Body.String())
			rec = b.get("/audit/" + id)
			wantStatus(t, "/audit/"+id, rec, http.StatusOK)
			bodies = append(bodies, rec.Body.String())
		}
		for _, path := range []string{"/audit", "/audit?kind=provider", "/audit?kind=key"} {
			rec := b.get(path)
			wantStatus(t, path, rec, http.StatusOK)
			bodies = append(bodies, rec.Body.String())
		}
		joined := strings.Join(bodies, "\n")
		for _, s := range []string{auditProviderKey, auditProviderKey[:16], auditRotatedKey, auditRotatedKey[:16], secret,
			secret[:16], models.HashKey(secret)} {
			if strings.Contains(joined, s) {
				t.Errorf("%q is in an audit answer or page", s)
			}
		}
		// The test reads what it means to: the rotated key's last four are there.
		if !strings.Contains(joined, auditRotatedKey[len(auditRotatedKey)-4:]) || len(all.Data) < 12 {
			t.Error("the audit answers do not hold the provider's change")
		}
	})
}
