package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserRoutingSettings sets a pool's routing strategy and an entry's
// limit and tier from the Models page as an admin does, sends traffic, and
// reads on the pool status page what the strategy decides on: the entry at
// its limit this minute, the next tier serving, the price column marked.
func TestBrowserRoutingSettings(t *testing.T) {
	g, _ := startGateway(t, testConfig("", t.TempDir()))
	upstream := newFakeOpenAI(t)
	providerID := addProvider(t, g, "routing-openai", upstream.URL)
	for _, m := range []string{"cheap-model", "backup-model"} {
		mustAPI(t, g, "POST", "/api/models", map[string]any{"public_name": "tiers", "provider_id": providerID,
			"upstream_model": m, "weight": 1, "input_price": 1, "output_price": 2}, 201)
	}
	b := newAdminBrowser(t, g)
	pool := `[data-testid="pool"][data-public-name="tiers"]`
	row := func(n int) string { return fmt.Sprintf(`%s tbody tr:nth-child(%d)`, pool, n) }
	member := func(model string) string {
		t.Helper()
		id, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](fmt.Sprintf(`[...document.querySelectorAll('[data-testid="member"]')]
			.find(r => r.querySelector('[data-testid="member-upstream-model"]').textContent.trim() === %q)?.dataset.memberId ?? ""`, model)))
		if err != nil || id == "" {
			t.Fatalf("no member %s on the page (%v)", model, err)
		}
		return fmt.Sprintf(`[data-testid="member"][data-member-id=%q]`, id)
	}

	b.signIn()
	b.open("/models")
	// The strategy, in the pool's settings.
	b.do(chromedp.Click(css(pool+` [data-testid="pool-settings-edit"]`)),
		chromedp.WaitVisible(css(pool+` [data-testid="input-routing_strategy"]`)),
		chromedp.SetValue(css(pool+` [data-testid="input-routing_strategy"]`), "cost-based"),
		chromedp.Click(css(pool+` [data-testid="pool-settings-save"]`)),
		waitContains(pool+` [data-testid="pool-settings-summary"]`, "strategy cost-based"), ready)
	if got := b.text(pool + ` [data-testid="pool-strategy"]`); got != "cost-based" {
		t.Errorf("the pool's strategy badge = %q", got)
	}
	// A limit on the first entry, a higher tier for the second, each in its row.
	for _, edit := range []struct {
		n            int
		field, value string
		shows        string
	}{{1, "rpm_limit", "2", "2 rpm"}, {2, "priority", "1", "tier 1"}} {
		b.do(chromedp.Click(css(row(edit.n)+` [data-testid="entry-edit"]`)),
			chromedp.WaitVisible(css(row(edit.n)+` [data-testid="entry-edit-form"]`)),
			typeInto(row(edit.n)+` [data-testid="input-`+edit.field+`"]`, edit.value),
			chromedp.Click(css(row(edit.n)+` [data-testid="entry-edit-save"]`)),
			waitContains(row(edit.n)+` [data-testid="entry-tier-limits"]`, edit.shows), ready)
	}
	b.shots("routing-models")

	// Two requests fill the first entry's 2 rpm; the third goes to tier 1.
	key := mustAPI(t, g, "POST", "/api/keys", map[string]any{"name": "routing"}, 201)["key"].(string)
	client := sdk(g, key)
	for i := range 3 {
		if _, err := client.Chat.Completions.New(context.Background(), chatTo("tiers")); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}

	b.do(chromedp.Click(css(pool+` [data-testid="pool-status-link"]`)),
		chromedp.WaitVisible(css(`[data-testid="pool-members"]`)), ready)
	if got := b.text(`[data-testid="pool-strategy"]`); got != "cost-based" {
		t.Errorf("pool status strategy = %q", got)
	}
	if got := b.text(`th[data-testid="decides"]`); got != "$/1M" {
		t.Errorf("cost-based decides on %q, want the price", got)
	}
	cheap, backup := member("cheap-model"), member("backup-model")
	for sel, want := range map[string]string{
		cheap + ` [data-testid="member-tier"]`:       "0",
		cheap + ` [data-testid="member-requests"]`:   "2/2 req",
		cheap + ` [data-testid="member-at-limit"]`:   "at limit",
		cheap + ` [data-testid="member-share"]`:      "0%",
		cheap + ` [data-testid="member-price"]`:      "3",
		backup + ` [data-testid="member-tier"]`:      "1",
		backup + ` [data-testid="member-share"]`:     "100%",
		backup + ` [data-testid="member-no-limits"]`: "no limits",
	} {
		if got := b.text(sel); got != want {
			t.Errorf("%s = %q, want %q", sel, got, want)
		}
	}
	// Both answered just now: each has a latency.
	for _, m := range []string{cheap, backup} {
		if got := b.text(m + ` [data-testid="member-latency"]`); !strings.HasSuffix(got, " ms") {
			t.Errorf("%s latency = %q, want a moving average in ms", m, got)
		}
	}
	b.shots("routing-pool-status")
}
