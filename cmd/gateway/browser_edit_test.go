package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserEditInPlace edits as an admin does, without leaving the page:
// grows a pool from its card's "Add member", edits an entry's upstream model
// and price in its row (a refused value first, shown at its field), changes
// a pool setting on the card, saves the Settings page; screenshots of the
// Models, Keys and Settings pages at a desktop and a phone size.
func TestBrowserEditInPlace(t *testing.T) {
	ctx := browserContext(t)
	g, _ := startGateway(t, testConfig("", t.TempDir()))
	upstream := newFakeOpenAI(t)
	providerID := fmt.Sprint(addProvider(t, g, "edit-openai", upstream.URL))
	base := "http://" + g.AdminAddr()
	pool := `[data-testid="pool"][data-public-name="edit-pool"]`
	row := func(n int) string { return fmt.Sprintf(`%s tbody tr:nth-child(%d)`, pool, n) }
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	do := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatal(err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(css(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return strings.TrimSpace(v)
	}
	value := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Value(css(sel)))
		if err != nil {
			t.Fatalf("value of %s: %v", sel, err)
		}
		return v
	}
	// poll waits for js to be true; it polls again when a navigation
	// destroys the page it was polling.
	poll := func(what, js string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			deadline := time.Now().Add(10 * time.Second)
			for {
				_, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(time.Until(deadline))))
				if err == nil {
					return nil
				}
				if time.Now().After(deadline) || ctx.Err() != nil {
					return fmt.Errorf("wait for %s: %w", what, err)
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
	waitText := func(sel, want string) chromedp.Action[chromedp.Void] {
		return poll(sel+" to read "+want, fmt.Sprintf(`(document.querySelector(%q)?.textContent ?? "").trim().replace(/\s+/g, " ") === %q`, sel, want))
	}
	ready := poll("htmx", `document.readyState === "complete" && !!window.htmx`)
	typeInto := func(sel, v string) chromedp.Action[chromedp.Void] {
		return chromedp.Steps(chromedp.Clear(css(sel)), chromedp.SendKeys(css(sel), v))
	}
	// shots saves the page at 1440×900 and 390×844, then goes back to desktop.
	shots := func(name string) {
		t.Helper()
		for _, size := range [][2]int64{{1440, 900}, {390, 844}} {
			do(chromedp.EmulateViewport(size[0], size[1]), chromedp.Sleep(200*time.Millisecond))
			png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(artifactPath(t, fmt.Sprintf("%s-%dx%d.png", name, size[0], size[1])), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		do(chromedp.EmulateViewport(1440, 900))
	}

	do(chromedp.EmulateViewport(1440, 900),
		chromedp.Navigate(base+"/login"),
		chromedp.WaitVisible(css(`[data-testid="login-form"]`)),
		chromedp.SendKeys(css(`[data-testid="login-username"]`), "admin"),
		chromedp.SendKeys(css(`[data-testid="login-password"]`), testPassword),
		chromedp.Click(css(`[data-testid="login-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="nav"]`)),
		chromedp.Navigate(base+"/models"), ready,
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
	if a, b := text(row(1)+` [data-testid="entry-share-value"]`), text(row(2)+` [data-testid="entry-share-value"]`); a != "25%" || b != "75%" {
		t.Fatalf("shares %s / %s, want 25%% / 75%%", a, b)
	}

	// Edit the first entry in its row: a refused context window comes back
	// at its field, then the upstream model and price are saved.
	do(chromedp.Click(css(row(1)+` [data-testid="entry-edit"]`)),
		chromedp.WaitVisible(css(row(1)+` [data-testid="entry-edit-form"]`)))
	if got := value(row(1) + ` [data-testid="input-upstream_model"]`); got != "m-old" {
		t.Fatalf("edit form's upstream model = %q", got)
	}
	do(typeInto(row(1)+` [data-testid="input-upstream_model"]`, "m-new"),
		typeInto(row(1)+` [data-testid="input-input_price"]`, "2.5"),
		typeInto(row(1)+` [data-testid="input-weight"]`, "3"),
		typeInto(row(1)+` [data-testid="input-context_window"]`, "0"),
		chromedp.Click(css(row(1)+` [data-testid="entry-edit-save"]`)),
		chromedp.WaitVisible(css(row(1)+` [data-testid="error-context_window"]`)))
	if got := value(row(1) + ` [data-testid="input-upstream_model"]`); got != "m-new" {
		t.Fatalf("after a refused save the typed model is %q", got)
	}
	do(chromedp.Clear(css(row(1)+` [data-testid="input-context_window"]`)),
		chromedp.Click(css(row(1)+` [data-testid="entry-edit-save"]`)),
		waitText(row(1)+` [data-testid="entry-upstream-model"]`, "m-new"))
	if price, share := text(row(1)+` [data-testid="entry-input-price"]`), text(row(1)+` [data-testid="entry-share-value"]`); price != "2.5" || share != "50%" {
		t.Fatalf("edited row: price %q share %q, want 2.5 and 50%%", price, share)
	}

	// A pool setting on the card.
	do(chromedp.Click(css(pool+` [data-testid="pool-settings-edit"]`)),
		chromedp.WaitVisible(css(pool+` [data-testid="pool-settings-form"] [data-testid="input-num_retries"]`)),
		typeInto(pool+` [data-testid="pool-settings-form"] [data-testid="input-num_retries"]`, "2"),
		chromedp.Click(css(pool+` [data-testid="pool-settings-save"]`)),
		waitText(pool+` [data-testid="pool-settings-summary"]`, "sticky TTL default · retries 2 · allowed fails default"))
	if loc, _ := chromedp.Run(ctx, chromedp.Location()); !strings.HasPrefix(loc, base+"/models") {
		t.Fatalf("an inline edit navigated to %s", loc)
	}
	shots("edit-models")

	// A key's budget, edited in its row (the gateway's own first key is
	// listed too: the row is found by its name).
	do(chromedp.Navigate(base+"/keys"), ready,
		chromedp.SendKeys(css(`#key-name`), "budgeted"),
		chromedp.SendKeys(css(`#key-max_budget_usd`), "5"),
		chromedp.Click(css(`[data-testid="key-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="new-key"]`)), ready)
	keyID, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('[data-testid="key"]')]
		.find(tr => tr.querySelector('[data-testid="key-name"] strong').textContent === "budgeted").dataset.keyId`))
	if err != nil || keyID == "" {
		t.Fatalf("the new key's row: %q %v", keyID, err)
	}
	key := `[data-testid="key"][data-key-id="` + keyID + `"]`
	do(chromedp.Click(css(key+` [data-testid="key-edit"]`)),
		chromedp.WaitVisible(css(`[data-testid="key-edit-form"]`)),
		typeInto(`[data-testid="key-edit-form"] [data-testid="input-max_budget_usd"]`, "25"),
		chromedp.Click(css(`[data-testid="key-edit-save"]`)),
		chromedp.WaitVisible(css(key)))
	if got := text(key); !strings.Contains(got, "$25.00") {
		t.Fatalf("key row after the budget edit: %q", got)
	}
	if got := text(`[data-testid="key"]:not([data-key-id="` + keyID + `"])`); strings.Contains(got, "$25.00") {
		t.Fatalf("another key changed: %q", got)
	}
	shots("edit-keys")

	// Settings, from the nav.
	do(chromedp.Click(css(`[data-testid="nav-settings"]`)),
		chromedp.WaitVisible(css(`[data-testid="settings-form"]`)), ready,
		typeInto(`#log_retention_days`, "14"),
		chromedp.Click(css(`[data-testid="settings-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="settings-saved"]`)),
		chromedp.Navigate(base+"/settings"),
		chromedp.WaitVisible(css(`[data-testid="settings-form"]`)))
	if got := value(`#log_retention_days`); got != "14" {
		t.Fatalf("log retention after save = %q, want 14", got)
	}
	shots("edit-settings")
}
