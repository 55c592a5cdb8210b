package main

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// adminBrowser drives one Chromium tab through the admin app; each method
// fails the test on error.
type adminBrowser struct {
	t    *testing.T
	ctx  context.Context
	base string // the admin listener's URL
}

func newAdminBrowser(t *testing.T, g *Gateway) *adminBrowser {
	return &adminBrowser{t: t, ctx: browserContext(t), base: "http://" + g.AdminAddr()}
}

func css(s string) chromedp.CSS { return chromedp.CSS(s) }

func (b *adminBrowser) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		// Where the browser was and what it showed, while the session lasts.
		page, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`location.href + "\n" + (document.querySelector("main")?.innerText ?? "")`))
		b.t.Fatalf("%v\nthe page:\n%s", err, page)
	}
}

// text is an element's text with its white space folded.
func (b *adminBrowser) text(sel string) string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Text(css(sel)))
	if err != nil {
		b.t.Fatalf("text of %s: %v", sel, err)
	}
	return strings.Join(strings.Fields(v), " ")
}

func (b *adminBrowser) value(sel string) string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Value(css(sel)))
	if err != nil {
		b.t.Fatalf("value of %s: %v", sel, err)
	}
	return v
}

// poll waits for js to be true; it polls again when a navigation destroys
// the page it was polling.
func poll(what, js string) chromedp.Action[chromedp.Void] { return pollFor(what, js, 10*time.Second) }

// pollFor is poll for at most d.
func pollFor(what, js string, d time.Duration) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		deadline := time.Now().Add(d)
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

// ready waits for the page to have loaded, htmx with it.
var ready = poll("htmx", `document.readyState === "complete" && !!window.htmx`)

// settled waits until htmx has no request in flight and no swap under way:
// after a change that htmx answers by swapping fields (a select's
// hx-trigger="change", which chromedp.SetValue fires), so that the next
// action finds the new fields, not the ones being replaced.
var settled = poll("htmx to settle", `!document.querySelector(".htmx-request, .htmx-swapping, .htmx-settling")`)

// waitContains waits for sel's text, white space folded, to hold want.
func waitContains(sel, want string) chromedp.Action[chromedp.Void] {
	return poll(fmt.Sprintf("%s to hold %q", sel, want),
		fmt.Sprintf(`(document.querySelector(%q)?.textContent ?? "").replace(/\s+/g, " ").includes(%q)`, sel, want))
}

// count waits for n elements to match sel.
func count(sel string, n int) chromedp.Action[chromedp.Void] {
	return poll(fmt.Sprintf("%d of %s", n, sel), fmt.Sprintf(`document.querySelectorAll(%q).length === %d`, sel, n))
}

func typeInto(sel, v string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(chromedp.Clear(css(sel)), chromedp.SendKeys(css(sel), v))
}

// signIn signs in as the bootstrap admin at a desktop size.
func (b *adminBrowser) signIn() {
	b.t.Helper()
	b.do(chromedp.EmulateViewport(1440, 900),
		chromedp.Navigate(b.base+"/login"),
		chromedp.WaitVisible(css(`[data-testid="login-form"]`)),
		chromedp.SendKeys(css(`[data-testid="login-username"]`), "admin"),
		chromedp.SendKeys(css(`[data-testid="login-password"]`), testPassword),
		chromedp.Click(css(`[data-testid="login-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="nav"]`)))
}

// open navigates to an admin page and waits for it.
func (b *adminBrowser) open(path string) {
	b.t.Helper()
	b.do(chromedp.Navigate(b.base+path), ready)
}

// shot saves the page as it is into the artifacts under name.
func (b *adminBrowser) shot(name string) {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(artifactPath(b.t, name), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// shots saves the page at 1440×900 and as a phone at 390×844 into the
// artifacts, then goes back to the desktop size.
func (b *adminBrowser) shots(name string) {
	b.t.Helper()
	for _, size := range []struct {
		w, h int64
		opts []chromedp.EmulateViewportOption
	}{{1440, 900, nil}, {390, 844, []chromedp.EmulateViewportOption{chromedp.EmulatePortrait, chromedp.EmulateMobile}}} {
		b.do(chromedp.EmulateViewport(size.w, size.h, size.opts...), chromedp.Sleep(200*time.Millisecond))
		b.shot(fmt.Sprintf("%s-%dx%d.png", name, size.w, size.h))
	}
	b.do(chromedp.EmulateViewport(1440, 900))
}

// addQuotaPool makes the pool "quota": a member that answers 429 with
// retry-after 309788 (weight 1) and a healthy reserve (weight 0). extra
// goes into both entries.
func addQuotaPool(t *testing.T, g *Gateway, extra map[string]any) *fakeOpenAI {
	t.Helper()
	limited, _ := scriptedUpstream(t, http.StatusTooManyRequests, "309788", 0)
	healthy := newFakeOpenAI(t)
	for _, m := range []struct {
		name, url string
		weight    float64
	}{{"limited", limited.URL, 1}, {"healthy", healthy.URL, 0}} {
		entry := map[string]any{"public_name": "quota", "provider_id": addProvider(t, g, m.name, m.url),
			"upstream_model": m.name + "-model", "weight": m.weight, "input_price": 0, "output_price": 0}
		maps.Copy(entry, extra)
		mustAPI(t, g, "POST", "/api/models", entry, http.StatusCreated)
	}
	return healthy
}
