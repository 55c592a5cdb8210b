package proxy_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"gateway/models"
)

// scriptLatency makes the fake upstream take the given time on the fake
// clock for each upstream model before it answers.
func (e *env) scriptLatency(clock *fakeClock, latency map[string]time.Duration) {
	e.up.setRespond(func(w http.ResponseWriter, r *http.Request, req upstreamRequest) {
		clock.Advance(latency[fmt.Sprint(req.Body["model"])])
		if req.Body["stream"] == true {
			writeFakeStream(w, req)
			return
		}
		writeFakeCompletion(w, req)
	})
}

// servedBy routes one chat request and returns the upstream model that
// served it, or "" with the response when none did.
func (e *env) servedBy(model string) (string, *http.Response, []byte) {
	e.t.Helper()
	resp, body := e.chat(model)
	if resp.StatusCode != http.StatusOK {
		return "", resp, body
	}
	return resp.Header.Get("x-gateway-upstream-model"), resp, body
}

// strategyPool is three members in one pool: m-fast (5 ms, 10 USD per
// million in and out, 20 rpm), m-mid (20 ms, 2 USD, 10 rpm) and m-slow
// (50 ms, 1 USD, 30 rpm), weight 1 each.
func strategyPool(t *testing.T, strategy string) (*env, *fakeClock) {
	e, clock := newRouterEnv(t)
	for _, d := range []struct {
		model string
		price float64
		rpm   int
	}{{"m-fast", 5, 20}, {"m-mid", 1, 10}, {"m-slow", 0.5, 30}} {
		e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: d.model, Weight: ptr(1.0),
			Prices: models.PricesOf(d.price, d.price), RateLimits: models.RateLimits{RPMLimit: ptr(d.rpm)}})
	}
	e.setPool("p", models.PoolSetting{RoutingStrategy: strategy})
	e.reload()
	e.scriptLatency(clock, map[string]time.Duration{"m-fast": 5 * time.Millisecond, "m-mid": 20 * time.Millisecond,
		"m-slow": 50 * time.Millisecond})
	return e, clock
}

// TestStrategiesEndToEnd routes 60 requests through the running gateway
// under each strategy, against members whose per-minute limits add up to
// 60: the order they fill in is the strategy's; the 61st gets a 429 with
// Retry-After to the next minute, in which the pool serves again. The logged
// counts are the "run of each".
func TestStrategiesEndToEnd(t *testing.T) {
	order := []string{"m-fast", "m-mid", "m-slow"}
	for _, strategy := range models.RoutingStrategies {
		t.Run(strategy, func(t *testing.T) {
			e, clock := strategyPool(t, strategy)
			var seq []string
			counts := map[string]int{}
			for i := range 60 {
				m, resp, body := e.servedBy("p")
				if m == "" {
					t.Fatalf("request %d: %d %s", i+1, resp.StatusCode, body)
				}
				seq = append(seq, m)
				counts[m]++
				if i == 29 {
					t.Logf("%s, first 30 requests: m-fast %d, m-mid %d, m-slow %d", strategy, counts["m-fast"], counts["m-mid"], counts["m-slow"])
					checkFirst30(t, strategy, seq, counts)
				}
			}
			t.Logf("%s, 60 requests: m-fast %d, m-mid %d, m-slow %d", strategy, counts["m-fast"], counts["m-mid"], counts["m-slow"])
			for i, want := range []int{20, 10, 30} {
				if counts[order[i]] != want {
					t.Errorf("%s served %d requests in the minute; its rpm_limit is %d", order[i], counts[order[i]], want)
				}
			}
			resp, body := e.chat("p")
			if resp.StatusCode != http.StatusTooManyRequests {
				t.Fatalf("61st request: %d %s; want 429", resp.StatusCode, body)
			}
			wait := 60 - clock.Now().Second()
			if got := resp.Header.Get("Retry-After"); got != fmt.Sprint(wait) {
				t.Errorf("Retry-After %q; want %d (the seconds left in the minute)", got, wait)
			}
			mustContain(t, "429 message", decodeError(t, body).Error.Message, "no healthy deployments for this model")
			if code := decodeError(t, body).Error.Code; code != "all_members_at_limit" {
				t.Errorf("code %q", code)
			}
			clock.Advance(time.Duration(wait) * time.Second)
			if m, resp, body := e.servedBy("p"); m == "" {
				t.Fatalf("next minute: %d %s", resp.StatusCode, body)
			}
		})
	}
}

