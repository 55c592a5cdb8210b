package proxy_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"gateway/models"
	"gateway/proxy"
)

// budgetBody asks for at most 5 tokens: with an output price of $2000 per
// million tokens, the worst case and the real cost are both $0.01.
func budgetBody(model string) string {
	return fmt.Sprintf(`{"model":%q,"max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`, model)
}

func (e *env) keyWith(k models.VirtualKey) (string, int64) {
	e.t.Helper()
	k.Name = cmpString(k.Name, "budgeted")
	key, err := e.store.CreateKey(context.Background(), &k)
	if err != nil {
		e.t.Fatal(err)
	}
	e.reload()
	return key, k.ID
}

func cmpString(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// waitSpend polls the stored spend of a key until it is want (5 s at most).
func (e *env) waitSpend(id int64, want float64) float64 {
	e.t.Helper()
	var got float64
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		k, err := e.store.GetKey(context.Background(), id)
		if err != nil {
			e.t.Fatal(err)
		}
		if got = k.SpendUSD; math.Abs(got-want) < 0.005 {
			break
		}
	}
	return got
}

// TestBudgetHoldsUnderConcurrency: 200 concurrent requests against a budget
// that allows 50 let exactly 50 through, and the recorded spend is the sum
// of their costs to the cent.
func TestBudgetHoldsUnderConcurrency(t *testing.T) {
	e, _ := newRouterEnv(t)
	e.addDeployment(models.Deployment{PublicName: "paid", UpstreamModel: "u", Prices: models.PricesOf(0, 2000)})
	key, id := e.keyWith(models.VirtualKey{Budget: models.Budget{MaxBudgetUSD: ptr(0.50)}})
	e.up.setRespond(func(w http.ResponseWriter, r *http.Request, req upstreamRequest) {
		time.Sleep(20 * time.Millisecond) // keep many requests in flight at once
		writeFakeCompletion(w, req)
	})
	var mu sync.Mutex
	statuses := map[int]int{}
	var refusal string
	var wg sync.WaitGroup
	for range 200 {
		wg.Go(func() {
			resp, body := e.post("/v1/chat/completions", key, strings.NewReader(budgetBody("paid")))
			mu.Lock()
			defer mu.Unlock()
			statuses[resp.StatusCode]++
			if resp.StatusCode == 429 {
				refusal = string(body)
			}
		})
	}
	wg.Wait()
	if statuses[200] != 50 || statuses[429] != 150 {
		t.Fatalf("statuses %v, want 50 × 200 and 150 × 429", statuses)
	}
	mustContain(t, "refusal", refusal, `budget exceeded: key \"budgeted\" has spent $`)
	mustContain(t, "refusal", refusal, "of its $0.5000 budget")
	if got := e.waitSpend(id, 0.50); math.Round(got*100) != 50 {
		t.Fatalf("recorded spend $%v, want $0.50", got)
	}
	var sum float64
	var logs []models.RequestLog
	for deadline := time.Now().Add(5 * time.Second); len(logs) < 200 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var err error
		if logs, err = e.store.ListRequestLogs(context.Background(), models.LogFilter{Limit: 1000}); err != nil {
			t.Fatal(err)
		}
	}
	if len(logs) != 200 {
		t.Fatalf("%d request logs, want 200", len(logs))
	}
	for _, l := range logs {
		sum += l.CostUSD
	}
	if math.Round(sum*100) != 50 {
		t.Fatalf("the request logs add up to $%v, want $0.50", sum)
	}
	// A restart loses nothing the database acknowledged.
	fresh := proxy.New(e.store, proxy.Options{})
	defer fresh.Close(context.Background())
	if err := fresh.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	gw := httptestServer(t, fresh)
	resp, body := e.postTo(gw, "/v1/chat/completions", key, budgetBody("paid"))
	if resp.StatusCode != 429 {
		t.Fatalf("after a restart the spent budget admitted a request: %d %s", resp.StatusCode, body)
	}
}

