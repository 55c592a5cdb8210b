package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserProviderTypes adds providers of the new types as an admin does:
// a bedrock one, whose fields appear when the type is chosen (what was typed
// in the common fields stays), refused first for its missing secret key,
// shown at its field, then saved and listed with its secrets as …last4
// only; then a vertex one with its service account key file.
func TestBrowserProviderTypes(t *testing.T) {
	g, _ := startGateway(t, testConfig("", t.TempDir()))
	b := newAdminBrowser(t, g)
	const secretKey, sessionToken = "awsBROWSERsecretABCDEFGHIJKLMNOPQRST", "awsBROWSERtoken-zyxwvutsrq9876"
	form := `[data-testid="provider-form"] `
	input := func(name string) string { return form + `[data-testid="input-` + name + `"]` }
	chooseType := func(apiType string) chromedp.Action[chromedp.Void] {
		return chromedp.Steps(chromedp.SetValue(css(input("api_type")), apiType),
			// What a person's pick fires; SetValue alone fires nothing.
			chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
				_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("#provider-api_type").dispatchEvent(new Event("change", {bubbles: true}))`))
				return err
			}),
			// The fields' box is the form's (display: contents): wait for it in the DOM.
			chromedp.WaitReady(css(fmt.Sprintf(`[data-testid="provider-type-fields"][data-api-type=%q]`, apiType))))
	}
	// row is the CSS selector of the listed provider named name.
	row := func(name string) string {
		t.Helper()
		id, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](fmt.Sprintf(`[...document.querySelectorAll('[data-testid="provider"]')]
			.find(r => r.querySelector('[data-testid="provider-name"]').textContent.trim() === %q)?.dataset.providerId ?? ""`, name)))
		if err != nil || id == "" {
			t.Fatalf("no provider %s listed (%v)", name, err)
		}
		return fmt.Sprintf(`[data-testid="provider"][data-provider-id=%q]`, id)
	}
	rowText := func(name, testID string) string {
		t.Helper()
		return b.text(row(name) + fmt.Sprintf(` [data-testid=%q]`, testID))
	}
	noSecretOnPage := func(what string) {
		t.Helper()
		html, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.documentElement.outerHTML`))
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{secretKey, sessionToken, secretKey[:12], sessionToken[:12], "PRIVATE KEY", "BROWSERPRIVATE"} {
			if strings.Contains(html, secret) {
				t.Errorf("%s: the page holds %q", what, secret)
			}
		}
	}

	b.signIn()
	b.open("/providers")
	b.do(typeInto(input("name"), "aws-bedrock"),
		typeInto(input("base_url"), "http://typed.example"),
		chooseType("bedrock"),
		chromedp.WaitVisible(css(input("region"))))
	if name, base := b.value(input("name")), b.value(input("base_url")); name != "aws-bedrock" || base != "http://typed.example" {
		t.Fatalf("after choosing the type: name %q base_url %q, want what was typed", name, base)
	}
	if b.text(`label[for="provider-base_url"]`) != "Base URL (optional)" {
		t.Errorf("bedrock's base URL label = %q", b.text(`label[for="provider-base_url"]`))
	}

	// The secret key left out: refused at its field, the settings kept, the
	// token typed asked for again.
	b.do(chromedp.Clear(css(input("base_url"))),
		typeInto(input("region"), "us-east-1"),
		typeInto(input("aws_access_key_id"), "AKIAIOSFODNN7EXAMPLE"),
		typeInto(input("aws_session_token"), sessionToken),
		chromedp.Click(css(form+`[data-testid="provider-submit"]`)),
		chromedp.WaitVisible(css(form+`[data-testid="error-aws_secret_access_key"]`)))
	if got := b.text(form + `[data-testid="error-aws_secret_access_key"]`); got != "is required for api_type bedrock" {
		t.Errorf("error at the secret key = %q", got)
	}
	if region, token := b.value(input("region")), b.value(input("aws_session_token")); region != "us-east-1" || token != "" {
		t.Errorf("refused form: region %q, session token %q; want the region kept and the token asked for again", region, token)
	}
	if got := b.text(form + `[data-testid="provider-key-again"]`); !strings.Contains(got, "AWS session token") {
		t.Errorf("provider-key-again = %q", got)
	}
	noSecretOnPage("refused bedrock form")
	b.shot("providers-bedrock-refused.png")

	b.do(typeInto(input("aws_secret_access_key"), secretKey),
		typeInto(input("aws_session_token"), sessionToken),
		chromedp.Click(css(form+`[data-testid="provider-submit"]`)),
		waitContains(`[data-testid="providers"]`, "aws-bedrock"), ready, settled)
	for id, want := range map[string]string{
		"provider-api-type":                     "bedrock",
		"provider-base-url":                     "https://bedrock-runtime.us-east-1.amazonaws.com (default)",
		"provider-fact-region":                  "region us-east-1",
		"provider-secret-aws_secret_access_key": "secret key …QRST",
		"provider-secret-aws_session_token":     "session token …9876",
	} {
		if got := rowText("aws-bedrock", id); got != want {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
	noSecretOnPage("providers list")

	// A vertex provider with its key file.
	key, err := json.MarshalIndent(map[string]string{
		"type": "service_account", "project_id": "my-project-123", "private_key_id": "0123456789abcdef",
		"private_key":  "-----BEGIN PRIVATE KEY-----\nBROWSERPRIVATEKEYMATERIAL\n-----END PRIVATE KEY-----\n",
		"client_email": "gateway@my-project-123.iam.gserviceaccount.com", "token_uri": "https://oauth2.googleapis.com/token",
	}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	keyPath := filepath.Join(t.TempDir(), "my-project-123-0123456789ab.json")
	if err := os.WriteFile(keyPath, key, 0o600); err != nil {
		t.Fatal(err)
	}
	b.do(typeInto(input("name"), "gcp-vertex"),
		chooseType("vertex"),
		typeInto(input("project"), "my-project-123"),
		typeInto(input("location"), "europe-west4"),
		chromedp.SetUploadFiles(css(input("credentials_file")), []string{keyPath}),
		chromedp.Click(css(form+`[data-testid="provider-submit"]`)),
		waitContains(`[data-testid="providers"]`, "gcp-vertex"), ready, settled)
	for id, want := range map[string]string{
		"provider-base-url":      "https://europe-west4-aiplatform.googleapis.com (default)",
		"provider-fact-project":  "project my-project-123",
		"provider-fact-location": "location europe-west4",
		"provider-key":           "…cdef",
	} {
		if got := rowText("gcp-vertex", id); got != want {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
	noSecretOnPage("providers list with vertex")
	b.shots("providers-types")

	// The API agrees, and shows no secret either.
	list := mustAPIList(t, g, "/api/providers")
	if len(list) != 2 || list[0]["aws_secret_access_key_last4"] != "QRST" || list[1]["credentials_json_last4"] != "cdef" {
		t.Errorf("GET /api/providers = %v", list)
	}
}

// mustAPIList GETs a list from the management API.
func mustAPIList(t *testing.T, g *Gateway, path string) []map[string]any {
	t.Helper()
	status, raw := api(t, g, "GET", path, nil)
	if status != 200 {
		t.Fatalf("GET %s: status %d: %s", path, status, raw)
	}
	for _, secret := range []string{"BROWSER", "PRIVATE KEY"} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("GET %s shows a secret: %s", path, raw)
		}
	}
	var list []map[string]any
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatalf("GET %s: %v\n%s", path, err, raw)
	}
	return list
}
