package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
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
	// A bound on the whole session, not a measure of speed: a flow that takes
	// 8 s alone took over a minute in CI under -race beside the other packages.
	ctx, cancelTimeout := context.WithTimeout(ctx, 4*time.Minute)
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

// TestBrowserLoginAndGrowAPool clicks through the Models page and the pool
// status page as an admin does: sign in, grow a pool from the form, edit a
// weight inline and watch the shares follow, then Check now against two real
// upstreams, one healthy and one failing.
func TestBrowserLoginAndGrowAPool(t *testing.T) {
	ctx := browserContext(t)
	g, _ := startGateway(t, testConfig("", t.TempDir()))
	healthy := newFakeOpenAI(t)
	failing, failingCalls := scriptedUpstream(t, http.StatusInternalServerError, "", 0)
	healthyID := fmt.Sprint(addProvider(t, g, "healthy-openai", healthy.URL))
	failingID := fmt.Sprint(addProvider(t, g, "failing-openai", failing.URL))
	base := "http://" + g.AdminAddr()
	pool := `[data-testid="pool"][data-public-name="team-pool"]`
	row := func(n int) string { return fmt.Sprintf(`%s tbody tr:nth-child(%d)`, pool, n) }
	member := func(n int) string { return fmt.Sprintf(`[data-testid="pool-members"] tbody tr:nth-child(%d)`, n) }

	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	addEntry := func(publicName, providerID, upstream, weight string) chromedp.Action[chromedp.Void] {
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
		return strings.TrimSpace(v)
	}
	do := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatal(err)
		}
	}
	// waitText waits until the element's text is want: htmx swaps in place,
	// so there is no navigation to wait for.
	waitText := func(sel, want string) chromedp.Action[chromedp.Void] {
		js := fmt.Sprintf(`(document.querySelector(%q)?.textContent ?? "").trim() === %q`, sel, want)
		return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(10*time.Second)))
			if err != nil {
				return fmt.Errorf("wait for %s to read %q: %w", sel, want, err)
			}
			return nil
		})
	}
	// htmxReady waits for htmx (a deferred script) to take over the page's
	// forms: a click before that would post the form the plain way.
	htmxReady := chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.readyState === "complete" && !!window.htmx`,
			chromedp.WithPollingTimeout(10*time.Second)))
		return err
	})
	screenshot := func(name string) {
		t.Helper()
		shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(artifactPath(t, name), shot, 0o644); err != nil {
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
		htmxReady,
		// An invalid entry is refused in place, by htmx, without a reload.
		addEntry("bad name", healthyID, "m1", "1"),
		chromedp.WaitVisible(css(`[data-testid="error-public_name"]`)))
	fieldError := text(`[data-testid="error-public_name"]`)
	if wrongLogin == "" || fieldError == "" {
		t.Fatalf("errors not shown: login %q, field %q", wrongLogin, fieldError)
	}

	// Two entries with one public name: one pool of two members, and the
	// shares the router gives them (the unset weight gets nothing).
	do(addEntry("team-pool", healthyID, "upstream-a", "3"),
		chromedp.WaitVisible(css(pool)))
	do(addEntry("team-pool", failingID, "upstream-b", ""),
		chromedp.WaitVisible(css(pool+` [data-testid="pool-member-count"][data-count="2"]`)),
		htmxReady)
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if count := text(pool + ` [data-testid="pool-member-count"]`); count != "2 members" || loc != base+"/models" {
		t.Fatalf("pool shows %q on %s, want 2 members on /models", count, loc)
	}
	if rows := text(pool + ` tbody`); !containsAll(rows, "upstream-a", "upstream-b", "unset", "3", "healthy-openai", "failing-openai") {
		t.Fatalf("pool rows = %q, want both upstreams and the unset weight", rows)
	}
	shareA, shareB := text(row(1)+` [data-testid="entry-share-value"]`), text(row(2)+` [data-testid="entry-share-value"]`)
	if shareA != "100%" || shareB != "0%" {
		t.Fatalf("shares %s / %s, want 100%% / 0%%", shareA, shareB)
	}

	// Edit b's weight inline: the group is swapped in place and both shares follow.
	do(chromedp.Click(css(row(2)+` [data-testid="entry-weight-edit"]`)),
		chromedp.WaitVisible(css(row(2)+` [data-testid="weight-input"]`)),
		chromedp.SendKeys(css(row(2)+` [data-testid="weight-input"]`), "1"),
		chromedp.Click(css(row(2)+` [data-testid="weight-form"] button`)),
		waitText(row(2)+` [data-testid="entry-share-value"]`, "25%"))
	if got := text(row(1) + ` [data-testid="entry-share-value"]`); got != "75%" {
		t.Fatalf("after weight 1 for b, a's share is %s, want 75%%", got)
	}
	if got := text(row(2) + ` [data-testid="entry-weight"]`); got != "1" {
		t.Fatalf("b's weight shows %q, want 1", got)
	}
	// A fallback list, set in place.
	do(chromedp.Click(css(pool+` [data-kind="general"] [data-testid="fallback-edit"]`)),
		chromedp.WaitVisible(css(pool+` [data-kind="general"] [data-testid="fallback-input"]`)),
		chromedp.SendKeys(css(pool+` [data-kind="general"] [data-testid="fallback-input"]`), "backup-pool"),
		chromedp.Click(css(pool+` [data-kind="general"] [data-testid="fallback-form"] button`)),
		chromedp.WaitVisible(css(pool+` [data-kind="general"] [data-testid="fallback-target"]`)))
	if loc, _ := chromedp.Run(ctx, chromedp.Location()); loc != base+"/models" {
		t.Fatalf("an inline edit navigated to %s", loc)
	}
	screenshot("models-page.png")

	// The pool status page: loading it calls no upstream; Check now calls both.
	do(chromedp.Click(css(pool+` [data-testid="pool-status-link"]`)),
		chromedp.WaitVisible(css(`[data-testid="check-now"]`)),
		chromedp.WaitVisible(css(member(2)+` [data-testid="member-never-checked"]`)),
		htmxReady)
	if n := failingCalls.Load(); n != 0 {
		t.Fatalf("loading the pool status page called the failing upstream %d times", n)
	}
	if got := text(member(1) + ` [data-testid="member-planned-share"]`); got != "75%" {
		t.Fatalf("planned share of a on the status page: %s", got)
	}
	do(chromedp.Click(css(`[data-testid="check-now"]`)),
		chromedp.WaitVisible(css(`[data-testid="check-summary"]`)))
	loc, _ = chromedp.Run(ctx, chromedp.Location())
	summary := text(`[data-testid="check-summary"]`)
	okStatus, badStatus := text(member(1)+` [data-testid="member-check-status"]`), text(member(2)+` [data-testid="member-check-status"]`)
	badError := text(member(2) + ` [data-testid="member-check-error"]`)
	shareA, shareB = text(member(1)+` [data-testid="member-share"]`), text(member(2)+` [data-testid="member-share"]`)
	screenshot("pool-status-page.png")
	if loc != base+"/pools/team-pool" {
		t.Errorf("Check now left the page for %s", loc)
	}
	if !strings.Contains(summary, "1 ok, 1 failed") || okStatus != "ok" || badStatus != "failed" ||
		!strings.Contains(badError, "HTTP 500: scripted 500") {
		t.Errorf("check results: %q; a %q; b %q %q", summary, okStatus, badStatus, badError)
	}
	if shareA != "100%" || shareB != "0%" {
		t.Errorf("current shares after b failed its check: %s / %s, want 100%% / 0%%", shareA, shareB)
	}
	if n := failingCalls.Load(); n != 1 {
		t.Errorf("the failing upstream got %d calls, want the 1 check", n)
	}

	// Delete asks first: dismissed, nothing happens; accepted, the group
	// re-renders with one member, and without any once the last is gone.
	var accept atomic.Bool
	var confirms atomic.Int64
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for _, err := range dialogs {
			if err != nil {
				return
			}
			confirms.Add(1)
			chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: accept.Load()}) //nolint:errcheck // the test fails below if the dialog stays
		}
	}()
	do(chromedp.Navigate(base+"/models"),
		chromedp.WaitVisible(css(pool)),
		htmxReady,
		chromedp.Click(css(row(2)+` [data-testid="entry-delete"]`)),
		chromedp.Sleep(300*time.Millisecond))
	if n := text(pool + ` [data-testid="pool-member-count"]`); n != "2 members" || confirms.Load() != 1 {
		t.Fatalf("after a dismissed delete: %q, %d confirmations", n, confirms.Load())
	}
	accept.Store(true)
	do(chromedp.Click(css(row(2)+` [data-testid="entry-delete"]`)),
		waitText(pool+` [data-testid="pool-member-count"]`, "1 member"),
		chromedp.Click(css(row(1)+` [data-testid="entry-delete"]`)),
		chromedp.WaitNotPresent(css(pool)))
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// TestBrowserProviderKeyAndRequest: an admin adds a provider on the
// Providers page, an entry on the Models page, creates a key on the Keys page
// and uses it at once for a proxied request; the key is never shown again.
func TestBrowserProviderKeyAndRequest(t *testing.T) {
	ctx := browserContext(t)
	g, _ := startGateway(t, testConfig("", t.TempDir()))
	upstream := newFakeOpenAI(t)
	base := "http://" + g.AdminAddr()
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	ready := chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.readyState === "complete" && !!window.htmx`,
			chromedp.WithPollingTimeout(10*time.Second)))
		return err
	})
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
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(artifactPath(t, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	do(chromedp.Navigate(base+"/login"),
		chromedp.WaitVisible(css(`[data-testid="login-form"]`)),
		chromedp.SendKeys(css(`[data-testid="login-username"]`), "admin"),
		chromedp.SendKeys(css(`[data-testid="login-password"]`), testPassword),
		chromedp.Click(css(`[data-testid="login-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="nav"]`)),

		chromedp.Navigate(base+"/providers"), ready,
		chromedp.SendKeys(css(`#provider-name`), "browser-openai"),
		chromedp.SetValue(css(`#provider-api_type`), "openai"), settled,
		chromedp.SendKeys(css(`#provider-base_url`), upstream.URL+"/v1"),
		chromedp.SendKeys(css(`#provider-api_key`), testProviderKey),
		chromedp.Click(css(`[data-testid="provider-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="provider"]`)))
	if hint := text(`[data-testid="provider-key"]`); strings.Contains(hint, testProviderKey[:12]) || !strings.Contains(hint, testProviderKey[len(testProviderKey)-4:]) {
		t.Fatalf("provider key shown as %q, want only its last four characters", hint)
	}
	shot("providers-page.png")
	providerID, err := chromedp.Run(ctx, chromedp.AttributeValue(css(`[data-testid="provider"]`), "data-provider-id"))
	if err != nil || providerID.Value == "" {
		t.Fatalf("provider id: %v %v", providerID, err)
	}
	do(chromedp.Navigate(base+"/models"), ready,
		chromedp.SetValue(css(`#public_name`), "browser-model"),
		chromedp.SetValue(css(`#provider_id`), providerID.Value),
		chromedp.SetValue(css(`#upstream_model`), "gpt-upstream-1"),
		chromedp.Click(css(`[data-testid="model-entry-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="pool"][data-public-name="browser-model"]`)),

		chromedp.Navigate(base+"/keys"), ready,
		chromedp.SendKeys(css(`#key-name`), "from-the-browser"),
		chromedp.Click(css(`[data-testid="key-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="new-key-value"]`)))
	key := text(`[data-testid="new-key-value"]`)
	shot("keys-page.png")
	if !strings.HasPrefix(key, "sk-") {
		t.Fatalf("new key %q", key)
	}
	p := chatParams()
	p.Model = "browser-model"
	client := sdk(g, key)
	c, err := client.Chat.Completions.New(context.Background(), p)
	if err != nil || c.Choices[0].Message.Content != "hello from upstream" {
		t.Fatalf("the key made in the browser does not work: %v", err)
	}
	do(chromedp.Navigate(base+"/keys"), chromedp.WaitVisible(css(`[data-testid="keys"]`)))
	page, err := chromedp.Run(ctx, chromedp.OuterHTML(css("html")))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(page, key) {
		t.Fatal("the key is shown again on a later visit to /keys")
	}
}
