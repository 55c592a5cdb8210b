package main

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/oauth2-proxy/mockoidc"

	"gateway/models"
)

// TestBrowserSignInWithSSO: an admin sent to the login page clicks "Sign
// in with SSO", the provider signs them in, and they land on the page they
// asked for, signed in under their provider username with the role their
// group maps to.
func TestBrowserSignInWithSSO(t *testing.T) {
	idp, err := mockoidc.Run()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idp.Shutdown() })
	idp.QueueUser(&mockoidc.MockUser{Subject: "u-jane", PreferredUsername: "jane.sso", Email: "jane@example.com",
		EmailVerified: true, Groups: []string{"engineering", "platform-admins"}})
	cfg := testConfig("", t.TempDir())
	cfg.OIDCIssuer, cfg.OIDCClientID, cfg.OIDCClientSecret = idp.Issuer(), idp.ClientID, idp.ClientSecret
	cfg.OIDCScopes, cfg.OIDCRoleClaim = "openid profile email groups", "groups:platform-admins=admin"
	g, _ := startGateway(t, cfg)

	b := newAdminBrowser(t, g)
	b.do(chromedp.EmulateViewport(1440, 900),
		chromedp.Navigate(b.base+"/models"), // signed out: sent to the login page
		chromedp.WaitVisible(css(`[data-testid="login-sso"]`)))
	b.shot("sso-login.png")
	b.do(chromedp.Click(css(`[data-testid="login-sso"]`)),
		waitContains(`[data-testid="nav-user"]`, "jane.sso"),
		waitContains(`h1`, "Models"),
		count(`[data-testid="nav-read-only"]`, 0))
	path, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`location.pathname`))
	if err != nil {
		t.Fatal(err)
	}
	if path != "/models" {
		t.Errorf("landed on %s, want /models", path)
	}
	jane, err := g.Store.FindAdminBySubject(context.Background(), idp.Issuer()+"|u-jane")
	if err != nil {
		t.Fatal(err)
	}
	if jane.Username != "jane.sso" || jane.Role != models.RoleAdmin {
		t.Errorf("account %q as %q, want jane.sso as admin", jane.Username, jane.Role)
	}
}