// TestBudgetsOfUserAndTeam: the refusal names the budget that is exceeded;
// a soft budget only warns.
func TestBudgetsOfUserAndTeam(t *testing.T) {
	e, _ := newRouterEnv(t)
	e.addDeployment(models.Deployment{PublicName: "paid", UpstreamModel: "u", Prices: models.PricesOf(0, 2000)})
	ctx := context.Background()
	team := &models.Team{Name: "research", Budget: models.Budget{MaxBudgetUSD: ptr(0.02)}}
	user := &models.User{Name: "ada", Budget: models.Budget{SoftBudgetUSD: ptr(0.01)}}
	if err := e.store.CreateTeam(ctx, team); err != nil {
		t.Fatal(err)
	}
	if err := e.store.CreateUser(ctx, user); err != nil {
		t.Fatal(err)
	}
	key, _ := e.keyWith(models.VirtualKey{TeamID: &team.ID, UserID: &user.ID})
	for i := range 2 {
		resp, body := e.postTo(e.gw, "/v1/chat/completions", key, budgetBody("paid"))
		wantStatus(t, resp, body, 200)
		if i == 1 && !strings.Contains(resp.Header.Get("X-Gateway-Budget-Warning"), `user "ada"`) {
			t.Fatalf("no soft-budget warning after the user's soft budget was reached: %v", resp.Header)
		}
	}
	resp, body := e.postTo(e.gw, "/v1/chat/completions", key, budgetBody("paid"))
	wantStatus(t, resp, body, 429)
	mustContain(t, "refusal", decodeError(t, body).Error.Message, `team "research" has spent $0.0200 of its $0.0200 budget`)
	// The Anthropic caller gets it in its own shape.
	resp, body = e.postTo(e.gw, "/v1/messages", key, budgetBody("paid"))
	if resp.StatusCode != 429 || !strings.Contains(string(body), `"type":"error"`) {
		t.Fatalf("Anthropic caller: %d %s", resp.StatusCode, body)
	}
}

// TestBudgetPeriodResets: a budget with a reset period admits again once the
// period is over, and the stored spend starts again from zero.
func TestBudgetPeriodResets(t *testing.T) {
	e, clock := newRouterEnv(t)
	e.addDeployment(models.Deployment{PublicName: "paid", UpstreamModel: "u", Prices: models.PricesOf(0, 2000)})
	key, id := e.keyWith(models.VirtualKey{Budget: models.Budget{MaxBudgetUSD: ptr(0.01), BudgetDuration: "30m"}})
	resp, body := e.postTo(e.gw, "/v1/chat/completions", key, budgetBody("paid"))
	wantStatus(t, resp, body, 200)
	resp, body = e.postTo(e.gw, "/v1/chat/completions", key, budgetBody("paid"))
	wantStatus(t, resp, body, 429)
	mustContain(t, "refusal", decodeError(t, body).Error.Message, "it resets at")
	e.waitSpend(id, 0.01)
	clock.Advance(31 * time.Minute)
	resp, body = e.postTo(e.gw, "/v1/chat/completions", key, budgetBody("paid"))
	wantStatus(t, resp, body, 200)
	if got := e.waitSpend(id, 0.01); math.Round(got*100) != 1 {
		t.Fatalf("stored spend after the reset: $%v, want the new period's $0.01", got)
	}
}

// TestRateLimits: rpm and tpm per key, 429 with Retry-After.
func TestRateLimits(t *testing.T) {
	e, clock := newRouterEnv(t)
	e.addDeployment(models.Deployment{PublicName: "m", UpstreamModel: "u"})
	rpmKey, _ := e.keyWith(models.VirtualKey{Name: "rpm", RateLimits: models.RateLimits{RPMLimit: ptr(3)}})
	for range 3 {
		resp, body := e.postTo(e.gw, "/v1/chat/completions", rpmKey, chatBody("m", false))
		wantStatus(t, resp, body, 200)
	}
	resp, body := e.postTo(e.gw, "/v1/chat/completions", rpmKey, chatBody("m", false))
	wantStatus(t, resp, body, 429)
	mustContain(t, "refusal", decodeError(t, body).Error.Message, `key "rpm" is limited to 3 requests per minute`)
	if ra := resp.Header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Fatalf("Retry-After %q", ra)
	}
	clock.Advance(61 * time.Second)
	resp, body = e.postTo(e.gw, "/v1/chat/completions", rpmKey, chatBody("m", false))
	wantStatus(t, resp, body, 200)

	tpmKey, _ := e.keyWith(models.VirtualKey{Name: "tpm", RateLimits: models.RateLimits{TPMLimit: ptr(20)}})
	for i, want := range []int{200, 200, 429} { // 17 tokens each: the third finds 34 counted
		resp, body := e.postTo(e.gw, "/v1/chat/completions", tpmKey, chatBody("m", false))
		if resp.StatusCode != want {
			t.Fatalf("request %d: %d, want %d: %s", i+1, resp.StatusCode, want, body)
		}
	}
}

func httptestServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

// postTo sends a raw request with a key to a gateway server.
func (e *env) postTo(s *httptest.Server, path, key, body string) (*http.Response, []byte) {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	return e.do(req)
}