func checkFirst30(t *testing.T, strategy string, seq []string, counts map[string]int) {
	t.Helper()
	switch strategy {
	case models.StrategyLatencyBased:
		// Each member is explored once, then the fastest serves up to its
		// limit, then the next fastest.
		explored := map[string]bool{seq[0]: true, seq[1]: true, seq[2]: true}
		if len(explored) != 3 {
			t.Errorf("first three requests %v: want each member explored once", seq[:3])
		}
		// Then m-fast (5 ms) alone takes its 19 more up to its limit of
		// 20, then m-mid (20 ms) 8 more: 20 + 9 + 1 = 30.
		if counts["m-fast"] != 20 || counts["m-mid"] != 9 || counts["m-slow"] != 1 {
			t.Errorf("latency-based, first 30: %v; want m-fast 20, m-mid 9, m-slow 1", counts)
		}
	case models.StrategyCostBased:
		// The cheapest (m-slow, 1 USD) to its limit of 30.
		if counts["m-slow"] != 30 {
			t.Errorf("cost-based, first 30: %v; want all on m-slow, the cheapest", counts)
		}
	case models.StrategyUsageBased:
		// Headroom kept even: halfway through each has half of its limit.
		if abs(counts["m-fast"]-10) > 1 || abs(counts["m-mid"]-5) > 1 || abs(counts["m-slow"]-15) > 1 {
			t.Errorf("usage-based, first 30: %v; want about 10, 5, 15 (half of each limit)", counts)
		}
	case models.StrategyLeastBusy, models.StrategySimpleShuffle:
		// One at a time nobody is busy: the weights (1 each) share.
		for _, m := range []string{"m-fast", "m-mid", "m-slow"} {
			if counts[m] == 0 {
				t.Errorf("%s, first 30: %v; want every member used", strategy, counts)
			}
		}
	}
}

func abs(n int) int { return max(n, -n) }

// TestLeastBusyEndToEnd: while one member holds a slow request, the pool's
// other requests go to the idle one.
func TestLeastBusyEndToEnd(t *testing.T) {
	e, _ := newRouterEnv(t)
	for _, m := range []string{"m-a", "m-b"} {
		e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: m, Weight: ptr(1.0)})
	}
	e.setPool("p", models.PoolSetting{RoutingStrategy: models.StrategyLeastBusy})
	e.reload()
	held, release := make(chan string, 1), make(chan struct{})
	var once sync.Once
	e.up.setRespond(func(w http.ResponseWriter, r *http.Request, req upstreamRequest) {
		first := false
		once.Do(func() { first = true })
		if first {
			held <- fmt.Sprint(req.Body["model"])
			<-release
		}
		writeFakeCompletion(w, req)
	})
	done := make(chan string)
	go func() {
		m, _, _ := e.servedBy("p")
		done <- m
	}()
	busy := <-held
	counts := map[string]int{}
	for range 20 {
		m, resp, body := e.servedBy("p")
		if m == "" {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
		counts[m]++
	}
	close(release)
	if m := <-done; m != busy {
		t.Errorf("the held request was served by %q, held at %q", m, busy)
	}
	if counts[busy] != 0 {
		t.Fatalf("while %s held a request, it got %d of 20 more (%v)", busy, counts[busy], counts)
	}
	t.Logf("least-busy, one request held at %s: %v", busy, counts)
}

// TestTiersEndToEnd: tier 0 serves; when its member cools down the same
// request is retried on tier 1, which serves until tier 0 is back; a tier-0
// member at its limit hands over to tier 1 until the next minute.
func TestTiersEndToEnd(t *testing.T) {
	e, clock := newRouterEnv(t)
	e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: "primary", Weight: ptr(1.0),
		RateLimits: models.RateLimits{RPMLimit: ptr(5)}})
	e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: "backup", Weight: ptr(100.0), Priority: 1})
	e.reload()
	for i := range 3 {
		if m, resp, body := e.servedBy("p"); m != "primary" {
			t.Fatalf("request %d: served by %q (%d %s); want tier 0", i, m, resp.StatusCode, body)
		}
	}
	e.script(map[string]reply{"primary": {status: 429, retryAfter: "30"}})
	m, resp, _ := e.servedBy("p")
	if m != "backup" || resp.Header.Get("x-gateway-attempts") != "2" {
		t.Fatalf("tier 0 refused with 429: served by %q after %s attempts; want backup after 2", m, resp.Header.Get("x-gateway-attempts"))
	}
	e.script(nil)
	if m, _, _ := e.servedBy("p"); m != "backup" {
		t.Fatalf("tier 0 cooling down: served by %q", m)
	}
	clock.Advance(31 * time.Second) // cooldown over, same minute: 4 of its 5 used
	if m, _, _ := e.servedBy("p"); m != "primary" {
		t.Fatalf("tier 0 back: served by %q", m)
	}
	if m, _, _ := e.servedBy("p"); m != "backup" {
		t.Fatalf("tier 0 at its 5 rpm: served by %q; want backup", m)
	}
	st, _ := e.proxy.PoolStatus("p", nil)
	for _, m := range st.Members {
		if m.UpstreamModel == "primary" && (!m.AtLimit || m.RequestsMinute != 5 || m.Share != 0) {
			t.Errorf("status of primary: at limit %v, %d requests this minute, share %v", m.AtLimit, m.RequestsMinute, m.Share)
		}
		if m.UpstreamModel == "backup" && (m.Share != 1 || m.Priority != 1) {
			t.Errorf("status of backup: share %v, priority %d; want 1, 1", m.Share, m.Priority)
		}
	}
	clock.Advance(time.Minute)
	if m, _, _ := e.servedBy("p"); m != "primary" {
		t.Fatalf("next minute: served by %q", m)
	}
}

