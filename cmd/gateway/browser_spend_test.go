package main

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserSpendAndCost: with no price typed, a gpt-4o entry shows the
// catalog's prices on the Models page; two requests later an admin reads
// their cost by key and by model on the Spend page, downloads it as CSV,
// and finds a request's cost explained by token class on its log page.
func TestBrowserSpendAndCost(t *testing.T) {
	g, _ := startGateway(t, testConfig("", t.TempDir()))
	up := newFakeOpenAI(t)
	mustAPI(t, g, "POST", "/api/models", map[string]any{"public_name": "gpt-4o", "provider_id": addProvider(t, g, "openai-main", up.URL),
		"upstream_model": "gpt-4o"}, http.StatusCreated)
	mustAPI(t, g, "POST", "/api/models", map[string]any{"public_name": "private", "provider_id": addProvider(t, g, "vllm", up.URL),
		"upstream_model": "llama-private"}, http.StatusCreated)
	key := mustAPI(t, g, "POST", "/api/keys", map[string]any{"name": "team-a"}, http.StatusCreated)["key"].(string)
	client := sdk(g, key)
	p := chatParams()
	p.Model = "gpt-4o"
	for range 2 {
		if _, err := client.Chat.Completions.New(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	waitForLogs(t, g, 2)

	b := newAdminBrowser(t, g)
	b.signIn()
	b.open("/models")
	// 11 prompt and 7 completion tokens a request at gpt-4o's list prices.
	if got := b.text(`[data-testid="entry-input-price"]`) + " · " + b.text(`[data-testid="entry-output-price"]`); got != "2.5 · 10" {
		t.Errorf("gpt-4o's prices on the Models page: %q, want the catalog's 2.5 · 10", got)
	}
	if n := b.text(`[data-testid="entry-unpriced"]`); n != "unpriced" {
		t.Errorf("the private entry is not marked unpriced: %q", n)
	}

	b.do(chromedp.Click(css(`nav [href="/spend"]`)), ready, count(`[data-testid="spend-row"]`, 1))
	b.shots("spend-page")
	// 2 × (11 × 2.5 + 7 × 10) micro-dollars.
	if got := b.text(`[data-testid="spend-row"]`); !containsAll(got, "team-a", "2", "22", "14", "$0.000195") {
		t.Errorf("spend by key: %q", got)
	}
	b.do(chromedp.SetValue(css(`[data-testid="spend-group-by"]`), "model"),
		chromedp.Click(css(`[data-testid="spend-submit"]`)), settled,
		waitContains(`[data-testid="spend-row"]`, "gpt-4o"))
	if got := b.text(`[data-testid="spend-total"]`); !containsAll(got, "Total", "$0.000195") {
		t.Errorf("the total: %q", got)
	}
	csv, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(() => { const x = new XMLHttpRequest();
		x.open("GET", document.querySelector('[data-testid="spend-csv"]').href, false); x.send(); return x.responseText })()`))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(csv), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[0], "group,name,requests,") ||
		!strings.HasPrefix(lines[1], "gpt-4o,,2,22,14,0,0,0.000195,0") {
		t.Errorf("the CSV download:\n%s", csv)
	}

	b.open("/logs")
	b.do(chromedp.Click(css(`[data-testid="log"] [data-testid="log-link"]`)), count(`[data-testid="cost-part"]`, 4))
	b.shots("log-cost")
	if got := b.text(`[data-testid="detail-cost"]`); !containsAll(got, "$0.0000975", "prices: catalog", "input", "11", "$0.0000275", "output", "7", "$0.00007") {
		t.Errorf("the cost explained: %q", got)
	}
}
