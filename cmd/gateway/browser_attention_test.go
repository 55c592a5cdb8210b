package main

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// TestBrowserAttentionAndEndCooldown: a provider answers 429 with
// retry-after 309788; an admin who asked for the pool's page while signed
// out lands on it after signing in, sees the member on the Dashboard's
// Needs attention panel, follows it to the pool status page, ends the
// cooldown there (confirming) and sees the member back.
func TestBrowserAttentionAndEndCooldown(t *testing.T) {
	g, _ := startGateway(t, testConfig("", t.TempDir()))
	addQuotaPool(t, g, nil)
	key := mustAPI(t, g, "POST", "/api/keys", map[string]any{"name": "attention"}, http.StatusCreated)["key"].(string)
	client := sdk(g, key)
	p := chatParams()
	p.Model = "quota"
	if _, err := client.Chat.Completions.New(context.Background(), p); err != nil {
		t.Fatal(err)
	}

	b := newAdminBrowser(t, g)
	ctx, base := b.ctx, b.base
	var confirms atomic.Int64
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for _, err := range dialogs {
			if err != nil {
				return
			}
			confirms.Add(1)
			chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true}) //nolint:errcheck // the test fails below if the dialog stays
		}
	}()

	// Asked for while signed out, the pool's page comes back after sign-in.
	b.do(chromedp.EmulateViewport(1440, 900),
		chromedp.Navigate(base+"/pools/quota"),
		chromedp.WaitVisible(css(`[data-testid="login-form"]`)),
		chromedp.SendKeys(css(`[data-testid="login-username"]`), "admin"),
		chromedp.SendKeys(css(`[data-testid="login-password"]`), testPassword),
		chromedp.Click(css(`[data-testid="login-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="pool-members"]`)))
	if loc, err := chromedp.Run(ctx, chromedp.Location()); err != nil || !strings.HasSuffix(loc, "/pools/quota") {
		t.Fatalf("after sign-in at %q (%v), want the pool page asked for", loc, err)
	}

	b.do(chromedp.Navigate(base+"/"), ready, count(`[data-testid="attention-cooldown"]`, 1))
	if got := b.text(`[data-testid="attention-cooldown"]`); !strings.Contains(got, "limited-model in pool quota is cooling down until") ||
		!strings.Contains(got, "429, retry-after 309788s") || !strings.Contains(got, "(in 3d 14h)") {
		t.Errorf("the attention panel says %q", got)
	}
	b.shot("attention-dashboard-1440x900.png")

	cooling := `[data-testid="member-cooling"]`
	b.do(chromedp.Click(css(`[data-testid="attention-cooldown"] a`)),
		chromedp.WaitVisible(css(`[data-testid="pool-members"]`)), ready, count(cooling, 1),
		chromedp.Click(css(`[data-testid="end-cooldown"]`)),
		count(cooling, 0), count(`[data-testid="check-summary"]`, 1))
	if got := b.text(`[data-testid="check-summary"]`); !strings.Contains(got, "ended") || confirms.Load() != 1 {
		t.Errorf("after End cooldown: %q, %d confirmations", got, confirms.Load())
	}
	b.shot("attention-pool-after-end-1440x900.png")
	b.do(chromedp.Navigate(base+"/"), ready, count(`[data-testid="attention-none"]`, 1))
}
