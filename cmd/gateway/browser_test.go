package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// browserContext starts headless Chromium (Debian's package) for one test.
// Without Chromium the test skips, and fails when GATEWAY_REQUIRE_BROWSER is
// set (CI sets it).
func browserContext(t *testing.T) context.Context {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("GATEWAY_REQUIRE_BROWSER") != "" {
			t.Fatal("chromium: not installed but GATEWAY_REQUIRE_BROWSER is set")
		}
		t.Skip("chromium: not installed (apt-get install chromium) — browser test skipped")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	return ctx
}

// artifactPath is where a test saves a screenshot: GATEWAY_ARTIFACTS_DIR when
// set (CI keeps it), else the test's temp dir.
func artifactPath(t *testing.T, name string) string {
	dir := os.Getenv("GATEWAY_ARTIFACTS_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, name)
}

func TestBrowserLoginAndGrowAPool(t *testing.T) {
	ctx := browserContext(t)
	g, _ := startGateway(t, testConfig("", t.TempDir()))
	p := mustAPI(t, g, "POST", "/api/providers", map[string]any{
		"name": "fake-openai", "api_type": "openai", "base_url": "http://127.0.0.1:1/v1", "api_key": testProviderKey,
	}, http.StatusCreated)
	providerID := fmt.Sprint(p["id"])
	base := "http://" + g.AdminAddr()
	pool := `[data-testid="pool"][data-public-name="team-pool"]`

	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	addEntry := func(publicName, upstream, weight string) chromedp.Action[chromedp.Void] {
		return chromedp.Steps(
			chromedp.WaitVisible(css(`[data-testid="model-entry-form"]`)),
			chromedp.SetValue(css(`#public_name`), publicName),
			chromedp.SetValue(css(`#provider_id`), providerID),
			chromedp.SetValue(css(`#upstream_model`), upstream),
			// The weight is typed, so that "" leaves it unset as an admin would.
			chromedp.Clear(css(`#weight`)),
			chromedp.SendKeys(css(`#weight`), weight),
			chromedp.Click(css(`[data-testid="model-entry-submit"]`)),
		)
	}
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(css(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return v
	}
	do := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatal(err)
		}
	}

	do(chromedp.Navigate(base+"/models"), // logged out: sent to the login page
		chromedp.WaitVisible(css(`[data-testid="login-form"]`)),
		chromedp.SendKeys(css(`[data-testid="login-username"]`), "admin"),
		chromedp.SendKeys(css(`[data-testid="login-password"]`), "not the password"),
		chromedp.Click(css(`[data-testid="login-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="login-error"]`)))
	wrongLogin := text(`[data-testid="login-error"]`)
	do(chromedp.SendKeys(css(`[data-testid="login-password"]`), testPassword),
		chromedp.Click(css(`[data-testid="login-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="nav"]`)),
		chromedp.Navigate(base+"/models"),
		// An invalid entry is refused in place, by htmx, without a reload.
		addEntry("bad name", "m1", "1"),
		chromedp.WaitVisible(css(`[data-testid="error-public_name"]`)))
	fieldError := text(`[data-testid="error-public_name"]`)
	do(addEntry("team-pool", "upstream-a", "3"),
		chromedp.WaitVisible(css(pool)))
	do(addEntry("team-pool", "upstream-b", ""),
		chromedp.WaitVisible(css(pool+` [data-testid="pool-member-count"][data-count="2"]`)))
	count := text(pool + ` [data-testid="pool-member-count"]`)
	rows := text(pool + ` tbody`)
	page, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if wrongLogin == "" || fieldError == "" {
		t.Fatalf("errors not shown: login %q, field %q", wrongLogin, fieldError)
	}
	if count != "2 members" || page != base+"/models" {
		t.Fatalf("pool shows %q on %s, want 2 members on /models", count, page)
	}
	if !containsAll(rows, "upstream-a", "upstream-b", "unset", "3") {
		t.Fatalf("pool rows = %q, want both upstreams and the unset weight", rows)
	}
	if err := os.WriteFile(artifactPath(t, "models-page.png"), shot, 0o644); err != nil {
		t.Fatal(err)
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
