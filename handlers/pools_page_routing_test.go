package handlers_test

import (
	"net/http"
	"net/url"
	"testing"

	"gateway/models"
	"gateway/models/dbtest"
)

// The pool status page names the pool's strategy and shows, per member,
// what the strategy decides on: tier, limits with this minute's usage, in
// flight, latency, price.

func TestPoolStatusPageStrategyAndLimits(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		e := newRuntimeEnv(t, s)
		tieredPool(t, e)
		// Two requests fill first's 2 rpm; the third goes to tier 1.
		for range 3 {
			if status, _ := e.chat(t, "tiered"); status != http.StatusOK {
				t.Fatalf("chat: %d", status)
			}
		}
		br := e.browser(t)
		br.signIn()

		doc := parseHTML(t, br.get("/pools/tiered"))
		if got := text(doc, "pool-strategy"); got != "simple-shuffle" {
			t.Errorf("strategy = %q", got)
		}
		if got := text(doc, "decides"); got != "Weight" {
			t.Errorf("simple-shuffle decides on %q, want the weight", got)
		}
		rows := ppMembers(doc)
		first, second := rows["first"], rows["second"]
		for id, want := range map[string]string{"member-tier": "0", "member-requests": "2/2 req",
			"member-tokens": "10/100k tok", "member-in-flight": "0", "member-latency": "—", "member-price": "3",
			"member-planned-share": "100%", "member-share": "0%", "member-out-because": "at its limit this minute"} {
			if got := ppText(first, id); got != want {
				t.Errorf("first %s = %q, want %q", id, got, want)
			}
		}
		if testid(first, "member-at-limit").Length() != 1 {
			t.Error("first is not marked at limit")
		}
		for id, want := range map[string]string{"member-tier": "1", "member-no-limits": "no limits",
			"member-price": "unpriced", "member-planned-share": "0%", "member-share": "100%"} {
			if got := ppText(second, id); got != want {
				t.Errorf("second %s = %q, want %q", id, got, want)
			}
		}
		if testid(second, "member-at-limit").Length() != 0 {
			t.Error("second is marked at limit")
		}

		// Another strategy: named with what it picks by, its column marked.
		if rec := e.api(t, "PUT", "/api/pools/tiered", `{"routing_strategy":"least-busy"}`); rec.Code != http.StatusOK {
			t.Fatalf("PUT: %d %s", rec.Code, rec.Body)
		}
		doc = parseHTML(t, br.get("/pools/"+url.PathEscape("tiered")))
		if got := text(doc, "pool-strategy-line"); got != "Routing strategy: least-busy — fewest requests in flight (set in the pool's settings on the Models page)" {
			t.Errorf("strategy line = %q", got)
		}
		if got := text(doc, "decides"); got != "In flight" {
			t.Errorf("least-busy decides on %q, want In flight", got)
		}
		// usage-based counts the usage of members without a limit too.
		if rec := e.api(t, "PUT", "/api/pools/tiered", `{"routing_strategy":"usage-based"}`); rec.Code != http.StatusOK {
			t.Fatalf("PUT: %d %s", rec.Code, rec.Body)
		}
		if status, _ := e.chat(t, "tiered"); status != http.StatusOK {
			t.Fatalf("chat: %d", status)
		}
		doc = parseHTML(t, br.get("/pools/tiered"))
		if got := text(doc, "decides"); got != "This minute" {
			t.Errorf("usage-based decides on %q, want This minute", got)
		}
		if got := ppText(ppMembers(doc)["second"], "member-requests"); got != "1 req" {
			t.Errorf("second, counted under usage-based: requests %q, want 1 req", got)
		}
		// The Models page badges a pool off the default strategy.
		if got := text(mpGroup(parseHTML(t, br.get("/models")), "tiered"), "pool-strategy"); got != "usage-based" {
			t.Errorf("Models page strategy badge = %q", got)
		}
	})
}
