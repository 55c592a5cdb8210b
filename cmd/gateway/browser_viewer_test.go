package main

import (
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"
)

// writeControlsJS lists the visible controls of the page that would write:
// forms that post, edit and add links and headings, the inline edits' pens
// (signing out, one's own password and the settings' values aside).
const writeControlsJS = `[...document.querySelectorAll(
	'form[method=post], [data-write], a[href$="/edit"], details.inline-edit .edit-hint')]
	.filter(e => e.id !== 'settings-form' && !e.closest('#logout-form, #password-form') && e.checkVisibility())
	.map(e => e.dataset.testid || e.getAttribute('action') || e.getAttribute('href') || e.textContent.trim())`

// TestBrowserViewerSeesNoWriteControls: a viewer signs in and, on every
// page an admin changes things from, sees the data but none of the
// controls that would write (the server refuses them with 403 anyway);
// an admin on the same pages sees them, so the check is no empty one.
func TestBrowserViewerSeesNoWriteControls(t *testing.T) {
	g, _ := startGateway(t, testConfig("", t.TempDir()))
	setupPool(t, g, newFakeOpenAI(t).URL)
	mustAPI(t, g, "POST", "/api/teams", map[string]any{"name": "platform"}, http.StatusCreated)
	mustAPI(t, g, "POST", "/api/users", map[string]any{"name": "alex"}, http.StatusCreated)
	mustAPI(t, g, "POST", "/api/admins", map[string]any{"username": "finance", "password": "finance password", "role": "viewer"}, http.StatusCreated)
	pages := []string{"/models", "/pools/team-model", "/providers", "/keys", "/teams", "/users", "/sticky", "/settings"}

	b := newAdminBrowser(t, g)
	b.signIn()
	for _, p := range pages {
		b.open(p)
		if controls := b.writeControls(); len(controls) == 0 {
			t.Errorf("an admin sees no write controls on %s: the check would pass for nothing", p)
		}
	}

	b.do(chromedp.Click(css(`[data-testid="logout"]`)), chromedp.WaitVisible(css(`[data-testid="login-form"]`)))
	viewer := b
	viewer.do(chromedp.Navigate(viewer.base+"/login"),
		chromedp.WaitVisible(css(`[data-testid="login-form"]`)),
		chromedp.SendKeys(css(`[data-testid="login-username"]`), "finance"),
		chromedp.SendKeys(css(`[data-testid="login-password"]`), "finance password"),
		chromedp.Click(css(`[data-testid="login-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="nav-read-only"]`)))
	for _, p := range pages {
		viewer.open(p)
		if controls := viewer.writeControls(); len(controls) > 0 {
			t.Errorf("a viewer sees write controls on %s: %v", p, controls)
		}
	}
	// What the controls edit is still shown: a member's weight, the settings.
	viewer.open("/models")
	viewer.do(chromedp.WaitVisible(css(`[data-testid="entry-weight"]`)), chromedp.WaitVisible(css(`[data-testid="entry-enabled"]`)))
	viewer.shot("viewer-models.png")
	viewer.open("/settings")
	viewer.do(chromedp.WaitVisible(css(`[data-testid="input-log_retention_days"]`)))
}

// writeControls are the page's visible write controls (writeControlsJS).
func (b *adminBrowser) writeControls() []string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](writeControlsJS))
	if err != nil {
		b.t.Fatalf("listing write controls: %v", err)
	}
	return v
}
