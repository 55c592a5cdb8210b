package handlers_test

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"gateway/models"
	"gateway/models/dbtest"
)

func TestDashboardUsage(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		p := mustProvider(t, s, "openai", "sk-provider-0000000000")
		d1 := mustDeployment(t, s, &models.Deployment{PublicName: "gpt-4o", ProviderID: p.ID, UpstreamModel: "gpt-4o-2024"})
		d2 := mustDeployment(t, s, &models.Deployment{PublicName: "mini", ProviderID: p.ID, UpstreamModel: "gpt-4o-mini"})
		gone := int64(999)
		recent, earlier := minutesAgo(10), minutesAgo(180) // in two different hours
		mustLogs(t, s,
			models.RequestLog{CreatedAt: minutesAgo(30 * 60), Model: "gpt-4o", DeploymentID: &d1.ID, Status: 200, CostUSD: 7},
			models.RequestLog{CreatedAt: earlier, Model: "mini", DeploymentID: &d2.ID, Status: 200, LatencyMS: 80, InputTokens: 5},
			models.RequestLog{CreatedAt: earlier, Model: "mini", DeploymentID: &gone, ProviderName: "old", UpstreamModel: "m", Status: 200},
			models.RequestLog{CreatedAt: recent, Model: "gpt-4o", DeploymentID: &d1.ID, Status: 200, LatencyMS: 100, InputTokens: 100, OutputTokens: 10, CostUSD: 0.5},
			models.RequestLog{CreatedAt: recent, Model: "gpt-4o", DeploymentID: &d1.ID, Status: 200, LatencyMS: 300, InputTokens: 100, OutputTokens: 10, CostUSD: 0.5},
			models.RequestLog{CreatedAt: recent, Model: "gpt-4o", Status: 500, LatencyMS: 50},
		)
		b := ta.browser(t)
		b.signIn()

		rec := b.get("/")
		wantStatus(t, "GET /", rec, http.StatusOK)
		doc := parseHTML(t, rec)
		if _, ok := testid(doc, "window-24h").Attr("aria-current"); !ok {
			t.Error("the default window is not 24h")
		}
		for id, want := range map[string]string{"total-requests": "5", "total-success-rate": "80%", "total-latency": "106 ms",
			"total-tokens": "225", "total-cost": "$1.00"} {
			if got := text(doc, id); got != want {
				t.Errorf("%s = %q, want %q", id, got, want)
			}
		}
		// Requests: the recent bucket has a succeeded and a failed bar, the
		// one 3 h ago a succeeded bar. Tokens: input and output recently, input
		// 3 h ago. Cost: only recently. Latency: a point per bucket with requests.
		for chart, want := range map[string]int{"chart-requests": 3, "chart-tokens": 3, "chart-cost": 1, "chart-latency": 0} {
			if got := testid(testid(doc, chart), "chart-bar").Length(); got != want {
				t.Errorf("%s has %d bars, want %d", chart, got, want)
			}
		}
		if got := testid(testid(doc, "chart-latency"), "chart-point").Length(); got != 2 {
			t.Errorf("latency chart has %d points, want 2", got)
		}
		if got := testid(testid(doc, "chart-requests"), "chart-bar").Filter(".s1").Length(); got != 1 {
			t.Errorf("%d failed bars, want 1", got)
		}
		byModel := testid(doc, "usage-model")
		if byModel.Length() != 2 || text(byModel.Eq(0), "usage-model-requests") != "3" || text(byModel.Eq(0), "usage-model-success") != "66.7%" {
			t.Errorf("by model: %s", text(doc, "usage-model-table"))
		}
		deployments := testid(doc, "usage-deployment")
		if deployments.Length() != 3 {
			t.Fatalf("by deployment: %d rows, want 3 (the failed request had none)", deployments.Length())
		}
		if got := text(deployments.Eq(0), "usage-deployment-requests"); got != "2" {
			t.Errorf("busiest deployment has %s requests", got)
		}
		want := map[string]bool{"gpt-4o #" + strconv.FormatInt(d1.ID, 10) + " · openai / gpt-4o-2024": true,
			"mini #" + strconv.FormatInt(d2.ID, 10) + " · openai / gpt-4o-mini": true, "#999 deleted · old / m": true}
		deployments.Each(func(_ int, row *goquery.Selection) {
			if name := strings.Join(strings.Fields(row.Find("td").First().Text()), " "); !want[name] {
				t.Errorf("deployment row %q", name)
			}
		})
		if testid(doc, "live-unavailable").Length() != 1 {
			t.Error("without a proxy the live section must say so")
		}

		doc = parseHTML(t, b.get("/?window=1h"))
		if text(doc, "total-requests") != "3" || testid(testid(doc, "chart-requests"), "chart-bar").Length() != 2 {
			t.Errorf("1h window: %s requests", text(doc, "total-requests"))
		}
		doc = parseHTML(t, b.get("/?window=7d"))
		if text(doc, "total-requests") != "6" || text(doc, "total-cost") != "$8.00" {
			t.Errorf("7d window: %s requests, %s", text(doc, "total-requests"), text(doc, "total-cost"))
		}
		rec = b.do("GET", "/?window=nonsense", nil, hx())
		wantStatus(t, "htmx GET /", rec, http.StatusOK)
		wantPartial(t, "htmx GET /", rec)
		if _, ok := testid(parseHTML(t, rec), "window-24h").Attr("aria-current"); !ok {
			t.Error("an unknown window is not the default")
		}
	})
}

