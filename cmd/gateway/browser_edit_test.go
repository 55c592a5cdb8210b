package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserEditInPlace edits as an admin does, without leaving the page:
// grows a pool from its card's "Add member", edits an entry's upstream model
// and price in its row (a refused value first, shown at its field), changes
// a pool setting on the card, saves the Settings page; screenshots of the
// Models, Keys and Settings pages at a desktop and a phone size.
func TestBrowserEditInPlace(t *testing.T) {
	g, _ := startGateway(t, testConfig("", t.TempDir()))
	upstream := newFakeOpenAI(t)
	providerID := fmt.Sprint(addProvider(t, g, "edit-openai", upstream.URL))
	b := newAdminBrowser(t, g)
	base := b.base
	pool := `[data-testid="pool"][data-public-name="edit-pool"]`
	row := func(n int) string { return fmt.Sprintf(`%s tbody tr:nth-child(%d)`, pool, n) }
	waitText := func(sel, want string) chromedp.Action[chromedp.Void] {
		return poll(sel+" to read "+want, fmt.Sprintf(`(document.querySelector(%q)?.textContent ?? "").trim().replace(/\s+/g, " ") === %q`, sel, want))
	}

	b.signIn()
	b.do(chromedp.Navigate(base+"/models"), ready,
		chromedp.SetValue(css(`#public_name`), "edit-pool"),
		chromedp.SetValue(css(`#provider_id`), providerID),
		chromedp.SetValue(css(`#upstream_model`), "m-old"),
		chromedp.SetValue(css(`#weight`), "1"),
		chromedp.Click(css(`[data-testid="model-entry-submit"]`)),
		chromedp.WaitVisible(css(pool)), ready,

		// Add member: the add form, the pool's name already in it.
		chromedp.Click(css(pool+` [data-testid="pool-add-member"]`)),
		poll("the add form prefilled", `location.search === "?add=edit-pool" && document.readyState === "complete" && document.querySelector("#public_name")?.value === "edit-pool"`), ready,
		chromedp.SetValue(css(`#provider_id`), providerID),
		chromedp.SetValue(css(`#upstream_model`), "m-second"),
		chromedp.SetValue(css(`#weight`), "3"),
		chromedp.Click(css(`[data-testid="model-entry-submit"]`)),
		chromedp.WaitVisible(css(pool+` [data-testid="pool-member-count"][data-count="2"]`)), ready)
	if a, b := b.text(row(1)+` [data-testid="entry-share-value"]`), b.text(row(2)+` [data-testid="entry-share-value"]`); a != "25%" || b != "75%" {
		t.Fatalf("shares %s / %s, want 25%% / 75%%", a, b)
	}

	// Edit the first entry in its row: a refused context window comes back
	// at its field, then the upstream model and price are saved.
	b.do(chromedp.Click(css(row(1)+` [data-testid="entry-edit"]`)),
		chromedp.WaitVisible(css(row(1)+` [data-testid="entry-edit-form"]`)))
	if got := b.value(row(1) + ` [data-testid="input-upstream_model"]`); got != "m-old" {
		t.Fatalf("edit form's upstream model = %q", got)
	}
	b.do(typeInto(row(1)+` [data-testid="input-upstream_model"]`, "m-new"),
		typeInto(row(1)+` [data-testid="input-input_price"]`, "2.5"),
		typeInto(row(1)+` [data-testid="input-weight"]`, "3"),
		typeInto(row(1)+` [data-testid="input-context_window"]`, "0"),
		chromedp.Click(css(row(1)+` [data-testid="entry-edit-save"]`)),
		chromedp.WaitVisible(css(row(1)+` [data-testid="error-context_window"]`)))
	if got := b.value(row(1) + ` [data-testid="input-upstream_model"]`); got != "m-new" {
		t.Fatalf("after a refused save the typed model is %q", got)
	}
	b.do(chromedp.Clear(css(row(1)+` [data-testid="input-context_window"]`)),
		chromedp.Click(css(row(1)+` [data-testid="entry-edit-save"]`)),
		waitText(row(1)+` [data-testid="entry-upstream-model"]`, "m-new"))
	if price, share := b.text(row(1)+` [data-testid="entry-input-price"]`), b.text(row(1)+` [data-testid="entry-share-value"]`); price != "2.5" || share != "50%" {
		t.Fatalf("edited row: price %q share %q, want 2.5 and 50%%", price, share)
	}

	// A pool setting on the card.
	b.do(chromedp.Click(css(pool+` [data-testid="pool-settings-edit"]`)),
		chromedp.WaitVisible(css(pool+` [data-testid="pool-settings-form"] [data-testid="input-num_retries"]`)),
		typeInto(pool+` [data-testid="pool-settings-form"] [data-testid="input-num_retries"]`, "2"),
		chromedp.Click(css(pool+` [data-testid="pool-settings-save"]`)),
		waitText(pool+` [data-testid="pool-settings-summary"]`, "sticky TTL default · retries 2 · allowed fails default · strategy simple-shuffle"))
	if loc, _ := chromedp.Run(b.ctx, chromedp.Location()); !strings.HasPrefix(loc, base+"/models") {
		t.Fatalf("an inline edit navigated to %s", loc)
	}
	b.shots("edit-models")

	// A key's budget, edited in its row (the gateway's own first key is
	// listed too: the row is found by its name).
	b.do(chromedp.Navigate(base+"/keys"), ready,
		chromedp.SendKeys(css(`#key-name`), "budgeted"),
		chromedp.SendKeys(css(`#key-max_budget_usd`), "5"),
		chromedp.Click(css(`[data-testid="key-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="new-key"]`)), ready)
	// The focus is on what was just made: the new key's Copy button.
	b.do(poll("focus on Copy", `document.activeElement?.dataset.testid === "copy-key"`))
	keyID, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('[data-testid="key"]')]
		.find(tr => tr.querySelector('[data-testid="key-name"] strong').textContent === "budgeted").dataset.keyId`))
	if err != nil || keyID == "" {
		t.Fatalf("the new key's row: %q %v", keyID, err)
	}
	key := `[data-testid="key"][data-key-id="` + keyID + `"]`
	b.do(chromedp.Click(css(key+` [data-testid="key-edit"]`)),
		chromedp.WaitVisible(css(`[data-testid="key-edit-form"]`)),
		typeInto(`[data-testid="key-edit-form"] [data-testid="input-max_budget_usd"]`, "25"),
		chromedp.Click(css(`[data-testid="key-edit-save"]`)),
		chromedp.WaitVisible(css(key)))
	if got := b.text(key); !strings.Contains(got, "$25.00") {
		t.Fatalf("key row after the budget edit: %q", got)
	}
	if got := b.text(`[data-testid="key"]:not([data-key-id="` + keyID + `"])`); strings.Contains(got, "$25.00") {
		t.Fatalf("another key changed: %q", got)
	}
	b.shots("edit-keys")

	// Settings, from the nav.
	b.do(chromedp.Click(css(`[data-testid="nav-settings"]`)),
		chromedp.WaitVisible(css(`[data-testid="settings-form"]`)), ready,
		typeInto(`#log_retention_days`, "14"),
		chromedp.Click(css(`[data-testid="settings-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="settings-saved"]`)),
		chromedp.Navigate(base+"/settings"),
		chromedp.WaitVisible(css(`[data-testid="settings-form"]`)))
	if got := b.value(`#log_retention_days`); got != "14" {
		t.Fatalf("log retention after save = %q, want 14", got)
	}
	b.shots("edit-settings")
}