// TestEntryTokenLimitEndToEnd: tokens counted from the answers' usage put
// a member at its tpm_limit; with every member there, a Messages caller gets
// a 429 in its own shape unless the pool's general fallbacks serve.
func TestEntryTokenLimitEndToEnd(t *testing.T) {
	e, clock := newRouterEnv(t)
	perRequest := fakePromptTokens + fakeCompletionTokens
	e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: "m-one", Weight: ptr(1.0),
		RateLimits: models.RateLimits{TPMLimit: ptr(2 * perRequest)}})
	e.reload()
	for i := range 2 {
		if m, resp, body := e.servedBy("p"); m != "m-one" {
			t.Fatalf("request %d: %d %s", i, resp.StatusCode, body)
		}
	}
	clock.Advance(20 * time.Second)
	req, _ := http.NewRequest("POST", e.gw.URL+"/v1/messages",
		strings.NewReader(`{"model":"p","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("x-api-key", e.key)
	req.Header.Set("anthropic-version", "2023-06-01")
	resp, body := e.do(req)
	var ae struct {
		Type  string `json:"type"`
		Error struct{ Type, Message string }
	}
	if err := json.Unmarshal(body, &ae); err != nil || resp.StatusCode != 429 || ae.Type != "error" || ae.Error.Type != "rate_limit_error" {
		t.Fatalf("at the token limit: %d %s; want a 429 in Anthropic's shape", resp.StatusCode, body)
	}
	if got := resp.Header.Get("Retry-After"); got != "40" {
		t.Errorf("Retry-After %q; want 40", got)
	}
	e.addDeployment(models.Deployment{PublicName: "spare", UpstreamModel: "m-spare"})
	e.setFallbacks("p", models.FallbackGeneral, "spare")
	e.reload()
	m, resp, body := e.servedBy("p")
	if m != "m-spare" || resp.Header.Get("x-gateway-fallback") != "spare" {
		t.Fatalf("at the limit with a general fallback: served by %q (%d %s)", m, resp.StatusCode, body)
	}
	if st, _ := e.proxy.PoolStatus("p", nil); st.Members[0].TokensMinute != int64(2*perRequest) {
		t.Errorf("tokens this minute %d; want %d (the answers' usage)", st.Members[0].TokensMinute, 2*perRequest)
	}
}

// TestLatencyOnlyFromAnswers: token counts (answered by the gateway itself
// for an OpenAI member, as Claude Code asks for them) and embeddings do not
// feed latency-based routing's average; answers do.
func TestLatencyOnlyFromAnswers(t *testing.T) {
	e, clock := newRouterEnv(t)
	e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: "m-one", Weight: ptr(1.0)})
	e.setPool("p", models.PoolSetting{RoutingStrategy: models.StrategyLatencyBased})
	e.reload()
	e.scriptLatency(clock, map[string]time.Duration{"m-one": 20 * time.Millisecond})
	if m, resp, body := e.servedBy("p"); m != "m-one" {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	latency := func() float64 {
		st, _ := e.proxy.PoolStatus("p", nil)
		return st.Members[0].LatencyMS
	}
	if got := latency(); got != 20 {
		t.Fatalf("latency after one 20 ms answer: %v ms", got)
	}
	req, _ := http.NewRequest("POST", e.gw.URL+"/v1/messages/count_tokens",
		strings.NewReader(`{"model":"p","messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("x-api-key", e.key)
	req.Header.Set("anthropic-version", "2023-06-01")
	if resp, body := e.do(req); resp.StatusCode != http.StatusOK {
		t.Fatalf("count_tokens: %d %s", resp.StatusCode, body)
	}
	if got := latency(); got != 20 {
		t.Fatalf("a token count answered at once moved the average to %v ms", got)
	}
}