// TestDashboardUsageHasNoRowLimit holds the dashboard to every log of the
// window: it once read at most 20,000 of them.
func TestDashboardUsageHasNoRowLimit(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		const n = 25_000
		gone := int64(4242)
		logs := make([]models.RequestLog, 0, n)
		for i := range n {
			// Within the last 23 hours, which the 24 h window always holds;
			// every tenth failed, half of those never answered.
			l := models.RequestLog{CreatedAt: minutesAgo(i % (23 * 60)), Model: "a", Status: 200, LatencyMS: 100, CostUSD: 0.25}
			if i%2 == 1 {
				l.Model, l.LatencyMS, l.DeploymentID, l.ProviderName, l.UpstreamModel = "b", 300, &gone, "old", "m"
			}
			if i%10 == 0 {
				l.Status = 500
			}
			if i%20 == 0 {
				l.Status = 0
			}
			logs = append(logs, l)
		}
		for batch := range slices.Chunk(logs, 5000) {
			mustLogs(t, s, batch...)
		}
		b := ta.browser(t)
		b.signIn()
		doc := parseHTML(t, b.get("/?window=24h"))
		for id, want := range map[string]string{"total-requests": "25,000", "total-success-rate": "90%",
			"total-latency": "200 ms", "total-cost": "$6,250.00"} {
			if got := text(doc, id); got != want {
				t.Errorf("%s = %q, want %q", id, got, want)
			}
		}
		byModel := testid(doc, "usage-model")
		if byModel.Length() != 2 || text(byModel.Eq(0), "usage-model-requests") != "12,500" || text(byModel.Eq(1), "usage-model-requests") != "12,500" {
			t.Errorf("by model: %s", text(doc, "usage-model-table"))
		}
		deployments := testid(doc, "usage-deployment")
		if deployments.Length() != 1 || text(deployments, "usage-deployment-requests") != "12,500" ||
			strings.Join(strings.Fields(deployments.Find("td").First().Text()), " ") != "#4242 deleted · old / m" {
			t.Errorf("by deployment: %s", text(doc, "usage-deployment-table"))
		}
		if testid(doc, "usage-truncated").Length() != 0 {
			t.Error("the dashboard still says it read only part of the window")
		}
	})
}

func TestDashboardEmpty(t *testing.T) {
	ta := newTestApp(t, dbtest.MustOpenStore(t, "", t.TempDir()))
	b := ta.browser(t)
	b.signIn()
	doc := parseHTML(t, b.get("/"))
	if text(doc, "total-requests") != "0" || text(doc, "total-success-rate") != "–" || testid(doc, "chart-bar").Length() != 0 {
		t.Errorf("empty dashboard: %s", text(doc, "totals"))
	}
	if testid(doc, "chart-svg").Length() != 4 || testid(doc, "usage-model-empty").Length() != 1 {
		t.Error("empty dashboard without its charts or the empty tables")
	}
}

