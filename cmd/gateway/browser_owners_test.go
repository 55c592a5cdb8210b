package main

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/openai/openai-go/v3"
)

// TestBrowserOwnersPinsAndRefusals clicks through what an admin does around
// a pool with a member cooling down: edits a team and a user in their rows,
// pins the cooling member (the pin is taken and shown not in effect, on the
// Sticky page and the pool's page, where the weight-0 member is labelled a
// reserve), finds a request refused by its own worst case in the Logs with
// the cause named, and adds a provider whose form, sent back with an error,
// asks for the key again.
func TestBrowserOwnersPinsAndRefusals(t *testing.T) {
	g, logs := startGateway(t, testConfig("", t.TempDir()))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the gateway's log:\n%s", logs)
		}
	})
	healthy := addQuotaPool(t, g, map[string]any{"output_price": 100})
	key := mustAPI(t, g, "POST", "/api/keys", map[string]any{"name": "small", "max_budget_usd": 0.05}, http.StatusCreated)["key"].(string)
	client := sdk(g, key)
	p := chatParams()
	p.Model = "quota"
	p.MaxTokens = openai.Int(100) // $0.01 at most: served by the reserve, the limited member cools down
	if _, err := client.Chat.Completions.New(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	p.MaxTokens = openai.Int(1000) // up to $0.10, more than the $0.05 budget has left
	var refused *openai.Error
	if _, err := client.Chat.Completions.New(context.Background(), p); !errors.As(err, &refused) ||
		refused.StatusCode != http.StatusTooManyRequests || !strings.Contains(refused.Message, "this request could cost up to $0.1000") {
		t.Fatalf("a request whose worst case exceeds what is left: %v", err)
	}
	waitForLogs(t, g, 2)

	b := newAdminBrowser(t, g)
	b.signIn()

	// A team, then a user of it, each edited in its row.
	b.open("/teams")
	b.do(chromedp.SendKeys(css(`#team-name`), "platform"),
		chromedp.Click(css(`[data-testid="team-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="team"]`)), ready,
		chromedp.Click(css(`[data-testid="team"] [data-testid="team-edit"]`)),
		chromedp.WaitVisible(css(`[data-testid="team-edit-form"]`)),
		typeInto(`[data-testid="team-edit-form"] [data-testid="input-rpm_limit"]`, "abc"),
		chromedp.Click(css(`[data-testid="team-edit-save"]`)),
		chromedp.WaitVisible(css(`[data-testid="team-edit-form"] [aria-invalid="true"][data-testid="input-rpm_limit"]`)),
		typeInto(`[data-testid="team-edit-form"] [data-testid="input-rpm_limit"]`, "60"),
		chromedp.Click(css(`[data-testid="team-edit-save"]`)),
		waitContains(`[data-testid="team"] [data-testid="team-rpm"]`, "60"))
	if loc, _ := chromedp.Run(b.ctx, chromedp.Location()); loc != b.base+"/teams" {
		t.Fatalf("editing a team in its row navigated to %s", loc)
	}
	b.shots("owners-teams")
	b.open("/users")
	b.do(chromedp.SendKeys(css(`#user-name`), "ana"),
		chromedp.Click(css(`[data-testid="user-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="user"]`)), ready,
		chromedp.Click(css(`[data-testid="user"] [data-testid="user-edit"]`)),
		chromedp.WaitVisible(css(`[data-testid="user-edit-form"]`)),
		typeInto(`[data-testid="user-edit-form"] [data-testid="input-email"]`, "ana@example.com"))
	teamID, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('[data-testid="user-edit-form"] [data-testid="input-team_id"] option')]
		.find(o => o.textContent.trim() === "platform")?.value ?? ""`))
	if err != nil || teamID == "" {
		t.Fatalf("the team in the user's form: %q %v", teamID, err)
	}
	b.do(chromedp.SetValue(css(`[data-testid="user-edit-form"] [data-testid="input-team_id"]`), teamID),
		chromedp.Click(css(`[data-testid="user-edit-save"]`)),
		waitContains(`[data-testid="user"] [data-testid="user-team"]`, "platform"))
	if got := b.text(`[data-testid="user"] [data-testid="user-email"]`); got != "ana@example.com" {
		t.Fatalf("the user's email after the edit: %q", got)
	}
	b.shots("owners-users")

	// Pin the cooling member: taken, and said not to be in effect.
	b.open("/sticky")
	b.do(chromedp.SendKeys(css(`[data-testid="input-model_name"]`), "quota"),
		chromedp.SendKeys(css(`#sticky-ttl`), "1h"), settled) // leaving the name asks for its members
	limitedID, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('#sticky-deployment_id option')]
		.find(o => o.textContent.includes("limited-model"))?.value ?? ""`))
	if err != nil || limitedID == "" {
		t.Fatalf("the limited member in the pin form: %q %v", limitedID, err)
	}
	b.do(chromedp.SetValue(css(`#sticky-deployment_id`), limitedID),
		chromedp.Click(css(`[data-testid="sticky-submit"]`)),
		pollFor("the pin, not in effect", `!!document.querySelector('[data-testid="binding"][data-model="quota"] [data-testid="binding-not-in-effect"]')`, time.Minute))
	if got := b.text(`[data-testid="binding"][data-model="quota"] [data-testid="binding-not-in-effect"]`); !strings.Contains(got, "cooling down") {
		t.Fatalf("the pin to the cooling member: %q", got)
	}
	b.shots("owners-sticky")
	b.open("/pools/quota")
	if got := b.text(`[data-testid="pool-pin"]`); !strings.Contains(got, "limited · limited-model") || !strings.Contains(got, "Not in effect: the member is cooling down") {
		t.Fatalf("the pool page's pin: %q", got)
	}
	reserve, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('[data-testid="member"]')]
		.filter(r => r.querySelector('[data-testid="member-reserve"]'))
		.map(r => r.querySelector('[data-testid="member-upstream-model"]').textContent.trim()).join(",")`))
	if err != nil || reserve != "healthy-model" {
		t.Fatalf("members labelled reserve: %q %v", reserve, err)
	}
	b.shots("owners-pool")

	// The refused request, found with the errors-only filter, names its cause.
	b.open("/logs")
	b.do(chromedp.Click(css(`[data-testid="filter-errors"]`)),
		chromedp.Click(css(`[data-testid="filter-submit"]`)),
		poll("the errors-only list", `location.search.includes("errors=1") && document.querySelectorAll('[data-testid="log"]').length === 1`))
	if got := b.text(`[data-testid="log"] [data-testid="log-error"]`); !strings.Contains(got, "this request could cost up to $0.1000") {
		t.Fatalf("the refused request's error in the Logs: %q", got)
	}

	// A provider form sent back with an error asks for the key again.
	b.open("/providers")
	b.do(chromedp.SendKeys(css(`#provider-name`), "second"),
		chromedp.SetValue(css(`#provider-api_type`), "openai"), settled,
		chromedp.SendKeys(css(`#provider-base_url`), "not a url"),
		chromedp.SendKeys(css(`#provider-api_key`), "sk-typed-once-1234"),
		chromedp.Click(css(`[data-testid="provider-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="provider-key-again"]`)))
	if got := b.value(`#provider-api_key`); got != "" {
		t.Fatalf("the key came back into the form: %q", got)
	}
	if got := b.value(`#provider-name`); got != "second" {
		t.Fatalf("the name typed was lost: %q", got)
	}
	b.do(typeInto(`#provider-base_url`, healthy.URL+"/v1"),
		chromedp.SendKeys(css(`#provider-api_key`), "sk-typed-twice-5678"),
		chromedp.Click(css(`[data-testid="provider-submit"]`)),
		waitContains(`[data-testid="providers"]`, "second"))
	if got := b.text(`[data-testid="providers"]`); !strings.Contains(got, "5678") || strings.Contains(got, "sk-typed-twice") {
		t.Fatalf("the new provider's key, as listed: %q", got)
	}
}
