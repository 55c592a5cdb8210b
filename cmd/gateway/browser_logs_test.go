package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserLogsTrace: two requests through the running gateway, one that
// a 429 sent to the reserve, one that failed on both members; on the Logs
// page an admin filters errors only, opens the failed request and reads its
// two attempts: who answered what, and why the router moved on.
func TestBrowserLogsTrace(t *testing.T) {
	g, _ := startGateway(t, testConfig("", t.TempDir()))
	limited, _ := scriptedUpstream(t, http.StatusTooManyRequests, "309788", 0)
	failing, _ := scriptedUpstream(t, http.StatusInternalServerError, "", 0)
	healthy := newFakeOpenAI(t)
	providers := map[string]any{}
	for name, url := range map[string]string{"limited": limited.URL, "failing": failing.URL, "healthy": healthy.URL} {
		providers[name] = addProvider(t, g, name, url)
	}
	// In each pool the limited member (weight 1) goes first, the other
	// (weight 0, a reserve) only when it fails.
	for pool, reserve := range map[string]string{"team": "healthy", "broken": "failing"} {
		for _, m := range []struct {
			provider string
			weight   float64
		}{{"limited", 1}, {reserve, 0}} {
			mustAPI(t, g, "POST", "/api/models", map[string]any{"public_name": pool, "provider_id": providers[m.provider],
				"upstream_model": m.provider + "-model", "weight": m.weight}, http.StatusCreated)
		}
	}
	mustAPI(t, g, "PUT", "/api/pools/broken", map[string]any{"num_retries": 1}, http.StatusOK)
	key := mustAPI(t, g, "POST", "/api/keys", map[string]any{"name": "traced"}, http.StatusCreated)["key"].(string)
	client := sdk(g, key)
	p := chatParams()
	p.Model = "team"
	if _, err := client.Chat.Completions.New(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	p.Model = "broken"
	if _, err := client.Chat.Completions.New(context.Background(), p); err == nil {
		t.Fatal("the broken pool served the request")
	}
	waitForLogs(t, g, 2)

	b := newAdminBrowser(t, g)
	row := `[data-testid="log"]`
	b.signIn()
	b.do(chromedp.Navigate(b.base+"/logs"), ready, count(row, 2))
	b.shots("logs-page")

	b.do(chromedp.Click(css(`[data-testid="filter-errors"]`)),
		chromedp.Click(css(`[data-testid="filter-submit"]`)),
		count(row, 1))
	loc, err := chromedp.Run(b.ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(loc, "/logs?") || !strings.Contains(loc, "errors=1") || !strings.Contains(b.text(row), "broken") {
		t.Fatalf("errors only: %s shows %q, want the broken pool's request", loc, b.text(row))
	}
	b.do(chromedp.Click(css(row+` [data-testid="log-link"]`)),
		count(`[data-testid="attempt"]`, 2))
	attempt := func(n int, id string) string {
		return b.text(fmt.Sprintf(`[data-testid="attempt"]:nth-child(%d) [data-testid="%s"]`, n, id))
	}
	if got := attempt(1, "attempt-member"); !strings.Contains(got, "broken") || !strings.Contains(got, "limited-model") {
		t.Errorf("first attempt went to %q, want the limited member", got)
	}
	if s, why := attempt(1, "attempt-status"), attempt(1, "attempt-reason"); s != "429" ||
		!strings.HasPrefix(why, "429, retry-after 309788s, cooling down until ") {
		t.Errorf("first attempt: %s, %q", s, why)
	}
	if m, s, why := attempt(2, "attempt-member"), attempt(2, "attempt-status"), attempt(2, "attempt-reason"); !strings.Contains(m, "failing-model") ||
		s != "500" || !strings.HasPrefix(why, "5xx") {
		t.Errorf("second attempt: %q %s %q", m, s, why)
	}
	if loc, _ := chromedp.Run(b.ctx, chromedp.Location()); !strings.Contains(loc, "/logs/") {
		t.Errorf("the detail view is at %s", loc)
	}
	b.shots("log-detail")
}

// waitForLogs polls GET /api/logs until n request logs are written: the log
// writer flushes in batches.
func waitForLogs(t *testing.T, g *Gateway, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, body := api(t, g, "GET", "/api/logs", nil)
		var logs []map[string]any
		if err := json.Unmarshal(body, &logs); err != nil {
			t.Fatal(err)
		}
		if len(logs) >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d request logs after 10 s, want %d", len(logs), n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
