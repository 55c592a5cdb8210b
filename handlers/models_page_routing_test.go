package handlers_test

import (
	"context"
	"net/http"
	"testing"

	"gateway/models"
	"gateway/models/dbtest"
)

// The routing settings on the Models page: an entry's tier and limits in
// its row and its forms, a pool's strategy in its settings form.

// tieredPool stores the pool "tiered": first (tier 0, 2 rpm, 100k tpm,
// $1 + $2) and second (tier 1, no limits).
func tieredPool(t *testing.T, e *runtimeEnv) (first, second int64) {
	t.Helper()
	f := mustDeployment(t, e.store, &models.Deployment{PublicName: "tiered", ProviderID: e.provider.ID, UpstreamModel: "first",
		Weight: ptr(1.0), Prices: models.PricesOf(1, 2), RateLimits: models.RateLimits{RPMLimit: ptr(2), TPMLimit: ptr(100000)}})
	s := mustDeployment(t, e.store, &models.Deployment{PublicName: "tiered", ProviderID: e.provider.ID, UpstreamModel: "second",
		Weight: ptr(1.0), Priority: 1})
	e.reload(t)
	return f.ID, s.ID
}

func TestModelsPageTiersLimitsStrategy(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		e := newRuntimeEnv(t, s)
		ctx := context.Background()
		first, second := tieredPool(t, e)
		plain := e.entry(t, "plain", "plain", ptr(1.0), true)
		e.reload(t)
		br := e.browser(t)
		tok := br.signIn()

		doc := parseHTML(t, br.get("/models"))
		g := mpGroup(doc, "tiered")
		if got := text(mpRow(doc, "tiered", first), "entry-tier"); got != "tier 0" {
			t.Errorf("first's tier = %q", got)
		}
		if got := text(mpRow(doc, "tiered", first), "entry-limits"); got != "2 rpm · 100k tpm" {
			t.Errorf("first's limits = %q", got)
		}
		if row := mpRow(doc, "tiered", second); text(row, "entry-tier") != "tier 1" || testid(row, "entry-limits").Length() != 0 {
			t.Errorf("second: tier %q, limits %q; want tier 1 and no limits", text(row, "entry-tier"), text(row, "entry-limits"))
		}
		if row := mpRow(doc, "plain", plain); testid(row, "entry-tier-limits").Length() != 0 {
			t.Errorf("an entry of a pool of tier 0 alone, without limits, shows %q", text(row, "entry-tier-limits"))
		}
		if testid(g, "pool-strategy").Length() != 0 {
			t.Error("a pool on the default strategy shows a strategy badge")
		}
		opts := g.Find(`[data-testid="input-routing_strategy"] option`)
		if opts.Length() != len(models.RoutingStrategies) {
			t.Errorf("%d strategies offered, want %d", opts.Length(), len(models.RoutingStrategies))
		}
		if v, _ := g.Find(`[data-testid="input-routing_strategy"] option[selected]`).Attr("value"); v != "" {
			t.Errorf("selected strategy %q, want the default's blank", v)
		}

		// The settings form sets the strategy: the group comes back with it.
		rec := mpHTMX(br, "/models/pool-settings", tok, formOf("", "public_name", "tiered", "routing_strategy", "latency-based"))
		wantStatus(t, "set strategy", rec, http.StatusOK)
		g = mpGroup(parseHTML(t, rec), "tiered")
		if got := text(g, "pool-strategy"); got != "latency-based" {
			t.Errorf("strategy badge = %q", got)
		}
		if got := text(g, "pool-settings-summary"); got != "sticky TTL default · retries default · allowed fails default · strategy latency-based" {
			t.Errorf("summary = %q", got)
		}
		if v, _ := g.Find(`[data-testid="input-routing_strategy"] option[selected]`).Attr("value"); v != "latency-based" {
			t.Errorf("selected strategy %q", v)
		}
		wantStoredStrategy(t, s, "tiered", "latency-based")

		// An unknown strategy comes back at its field; nothing is stored.
		reloads := e.reloader.n.Load()
		rec = mpHTMX(br, "/models/pool-settings", tok, formOf("", "public_name", "tiered", "routing_strategy", "fastest"))
		wantStatus(t, "bad strategy", rec, http.StatusUnprocessableEntity)
		g = mpGroup(parseHTML(t, rec), "tiered")
		if got := text(g, "error-routing_strategy"); got != "must be one of: simple-shuffle, latency-based, least-busy, usage-based, cost-based" {
			t.Errorf("error = %q", got)
		}
		if n := g.Find(`[data-testid="input-routing_strategy"] option`).Length(); n != len(models.RoutingStrategies) {
			t.Errorf("the refused form offers %d strategies, want %d", n, len(models.RoutingStrategies))
		}
		wantStoredStrategy(t, s, "tiered", "latency-based")
		if e.reloader.n.Load() != reloads {
			t.Error("a refused form reloaded")
		}
		// Back to the default, by its blank value.
		rec = mpHTMX(br, "/models/pool-settings", tok, formOf("", "public_name", "tiered", "routing_strategy", ""))
		wantStatus(t, "default strategy", rec, http.StatusOK)
		wantStoredStrategy(t, s, "tiered", "")

		// The add form takes a tier and limits, refusing a limit of 0.
		pid := mpID(e.provider.ID)
		bad := formOf(tok, "public_name", "tiered", "provider_id", pid, "upstream_model", "third",
			"rpm_limit", "0", "tpm_limit", "lots", "priority", "5000")
		rec = br.post("/models", bad, nil)
		wantStatus(t, "bad add", rec, http.StatusUnprocessableEntity)
		doc = parseHTML(t, rec)
		for field, msg := range map[string]string{"rpm_limit": "must be 1 or more (null is no limit)",
			"tpm_limit": "must be a whole number", "priority": "must be 1000 or less"} {
			if got := text(doc, "error-"+field); got != msg {
				t.Errorf("add form: error of %s = %q, want %q", field, got, msg)
			}
		}
		entryCount(3)(t, s)
		rec = br.post("/models", formOf(tok, "public_name", "tiered", "provider_id", pid, "upstream_model", "third",
			"rpm_limit", "30", "tpm_limit", "5000", "priority", "-2"), nil)
		wantSeeOther(t, "add", rec, false, "/models")
		storedEntry("third", limitsAre(ptr(30), ptr(5000), -2))(t, s)

		// The edit form shows them and saves them; blank is no limit, tier 0.
		row := mpRow(parseHTML(t, br.do("GET", "/models/"+mpID(first)+"/edit", nil, hx())), "tiered", first)
		for name, want := range map[string]string{"priority": "0", "rpm_limit": "2", "tpm_limit": "100000"} {
			if v, _ := testid(row, "input-"+name).Attr("value"); v != want {
				t.Errorf("edit form %s = %q, want %q", name, v, want)
			}
		}
		rec = mpHTMX(br, "/models/"+mpID(first), tok, mpEditForm("", e.provider.ID, "upstream_model", "first",
			"priority", "3", "rpm_limit", "", "tpm_limit", "7000"))
		wantStatus(t, "edit", rec, http.StatusOK)
		if got := text(mpRow(parseHTML(t, rec), "tiered", first), "entry-tier-limits"); got != "tier 3 · 7k tpm" {
			t.Errorf("edited row: %q", got)
		}
		storedEntry("first", limitsAre(nil, ptr(7000), 3))(t, s)
		rec = mpHTMX(br, "/models/"+mpID(first), tok, mpEditForm("", e.provider.ID, "upstream_model", "first",
			"priority", "-1001", "tpm_limit", "0"))
		wantStatus(t, "bad edit", rec, http.StatusUnprocessableEntity)
		row = mpRow(parseHTML(t, rec), "tiered", first)
		if text(row, "error-priority") != "must be -1000 or more" || text(row, "error-tpm_limit") != "must be 1 or more (null is no limit)" {
			t.Errorf("edit errors: %q", testid(row, "entry-edit-form").Text())
		}
		storedEntry("first", limitsAre(nil, ptr(7000), 3))(t, s)
		if d, _ := s.GetDeployment(ctx, second); d.Priority != 1 {
			t.Errorf("second's tier changed: %d", d.Priority)
		}
	})
}

func wantStoredStrategy(t *testing.T, s *models.Store, name, want string) {
	t.Helper()
	ps, err := s.ListPoolSettings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.PublicName == name {
			if p.RoutingStrategy != want {
				t.Errorf("stored strategy of %s = %q, want %q", name, p.RoutingStrategy, want)
			}
			return
		}
	}
	t.Errorf("no settings stored for %s", name)
}
