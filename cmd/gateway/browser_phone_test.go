package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// overflowJS lists the elements whose right edge lies past the viewport
// without a scroll container (overflow-x other than visible) between them and
// the page: on a phone those are what the admin cannot read or reach.
const overflowJS = `(() => {
	const w = window.innerWidth, bad = [];
	const page = document.documentElement.scrollWidth;
	if (page > w) bad.push("document scrollWidth " + page + " > " + w);
	const contained = el => {
		for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
			if (getComputedStyle(p).overflowX !== "visible") return true;
		}
		return false;
	};
	const name = el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
		(el.dataset.testid ? "[" + el.dataset.testid + "]" : "") +
		(el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\s+/).join(".") : "");
	for (const el of document.body.querySelectorAll("*")) {
		const r = el.getBoundingClientRect();
		if (r.width === 0 || r.height === 0 || r.right <= w + 0.5 || contained(el)) continue;
		bad.push(name(el) + " right=" + Math.round(r.right));
	}
	return bad.slice(0, 8);
})()`

// firstFocusableJS names the first element that Tab reaches, in document
// order (no page here uses a positive tabindex).
const firstFocusableJS = `(() => {
	const all = document.querySelectorAll('a[href], button, input:not([type="hidden"]), select, textarea, summary, [tabindex]');
	for (const el of all) {
		if (el.disabled || el.tabIndex < 0 || !el.checkVisibility({visibilityProperty: true})) continue;
		return el.dataset.testid || el.outerHTML.slice(0, 80);
	}
	return "";
})()`

// navLinksShownJS says whether every nav link can be seen.
const navLinksShownJS = `[...document.querySelectorAll('[data-testid="nav"] a[data-testid^="nav-"]')].every(a => a.checkVisibility())`

// TestBrowserPhoneLayout visits every admin page at 390×844 (a phone) and at
// 1440×900: nothing may run off the side of the viewport except inside a
// scroll container, the nav folds behind its menu button on the phone and is
// open on the desktop, and "Skip to content" is the first stop of Tab and
// moves focus to the page's content. Screenshots of each page at both sizes
// go to the artifacts.
func TestBrowserPhoneLayout(t *testing.T) {
	// browserContext allows 60 s for one scenario; this test loads twenty
	// pages, so it keeps the browser but runs on a deadline of its own.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(browserContext(t)), 4*time.Minute)
	t.Cleanup(cancel)
	g, _ := startGateway(t, testConfig("", t.TempDir()))
	base := "http://" + g.AdminAddr()
	seedLongNames(t, g)

	b := phoneBrowser{ctx: ctx}
	ready := chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.readyState === "complete" && !!window.htmx`,
			chromedp.WithPollingTimeout(10*time.Second)))
		return err
	})

	b.do(t, chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(base+"/login"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)))
	if bad := b.strings(t, overflowJS); len(bad) > 0 {
		t.Errorf("login page at 390×844 overflows: %s", strings.Join(bad, "; "))
	}
	b.do(t, chromedp.SendKeys(chromedp.CSS(`[data-testid="login-username"]`), "admin"),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="login-password"]`), testPassword),
		chromedp.Click(chromedp.CSS(`[data-testid="login-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="nav"]`)))
	b.shot(t, "phone-login-done-390.png")

	pages := []struct{ name, path string }{
		{"dashboard", "/"}, {"models", "/models"}, {"pool-status", "/pools/" + longPublicName},
		{"providers", "/providers"}, {"keys", "/keys"}, {"teams", "/teams"}, {"users", "/users"},
		{"logs", "/logs"}, {"sticky", "/sticky"},
	}
	// A page added to the nav later (Settings) is visited too.
	b.do(t, chromedp.Navigate(base+"/"))
	for _, href := range b.strings(t, `[...document.querySelectorAll('[data-testid="nav"] a[data-testid^="nav-"]')].map(a => a.getAttribute("href"))`) {
		known := false
		for _, p := range pages {
			known = known || p.path == href
		}
		if !known {
			pages = append(pages, struct{ name, path string }{strings.Trim(href, "/"), href})
		}
	}

	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			// At 390×844: nothing spills, the nav folds, the skip link leads.
			b.do(t, chromedp.EmulateViewport(390, 844),
				chromedp.Navigate(base+p.path), ready,
				chromedp.WaitVisible(chromedp.CSS(`[data-testid="content"]`)))
			if bad := b.strings(t, overflowJS); len(bad) > 0 {
				t.Errorf("%s at 390×844 overflows the viewport: %s", p.path, strings.Join(bad, "; "))
			}
			if b.bool(t, navLinksShownJS) {
				t.Errorf("%s at 390×844: the nav links show before the menu is opened", p.path)
			}
			b.toggleNav(t)
			if !b.bool(t, navLinksShownJS) {
				t.Errorf("%s at 390×844: the menu button does not show the nav links", p.path)
			}
			if bad := b.strings(t, overflowJS); len(bad) > 0 {
				t.Errorf("%s at 390×844 with the menu open overflows: %s", p.path, strings.Join(bad, "; "))
			}
			b.shot(t, "phone-"+p.name+"-390-menu.png")
			b.toggleNav(t)
			if b.bool(t, navLinksShownJS) {
				t.Errorf("%s at 390×844: the menu button does not hide the nav links again", p.path)
			}
			b.do(t, chromedp.Navigate(base+p.path), ready)
			b.shot(t, "phone-"+p.name+"-390.png")
			b.checkSkipLink(t, "phone-"+p.name+"-390-skip-link.png")

			// At 1440×900: the nav is open and its button is gone.
			b.do(t, chromedp.EmulateViewport(1440, 900),
				chromedp.Navigate(base+p.path), ready,
				chromedp.WaitVisible(chromedp.CSS(`[data-testid="content"]`)))
			if bad := b.strings(t, overflowJS); len(bad) > 0 {
				t.Errorf("%s at 1440×900 overflows the viewport: %s", p.path, strings.Join(bad, "; "))
			}
			if !b.bool(t, navLinksShownJS) || b.bool(t, `document.querySelector('[data-testid="nav-toggle"]')?.checkVisibility() ?? false`) {
				t.Errorf("%s at 1440×900: want every nav link shown and no menu button", p.path)
			}
			b.shot(t, "phone-"+p.name+"-1440.png")
		})
	}
}

