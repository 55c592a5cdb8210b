package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserAuditHistory: an admin changes a model entry's weight on the
// Models page, follows the entry's History link and reads who changed the
// weight from what to what.
func TestBrowserAuditHistory(t *testing.T) {
	g, _ := startGateway(t, testConfig("", t.TempDir()))
	up := newFakeOpenAI(t)
	provider := addProvider(t, g, "audited", up.URL)
	entry := mustAPI(t, g, "POST", "/api/models", map[string]any{"public_name": "history-pool", "provider_id": provider,
		"upstream_model": "audited-model", "weight": 1}, 201)
	row := fmt.Sprintf(`tr[data-testid="entry"][data-entry-id="%v"]`, entry["id"])

	b := newAdminBrowser(t, g)
	b.signIn()
	b.open("/models")
	b.do(chromedp.Click(css(row+` [data-testid="entry-weight-edit"]`)),
		chromedp.WaitVisible(css(row+` [data-testid="weight-input"]`)),
		typeInto(row+` [data-testid="weight-input"]`, "5"),
		chromedp.Click(css(row+` [data-testid="weight-form"] button`)),
		waitContains(row+` [data-testid="entry-weight"]`, "5"))

	b.do(chromedp.Click(css(row+` [data-testid="entry-history"]`)),
		ready,
		count(`[data-testid="audit-entry"]`, 2))
	loc, err := chromedp.Run(b.ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("/audit?id=%v&kind=model_entry", entry["id"]); !strings.HasSuffix(loc, want) {
		t.Errorf("the History link went to %s, want %s", loc, want)
	}
	newest := `[data-testid="audit-entry"]:first-child`
	weight := newest + ` [data-testid="audit-change"][data-field="weight"]`
	if got := b.text(weight); got != "weight 1 → 5" {
		t.Errorf("the weight's change reads %q, want weight 1 → 5", got)
	}
	if got := b.text(newest + ` [data-testid="audit-actor"]`); got != "admin via app" {
		t.Errorf("the change is by %q, want admin via app", got)
	}
	if got := b.text(`[data-testid="audit-entry"]:nth-child(2) [data-testid="audit-actor"]`); got != "master key via api" {
		t.Errorf("the entry's creation is by %q, want the master key", got)
	}
	b.shots("audit-history")
}