// TestBudgetRefusalSaysWhy: a request refused because its own worst case
// does not fit what is left says so, and how much is left; it is not told
// that the budget is spent.
func TestBudgetRefusalSaysWhy(t *testing.T) {
	e, _ := newRouterEnv(t)
	e.addDeployment(models.Deployment{PublicName: "paid", UpstreamModel: "u", Prices: models.PricesOf(0, 25)})
	key, _ := e.keyWith(models.VirtualKey{Budget: models.Budget{MaxBudgetUSD: ptr(0.05)}})
	// No max_tokens: 4096 output tokens at $25 a million, about $0.10.
	resp, body := e.post("/v1/chat/completions", key, strings.NewReader(`{"model":"paid","messages":[{"role":"user","content":"hi"}]}`))
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	msg := decodeError(t, body).Error.Message
	mustContain(t, "refusal", msg, "this request could cost up to $0.10")
	mustContain(t, "refusal", msg, `more than the $0.0500 left of key "budgeted"'s $0.0500 budget (spent $0.0000)`)
	mustContain(t, "refusal", msg, "ask for fewer max_tokens")
	if strings.Contains(msg, "has spent") {
		t.Errorf("a budget with room left is said to be spent: %s", msg)
	}
	// With a small enough max_tokens the same key is served.
	resp, body = e.post("/v1/chat/completions", key, strings.NewReader(`{"model":"paid","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("with max_tokens 100: %d %s", resp.StatusCode, body)
	}
}

// TestBudgetNeverFailsOpen: a key under a budget is refused on an entry
// with no price anywhere, in the caller's protocol, naming the model and
// what to do, and nothing reaches the upstream; a key without a budget is
// served and its cost logged as unknown. Once priced, or with
// allow_unpriced_with_budget, the budgeted key is served; a priced
// fallback serves it meanwhile.
func TestBudgetNeverFailsOpen(t *testing.T) {
	e, _ := newRouterEnv(t)
	id := e.addDeployment(models.Deployment{PublicName: "private", UpstreamModel: "llama-private"})
	key, _ := e.keyWith(models.VirtualKey{Budget: models.Budget{MaxBudgetUSD: ptr(5.0)}})
	for _, call := range []struct{ path, body, shape string }{
		{"/v1/chat/completions", chatBody("private", false), `"error":{"message":"the model \"private\" has no price`},
		{"/v1/messages", messagesBody("private"), `"type":"error","error":{"type":"permission_error","message":"the model \"private\" has no price`},
	} {
		resp, body := e.post(call.path, key, strings.NewReader(call.body))
		wantStatus(t, resp, body, http.StatusForbidden)
		mustContain(t, call.path, string(body), call.shape)
		mustContain(t, call.path, string(body), "input_price and output_price (0 if it is free)")
		mustContain(t, call.path, string(body), "allow_unpriced_with_budget")
	}
	if n := e.hits("llama-private"); n != 0 {
		t.Fatalf("the upstream was called %d times for a refused key", n)
	}
	// No budget: served, the cost unknown.
	resp, body := e.chat("private")
	wantStatus(t, resp, body, 200)
	if got := resp.Header.Get("X-Gateway-Cost-Usd"); got != "unknown" {
		t.Errorf("X-Gateway-Cost-Usd %q, want unknown", got)
	}
	// Three rows: the two refusals (nothing billed) and this one.
	for _, row := range e.waitLogs(3) {
		if want := map[int]string{403: "", 200: models.PriceSourceNone}[row.Status]; row.PriceSource != want || row.CostUSD != 0 {
			t.Errorf("row of status %d: price source %q cost %v, want %q and 0", row.Status, row.PriceSource, row.CostUSD, want)
		}
	}
	// A priced fallback serves the budgeted key.
	e.addDeployment(models.Deployment{PublicName: "priced", UpstreamModel: "u-priced", Prices: models.PricesOf(1, 2)})
	e.setFallbacks("private", models.FallbackGeneral, "priced")
	e.reload()
	resp, body = e.post("/v1/chat/completions", key, strings.NewReader(chatBody("private", false)))
	wantStatus(t, resp, body, 200)
	if got := resp.Header.Get("X-Gateway-Upstream-Model"); got != "u-priced" {
		t.Errorf("served by %q, want the priced fallback", got)
	}
	e.setFallbacks("private", models.FallbackGeneral)
	// The admin allows unpriced entries: served, cost unknown.
	if err := e.store.PutSetting(context.Background(), models.SettingAllowUnpricedWithBudget, "true"); err != nil {
		t.Fatal(err)
	}
	e.reload()
	resp, body = e.post("/v1/chat/completions", key, strings.NewReader(chatBody("private", false)))
	wantStatus(t, resp, body, 200)
	if err := e.store.PutSetting(context.Background(), models.SettingAllowUnpricedWithBudget, "false"); err != nil {
		t.Fatal(err)
	}
	// Priced (free, even): served, and billed.
	if _, err := e.store.UpdateDeployment(context.Background(), id, func(d *models.Deployment) error {
		d.Prices = models.PricesOf(0, 0)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.reload()
	resp, body = e.post("/v1/chat/completions", key, strings.NewReader(chatBody("private", false)))
	wantStatus(t, resp, body, 200)
	if got := resp.Header.Get("X-Gateway-Cost-Usd"); got != "0" {
		t.Errorf("X-Gateway-Cost-Usd %q, want 0 for a free entry", got)
	}
}