// phoneBrowser drives one browser tab; each helper fails the (sub)test
// it is given.
type phoneBrowser struct{ ctx context.Context }

func (b phoneBrowser) do(t *testing.T, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

func evalIn[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

func (b phoneBrowser) bool(t *testing.T, js string) bool {
	t.Helper()
	return evalIn[bool](t, b.ctx, js)
}
func (b phoneBrowser) string(t *testing.T, js string) string {
	t.Helper()
	return evalIn[string](t, b.ctx, js)
}
func (b phoneBrowser) strings(t *testing.T, js string) []string {
	t.Helper()
	return evalIn[[]string](t, b.ctx, js)
}

// shot saves a screenshot of the whole page to the artifacts.
func (b phoneBrowser) shot(t *testing.T, name string) {
	t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(artifactPath(t, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// toggleNav clicks the menu button, failing the test at once when the page
// has none rather than waiting for one to appear.
func (b phoneBrowser) toggleNav(t *testing.T) {
	t.Helper()
	if !b.bool(t, `!!document.querySelector('[data-testid="nav-toggle"]')`) {
		t.Fatal("no menu button (nav-toggle) on the page")
	}
	b.do(t, chromedp.Click(chromedp.CSS(`[data-testid="nav-toggle"]`)))
}

// checkSkipLink presses Tab on a freshly loaded page: the skip link must be
// the first stop and visible once focused, and Enter on it must move focus
// to the main content. The page is saved as shot with the link focused.
func (b phoneBrowser) checkSkipLink(t *testing.T, shot string) {
	t.Helper()
	if first := b.string(t, firstFocusableJS); first != "skip-link" {
		t.Errorf("first focusable element is %s, want the skip link", first)
	}
	b.do(t, chromedp.KeyEvent(kb.Tab))
	focused := b.string(t, `(() => { const a = document.activeElement, r = a.getBoundingClientRect();
		return (a.dataset.testid || a.tagName) + (r.top >= 0 && r.bottom <= innerHeight && r.width > 1 ? " visible" : " hidden") })()`)
	if focused != "skip-link visible" {
		t.Errorf("after Tab, the focus is on %q, want the skip link, visible", focused)
	}
	b.shot(t, shot)
	b.do(t, chromedp.KeyEvent(kb.Enter))
	if got := b.string(t, `document.activeElement.dataset.testid || document.activeElement.tagName`); got != "content" {
		t.Errorf("after Enter on the skip link, the focus is on %q, want the main content", got)
	}
}

// longPublicName is a model name long enough to test how a phone copes.
const longPublicName = "team-pool-with-a-rather-long-public-name-for-phones"

// seedLongNames fills every page through the API with rows whose names are
// long, the way a real deployment's are: a provider, a pool of two members,
// a user in a team, a key, a proxied request in the logs and a sticky pin.
func seedLongNames(t *testing.T, g *Gateway) {
	t.Helper()
	upstream := newFakeOpenAI(t)
	providerID := addProvider(t, g, "openai-production-eu-west-with-long-name", upstream.URL)
	var entryID any
	for _, up := range []string{"gpt-4o-mini-2024-07-18-long-upstream-model-name", "gpt-4o-2024-08-06"} {
		entryID = mustAPI(t, g, "POST", "/api/models", map[string]any{"public_name": longPublicName,
			"provider_id": providerID, "upstream_model": up, "weight": 2}, http.StatusCreated)["id"]
	}
	team := mustAPI(t, g, "POST", "/api/teams", map[string]any{"name": "platform-engineering-and-operations", "max_budget_usd": 50}, http.StatusCreated)
	user := mustAPI(t, g, "POST", "/api/users", map[string]any{"name": "alexandra-konstantinopoulou",
		"email": "alexandra.konstantinopoulou@example.com", "team_id": team["id"], "max_budget_usd": 20}, http.StatusCreated)
	key := mustAPI(t, g, "POST", "/api/keys", map[string]any{"name": "continuous-integration-pipeline-key",
		"models": []string{longPublicName}, "max_budget_usd": 5, "rpm_limit": 600, "tpm_limit": 100000,
		"user_id": user["id"], "team_id": team["id"]}, http.StatusCreated)["key"].(string)
	p := chatParams()
	p.Model = longPublicName
	client := sdk(g, key)
	if _, err := client.Chat.Completions.New(context.Background(), p); err != nil {
		t.Fatalf("a request to fill the logs: %v", err)
	}
	mustAPI(t, g, "POST", "/api/sticky", map[string]any{"model_name": longPublicName, "deployment_id": entryID}, http.StatusCreated)
}

// TestBrowserRelativeTimes: static/reltime.js words every
// <time datetime data-relative> as a distance from now, in both directions,
// on load and after an htmx swap, and keeps the server's text as the title.
func TestBrowserRelativeTimes(t *testing.T) {
	ctx := browserContext(t)
	g, _ := startGateway(t, testConfig("", t.TempDir()))
	b := phoneBrowser{ctx: ctx}
	// The login page has the layout, so the script, and needs no session.
	b.do(t, chromedp.Navigate("http://"+g.AdminAddr()+"/login"))
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.readyState === "complete" && !!window.gatewayRelativeTime`,
		chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("reltime.js not loaded: %v", err)
	}

	const sec, minute, hour, day = 1, 60, 3600, 86400
	for _, c := range []struct {
		offset int // seconds from now
		want   string
	}{
		{-20 * sec, "just now"},
		{-3*minute - 10, "3m ago"},
		{-(2*hour + 5*minute + 10), "2h 5m ago"},
		{-hour - 10, "1h ago"},
		{3*day + 14*hour + 5*minute, "in 3d 14h"},
		{2*day + 30, "in 2d"},
		{45*minute + 30, "in 45m"},
	} {
		// The element arrives the way an htmx swap brings it.
		js := fmt.Sprintf(`(() => {
			const el = document.createElement("time");
			el.setAttribute("datetime", new Date(Date.now() + %d * 1000).toISOString());
			el.setAttribute("data-relative", "");
			el.textContent = "server text";
			document.getElementById("content").append(el);
			document.body.dispatchEvent(new CustomEvent("htmx:afterSettle", {bubbles: true}));
			const got = el.textContent + " | " + el.title;
			el.remove();
			return got;
		})()`, c.offset)
		if got, want := b.string(t, js), c.want+" | server text"; got != want {
			t.Errorf("%d s from now: %q, want %q", c.offset, got, want)
		}
	}
	// An unparsable datetime is left as the server wrote it.
	if got := b.string(t, `(() => { const el = document.createElement("time");
		el.setAttribute("datetime", "soon"); el.setAttribute("data-relative", ""); el.textContent = "kept";
		document.body.append(el); window.gatewayRelativeTime.update(); return el.textContent })()`); got != "kept" {
		t.Errorf("unparsable datetime rewritten to %q", got)
	}
}