func TestDashboardLiveStats(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		e := newRuntimeEnv(t, s)
		ok := e.entry(t, "gpt-4o", "gpt-4o-2024", ptr(1.0), true)
		e.entry(t, "limited", rateLimitedModel, nil, true)
		e.reload(t)
		if status, _ := e.chat(t, "gpt-4o"); status != http.StatusOK {
			t.Fatalf("chat: %d", status)
		}
		if status, _ := e.chat(t, "limited"); status != http.StatusTooManyRequests {
			t.Fatalf("chat limited: %d", status)
		}
		b := e.browser(t)
		b.signIn()
		doc := parseHTML(t, b.get("/"))
		rows := testid(doc, "live-row")
		if rows.Length() != 2 {
			t.Fatalf("%d live rows, want 2", rows.Length())
		}
		row := rows.Filter(`[data-deployment-id="` + strconv.FormatInt(ok, 10) + `"]`)
		if text(row, "live-requests") != "1" || text(row, "live-success") != "100%" {
			t.Errorf("live row: %s", row.Text())
		}
		if testid(rows.Not(`[data-deployment-id="`+strconv.FormatInt(ok, 10)+`"]`), "live-last-error").Length() != 1 {
			t.Error("the rate-limited member shows no last error")
		}
	})
}

// TestDashboardAttention: the dashboard lists a member cooling down (with
// its deadline), a member whose last check failed, a key at 90 % of its
// budget; with none of these it says so.
func TestDashboardAttention(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		e := newRuntimeEnv(t, s)
		ctx := context.Background()
		first := e.entry(t, "gpt-4o", "gpt-4o-2024", ptr(1.0), true)
		b := e.browser(t)
		b.signIn()
		// No price in the entry nor the catalog (which has no gpt-4o-2024):
		// its cost is unknown until an admin sets one.
		doc := parseHTML(t, b.get("/"))
		if item := testid(doc, "attention-unpriced"); item.Length() != 1 || !strings.Contains(item.Text(), "gpt-4o-2024 in pool gpt-4o has no price") {
			t.Errorf("unpriced entry: %q", item.Text())
		}
		if _, err := s.UpdateDeployment(ctx, first, func(d *models.Deployment) error {
			d.Prices = models.PricesOf(2.5, 10)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if doc := parseHTML(t, b.get("/")); testid(doc, "attention-none").Length() != 1 {
			t.Fatalf("a healthy gateway needs attention: %s", testid(doc, "attention").Text())
		}

		e.entry(t, "limited", rateLimitedModel, nil, true)
		broken := e.entry(t, "gpt-4o", "gpt-4o-broken", ptr(1.0), true)
		e.reload(t)
		if status, _ := e.chat(t, "limited"); status != http.StatusTooManyRequests {
			t.Fatalf("chat limited: %d", status)
		}
		if err := s.SaveHealthCheck(ctx, &models.HealthCheck{DeploymentID: broken, CheckedAt: testNow, OK: false, Error: "HTTP 500: boom"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateKey(ctx, &models.VirtualKey{Name: "nearly spent", Budget: models.Budget{MaxBudgetUSD: ptr(1.0), SpendUSD: 0.9}}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateKey(ctx, &models.VirtualKey{Name: "fine", Budget: models.Budget{MaxBudgetUSD: ptr(1.0), SpendUSD: 0.5}}); err != nil {
			t.Fatal(err)
		}
		doc = parseHTML(t, b.get("/"))
		cool := testid(doc, "attention-cooldown")
		if cool.Length() != 1 || !strings.Contains(cool.Text(), rateLimitedModel+" in pool limited is cooling down until") ||
			cool.Find("time[data-relative]").Length() != 1 {
			t.Errorf("cooling member: %q", cool.Text())
		}
		if href, _ := cool.Find("a").Attr("href"); href != "/pools/limited" {
			t.Errorf("the cooling member links to %q", href)
		}
		if check := testid(doc, "attention-check"); check.Length() != 1 || !strings.Contains(check.Text(), "gpt-4o-broken in pool gpt-4o failed its last check") ||
			!strings.Contains(check.Text(), "HTTP 500: boom") {
			t.Errorf("failed check: %q", check.Text())
		}
		if budget := testid(doc, "attention-budget"); budget.Length() != 1 || !strings.Contains(budget.Text(), `key "nearly spent" has spent $0.9000 of its $1.0000 budget (90%)`) {
			t.Errorf("budgets near their limit: %q", budget.Text())
		}
		if testid(doc, "attention-none").Length() != 0 {
			t.Error("the panel says nothing needs attention")
		}
	})
}
