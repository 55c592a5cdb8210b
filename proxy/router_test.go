package proxy_test

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gateway/models"
	"gateway/proxy"
)

// fakeClock is the router's clock in tests: cooldowns pass without waiting.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Sleep records the backoff and lets that much time pass.
func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	c.mu.Unlock()
	return ctx.Err()
}

func (c *fakeClock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// newRouterEnv is an env on a fake clock.
func newRouterEnv(t *testing.T) (*env, *fakeClock) {
	t.Helper()
	clock := &fakeClock{now: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	e := newEnv(t, proxy.Options{Now: clock.Now, Sleep: clock.Sleep, DefaultCooldown: time.Minute})
	return e, clock
}

// reply is a scripted upstream answer for one upstream model; the zero reply
// is the default success.
type reply struct {
	status       int
	retryAfter   string
	retryAfterMs string
	contentType  string // application/json unless set
	body         string
}

// script makes the fake upstream answer by the upstream model asked for.
func (e *env) script(replies map[string]reply) {
	e.up.setRespond(func(w http.ResponseWriter, r *http.Request, req upstreamRequest) {
		rp := replies[fmt.Sprint(req.Body["model"])]
		switch {
		case rp.status == 0 && req.Body["stream"] == true:
			writeFakeStream(w, req)
			return
		case rp.status == 0:
			writeFakeCompletion(w, req)
			return
		}
		if rp.retryAfter != "" {
			w.Header().Set("Retry-After", rp.retryAfter)
		}
		if rp.retryAfterMs != "" {
			w.Header().Set("Retry-After-Ms", rp.retryAfterMs)
		}
		body := rp.body
		if body == "" {
			body = fmt.Sprintf(`{"error":{"message":"scripted %d","type":"server_error","param":null,"code":null}}`, rp.status)
		}
		w.Header().Set("Content-Type", cmp.Or(rp.contentType, "application/json"))
		w.WriteHeader(rp.status)
		io.WriteString(w, body)
	})
}

// hits counts the upstream requests for one upstream model.
func (e *env) hits(upstreamModel string) int {
	e.up.mu.Lock()
	defer e.up.mu.Unlock()
	n := 0
	for _, r := range e.up.reqs {
		if r.Body["model"] == upstreamModel {
			n++
		}
	}
	return n
}

func (e *env) chat(model string) (*http.Response, []byte) {
	e.t.Helper()
	return e.post("/v1/chat/completions", e.key, strings.NewReader(chatBody(model, false)))
}

func (e *env) setPool(name string, ps models.PoolSetting) {
	e.t.Helper()
	ps.PublicName = name
	if err := e.store.PutPoolSetting(context.Background(), &ps); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) setFallbacks(name, kind string, targets ...string) {
	e.t.Helper()
	if err := e.store.SetFallbacks(context.Background(), name, kind, targets); err != nil {
		e.t.Fatal(err)
	}
}

// status returns the pool status of one member by upstream model.
func (e *env) memberStatus(pool, upstreamModel string) proxy.MemberStatus {
	e.t.Helper()
	ms, ok := e.proxy.PoolStatus(pool, nil)
	if !ok {
		e.t.Fatalf("no pool %q", pool)
	}
	for _, m := range ms.Members {
		if m.UpstreamModel == upstreamModel {
			return m
		}
	}
	e.t.Fatalf("pool %q has no member %q", pool, upstreamModel)
	return proxy.MemberStatus{}
}

func wantStatus(t *testing.T, resp *http.Response, body []byte, want int) {
	t.Helper()
	if resp.StatusCode != want {
		t.Fatalf("status %d, want %d: %s", resp.StatusCode, want, body)
	}
}

// TestCooldownHonoursRetryAfter: a 429 sets the member aside for as long as
// the upstream said, unclamped (309,788 s is real), and the reserve member
// (weight 0) takes the traffic meanwhile.
func TestCooldownHonoursRetryAfter(t *testing.T) {
	e, clock := newRouterEnv(t)
	e.addDeployment(models.Deployment{PublicName: "pool", UpstreamModel: "a", Weight: ptr(1.0)})
	e.addDeployment(models.Deployment{PublicName: "pool", UpstreamModel: "reserve", Weight: ptr(0.0)})
	e.reload()
	e.script(map[string]reply{"a": {status: 429, retryAfter: "309788"}})

	resp, body := e.chat("pool")
	wantStatus(t, resp, body, 200)
	if got := resp.Header.Get("X-Gateway-Attempts"); got != "2" {
		t.Fatalf("attempts = %q, want 2 (a, then the reserve)", got)
	}
	if got := resp.Header.Get("X-Gateway-Upstream-Model"); got != "reserve" {
		t.Fatalf("served by %q, want the reserve", got)
	}
	st := e.memberStatus("pool", "a")
	want := clock.Now().Add(309788 * time.Second)
	if !st.CoolingDown || st.CooldownUntil == nil || !st.CooldownUntil.Equal(want) || !strings.HasPrefix(st.CooldownReason, "429, retry-after 309788s: ") {
		t.Fatalf("a: cooling %v until %v (want %v), reason %q", st.CoolingDown, st.CooldownUntil, want, st.CooldownReason)
	}
	if st.Share != 0 || e.memberStatus("pool", "reserve").Share != 1 || st.PlannedShare != 1 {
		t.Fatalf("shares: a %v (planned %v), reserve %v", st.Share, st.PlannedShare, e.memberStatus("pool", "reserve").Share)
	}
	for range 20 {
		resp, body := e.chat("pool")
		wantStatus(t, resp, body, 200)
	}
	if n := e.hits("a"); n != 1 {
		t.Fatalf("a was called %d times while cooling down, want 1", n)
	}
	clock.Advance(309787 * time.Second)
	e.chat("pool")
	if n := e.hits("a"); n != 1 {
		t.Fatal("a was called before its retry-after had passed")
	}
	clock.Advance(2 * time.Second)
	e.script(nil)
	e.chat("pool")
	if n := e.hits("a"); n != 2 {
		t.Fatalf("a was not used again after its cooldown: %d calls", n)
	}
	if e.hits("reserve") != 22 {
		t.Fatalf("reserve took %d requests, want 22", e.hits("reserve"))
	}
}

// TestCooldownLength: the member's cooldown_seconds, else retry-after (also
// as an HTTP-date), else the default; cooldown_seconds 0 disables it.
func TestCooldownLength(t *testing.T) {
	for _, tc := range []struct {
		name       string
		cooldown   *int
		retryAfter func(now time.Time) string
		want       time.Duration // 0: never cools down
	}{
		{"member setting wins", ptr(30), func(time.Time) string { return "600" }, 30 * time.Second},
		{"retry-after seconds", nil, func(time.Time) string { return "600" }, 600 * time.Second},
		{"retry-after http-date", nil, func(now time.Time) string { return now.Add(2 * time.Hour).Format(http.TimeFormat) }, 2 * time.Hour},
		{"default", nil, func(time.Time) string { return "" }, time.Minute},
		{"disabled", ptr(0), func(time.Time) string { return "600" }, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, clock := newRouterEnv(t)
			e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: "a", CooldownSeconds: tc.cooldown})
			e.reload()
			e.script(map[string]reply{"a": {status: 429, retryAfter: tc.retryAfter(clock.Now())}})
			resp, body := e.chat("p")
			st := e.memberStatus("p", "a")
			if tc.want == 0 {
				wantStatus(t, resp, body, 429)
				if st.CoolingDown {
					t.Fatal("cooldown_seconds 0 still cooled the member down")
				}
				return
			}
			if !st.CoolingDown || !st.CooldownUntil.Equal(clock.Now().Add(tc.want)) {
				t.Fatalf("cooling %v until %v, want %v", st.CoolingDown, st.CooldownUntil, clock.Now().Add(tc.want))
			}
		})
	}
}

// TestFailuresPastAllowedFails: 5xx cools a member down only past
// allowed_fails in a minute; a caller's 400 never does and is not retried.
func TestFailuresPastAllowedFails(t *testing.T) {
	e, _ := newRouterEnv(t)
	e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: "flaky", Weight: ptr(1.0)})
	e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: "steady", Weight: ptr(0.0)})
	e.reload()
	e.script(map[string]reply{"flaky": {status: 502}})
	for i := 1; i <= 4; i++ {
		resp, body := e.chat("p")
		wantStatus(t, resp, body, 200)
		if cooling := e.memberStatus("p", "flaky").CoolingDown; cooling != (i == 4) {
			t.Fatalf("after %d failures: cooling down %v (allowed_fails is 3)", i, cooling)
		}
	}
	e.chat("p")
	if n := e.hits("flaky"); n != 4 {
		t.Fatalf("flaky called %d times, want 4", n)
	}

	e.addDeployment(models.Deployment{PublicName: "q", UpstreamModel: "strict", Weight: ptr(1.0)})
	e.addDeployment(models.Deployment{PublicName: "q", UpstreamModel: "other", Weight: ptr(0.0)})
	e.reload()
	e.script(map[string]reply{"strict": {status: 400, body: `{"error":{"message":"bad temperature","type":"invalid_request_error","param":"temperature","code":"invalid_value"}}`}})
	for range 6 {
		resp, body := e.chat("q")
		wantStatus(t, resp, body, 400)
		if got := decodeError(t, body).Error.Message; got != "bad temperature" {
			t.Fatalf("the upstream's error was not relayed as is: %q", got)
		}
		if resp.Header.Get("X-Gateway-Attempts") != "1" {
			t.Fatal("a caller error was retried")
		}
	}
	if e.memberStatus("q", "strict").CoolingDown || e.hits("other") != 0 {
		t.Fatal("a caller error cooled the member down or moved to another member")
	}
}

// TestRetriesExcludeTriedMembers: with two of three members failing, every
// request succeeds within num_retries because a retry never picks a member
// already tried (LiteLLM may re-pick it).
func TestRetriesExcludeTriedMembers(t *testing.T) {
	e, _ := newRouterEnv(t)
	for _, m := range []string{"bad1", "bad2", "good"} {
		e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: m, CooldownSeconds: ptr(0)})
	}
	e.reload()
	e.script(map[string]reply{"bad1": {status: 500}, "bad2": {status: 503}})
	attempts := map[string]int{}
	for range 60 {
		resp, body := e.chat("p")
		wantStatus(t, resp, body, 200)
		attempts[resp.Header.Get("X-Gateway-Attempts")]++
	}
	if attempts["1"] == 0 || attempts["3"] == 0 || len(attempts) > 3 {
		t.Fatalf("attempt counts %v: want a mix of 1, 2 and 3", attempts)
	}
	if got, want := e.hits("bad1")+e.hits("bad2")+e.hits("good"), attempts["1"]+2*attempts["2"]+3*attempts["3"]; got != want {
		t.Fatalf("upstream calls %d, want %d", got, want)
	}
}

// TestBackoffWhenNoOtherMember: a single member is retried after 0.5 s, then
// 1 s; a short retry-after is waited for instead.
func TestBackoffWhenNoOtherMember(t *testing.T) {
	e, clock := newRouterEnv(t)
	e.addDeployment(models.Deployment{PublicName: "solo", UpstreamModel: "s"})
	e.reload()
	e.script(map[string]reply{"s": {status: 500}})
	resp, body := e.chat("solo")
	wantStatus(t, resp, body, 500)
	if got := fmt.Sprint(clock.Sleeps()); got != "[500ms 1s]" || e.hits("s") != 3 {
		t.Fatalf("sleeps %s and %d calls, want [500ms 1s] and 3", got, e.hits("s"))
	}
	e.script(map[string]reply{"s": {status: 503, retryAfter: "7"}})
	e.setPool("solo", models.PoolSetting{NumRetries: ptr(1), AllowedFails: ptr(100)})
	e.reload()
	e.chat("solo")
	if got := clock.Sleeps(); got[len(got)-1] != 7*time.Second {
		t.Fatalf("sleeps %v: the last should be the retry-after of 7 s", got)
	}
}

// TestAllMembersCoolingDown: 429 in the caller's shape with the shortest
// remaining cooldown as Retry-After.
func TestAllMembersCoolingDown(t *testing.T) {
	e, clock := newRouterEnv(t)
	e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: "a"})
	e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: "b"})
	e.reload()
	e.script(map[string]reply{"a": {status: 429, retryAfter: "300"}, "b": {status: 429, retryAfter: "120"}})
	e.chat("p") // both are tried and both cool down
	clock.Advance(20 * time.Second)
	resp, body := e.chat("p")
	wantStatus(t, resp, body, 429)
	mustContain(t, "message", decodeError(t, body).Error.Message, "no healthy deployments for this model")
	if got := resp.Header.Get("Retry-After"); got != "100" {
		t.Fatalf("Retry-After %q, want 100 (b's 120 s less the 20 s passed)", got)
	}
	if e.hits("a")+e.hits("b") != 2 {
		t.Fatal("a member was called while cooling down")
	}
}

// TestNoRetryAfterFirstByte: a stream that breaks after its first event ends
// with an error event; no other member is tried.
func TestNoRetryAfterFirstByte(t *testing.T) {
	e, _ := newRouterEnv(t)
	e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: "breaks", Weight: ptr(1.0)})
	e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: "fine", Weight: ptr(0.0)})
	e.reload()
	e.up.setRespond(func(w http.ResponseWriter, r *http.Request, req upstreamRequest) {
		startStream(w)
		io.WriteString(w, fakeStreamEvents(req)[0])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // cut the connection mid-stream
	})
	resp, body := e.post("/v1/chat/completions", e.key, strings.NewReader(chatBody("p", true)))
	wantStatus(t, resp, body, 200)
	if !strings.Contains(string(body), `"upstream_stream_error"`) || resp.Header.Get("X-Gateway-Attempts") != "1" {
		t.Fatalf("attempts %s, body %s", resp.Header.Get("X-Gateway-Attempts"), body)
	}
	if e.hits("fine") != 0 {
		t.Fatal("a stream was retried after its first byte went out")
	}
}

// TestFallbacks: general fallbacks in order, each pool routed in full, no
// pool twice, at most five, "*" as the default, and the original error
// naming what was tried when all fail.
func TestFallbacks(t *testing.T) {
	e, _ := newRouterEnv(t)
	for _, n := range []string{"main", "f1", "f2", "f3", "f4", "f5", "f6", "ok"} {
		e.addDeployment(models.Deployment{PublicName: n, UpstreamModel: n, CooldownSeconds: ptr(0)})
		e.setPool(n, models.PoolSetting{NumRetries: ptr(0)})
	}
	fail := map[string]reply{}
	for _, n := range []string{"main", "f1", "f2", "f3", "f4", "f5", "f6"} {
		fail[n] = reply{status: 500}
	}
	e.script(fail)
	e.setFallbacks("main", models.FallbackGeneral, "missing", "f1", "ok")
	e.reload()
	resp, body := e.chat("main")
	wantStatus(t, resp, body, 200)
	if resp.Header.Get("X-Gateway-Fallback") != "ok" || resp.Header.Get("X-Gateway-Upstream-Model") != "ok" {
		t.Fatalf("served by %v", resp.Header)
	}
	if e.hits("f1") != 1 || e.hits("main") != 1 {
		t.Fatal("fallbacks were not tried in order")
	}

	// A chain longer than five, with a cycle: five pools at most, none twice.
	e.setFallbacks("main", models.FallbackGeneral, "f1")
	e.setFallbacks("f1", models.FallbackGeneral, "main", "f2")
	e.setFallbacks("f2", models.FallbackGeneral, "f3")
	e.setFallbacks("f3", models.FallbackGeneral, "f4")
	e.setFallbacks("f4", models.FallbackGeneral, "f5")
	e.setFallbacks("f5", models.FallbackGeneral, "f6")
	e.reload()
	resp, body = e.chat("main")
	wantStatus(t, resp, body, 500)
	msg := decodeError(t, body).Error.Message
	mustContain(t, "message", msg, "scripted 500")
	mustContain(t, "message", msg, "fallbacks tried: f1, f2, f3, f4, f5")
	if e.hits("main") != 2 || e.hits("f6") != 0 {
		t.Fatalf("main called %d times (want 2: once per request), f6 %d (want 0: past the depth)", e.hits("main"), e.hits("f6"))
	}

	// "*" holds the default fallbacks.
	e.setFallbacks("*", models.FallbackGeneral, "ok")
	resp, body = e.chat("f6")
	if resp.StatusCode != 500 {
		t.Fatal("fallbacks applied before the reload")
	}
	e.reload()
	resp, body = e.chat("f6")
	wantStatus(t, resp, body, 200)
	if resp.Header.Get("X-Gateway-Fallback") != "ok" {
		t.Fatal("the default fallback under * was not used")
	}
}

// TestContextWindowAndContentPolicyFallbacks: each kind of failure takes its
// own list.
func TestContextWindowAndContentPolicyFallbacks(t *testing.T) {
	e, _ := newRouterEnv(t)
	e.addDeployment(models.Deployment{PublicName: "small", UpstreamModel: "small", ContextWindow: ptr(50)})
	e.addDeployment(models.Deployment{PublicName: "says-too-long", UpstreamModel: "says-too-long"})
	e.addDeployment(models.Deployment{PublicName: "prude", UpstreamModel: "prude"})
	e.addDeployment(models.Deployment{PublicName: "refuses", UpstreamModel: "refuses"})
	e.addDeployment(models.Deployment{PublicName: "big", UpstreamModel: "big"})
	e.addDeployment(models.Deployment{PublicName: "lenient", UpstreamModel: "lenient"})
	e.addDeployment(models.Deployment{PublicName: "general", UpstreamModel: "general"})
	for _, n := range []string{"small", "says-too-long", "prude", "refuses"} {
		e.setFallbacks(n, models.FallbackContextWindow, "big")
		e.setFallbacks(n, models.FallbackContentPolicy, "lenient")
		e.setFallbacks(n, models.FallbackGeneral, "general")
	}
	e.reload()
	e.script(map[string]reply{
		"says-too-long": {status: 400, body: `{"error":{"message":"This model's maximum context length is 8192 tokens","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`},
		"refuses":       {status: 400, body: `{"error":{"message":"Your request was rejected","type":"invalid_request_error","param":null,"code":"content_policy_violation"}}`},
	})
	prude := func(w http.ResponseWriter, req upstreamRequest) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"x","object":"chat.completion","created":1,"model":"prude","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"content_filter"}],"usage":%s}`, fakeUsageJSON())
	}
	inner := e.up.respond
	e.up.setRespond(func(w http.ResponseWriter, r *http.Request, req upstreamRequest) {
		if req.Body["model"] == "prude" {
			prude(w, req)
			return
		}
		inner(w, r, req)
	})
	long := fmt.Sprintf(`{"model":"small","messages":[{"role":"user","content":%q}]}`, strings.Repeat("word ", 100))
	for _, tc := range []struct{ name, body, want string }{
		{"member's context window", long, "big"},
		{"upstream says too long", chatBody("says-too-long", false), "big"},
		{"finish_reason content_filter", chatBody("prude", false), "lenient"},
		{"content_policy_violation", chatBody("refuses", false), "lenient"},
	} {
		resp, body := e.post("/v1/chat/completions", e.key, strings.NewReader(tc.body))
		wantStatus(t, resp, body, 200)
		if got := resp.Header.Get("X-Gateway-Fallback"); got != tc.want {
			t.Errorf("%s: fell back to %q, want %q", tc.name, got, tc.want)
		}
	}
	if e.hits("small") != 0 {
		t.Fatal("a member was called with a prompt longer than its context window")
	}
}

// TestStickyRouting: a success binds the pool to its member for the TTL; a
// failure of that member clears it; an admin pin wins and can be cleared.
func TestStickyRouting(t *testing.T) {
	e, clock := newRouterEnv(t)
	ids := map[string]int64{}
	for _, m := range []string{"a", "b", "c"} {
		ids[m] = e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: m, CooldownSeconds: ptr(0)})
	}
	e.setPool("p", models.PoolSetting{StickyTTLSeconds: ptr(7200)})
	e.reload()
	served := func(n int) map[string]int {
		got := map[string]int{}
		for range n {
			resp, body := e.chat("p")
			wantStatus(t, resp, body, 200)
			got[resp.Header.Get("X-Gateway-Upstream-Model")]++
		}
		return got
	}
	first := served(30)
	if len(first) != 1 {
		t.Fatalf("sticky pool spread over %v", first)
	}
	var bound string
	for m := range first {
		bound = m
	}
	if bs := e.proxy.StickyBindings(); len(bs) != 1 || bs[0].DeploymentID != ids[bound] || bs[0].Manual {
		t.Fatalf("bindings %+v, want one automatic binding to %s", bs, bound)
	}
	// Runtime state survives a reload.
	e.reload()
	if got := served(5); got[bound] != 5 {
		t.Fatalf("binding lost in a reload: %v", got)
	}
	// A failure of the bound member clears the binding.
	e.script(map[string]reply{bound: {status: 500}})
	resp, body := e.chat("p")
	wantStatus(t, resp, body, 200)
	if got := resp.Header.Get("X-Gateway-Upstream-Model"); got == bound {
		t.Fatal("the failing member served")
	}
	if bs := e.proxy.StickyBindings(); len(bs) != 1 || bs[0].DeploymentID == ids[bound] {
		t.Fatalf("bindings after the failure: %+v", bs)
	}
	e.script(nil)

	// A manual pin wins, lasts its TTL, and can be cleared.
	if err := e.proxy.PinSticky("p", ids["c"], time.Hour); err != nil {
		t.Fatal(err)
	}
	if got := served(10); got["c"] != 10 {
		t.Fatalf("pinned to c, served %v", got)
	}
	clock.Advance(61 * time.Minute)
	bs := e.proxy.StickyBindings()
	if len(bs) == 1 && bs[0].Manual {
		t.Fatalf("the pin outlived its TTL: %+v", bs)
	}
	if err := e.proxy.PinSticky("p", 9999, 0); err == nil {
		t.Fatal("pinned a deployment that is not in the pool")
	}
	if err := e.proxy.PinSticky("nope", ids["a"], 0); err == nil {
		t.Fatal("pinned a model no pool serves")
	}
	e.proxy.ClearAllSticky()
	if len(e.proxy.StickyBindings()) != 0 {
		t.Fatal("bindings left after clearing all")
	}
}

// TestStatsAndReloadKeepRuntimeState: statistics per member, and cooldowns
// kept across an admin change that rebuilds the table.
func TestStatsAndReloadKeepRuntimeState(t *testing.T) {
	e, _ := newRouterEnv(t)
	a := e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: "a", Weight: ptr(1.0)})
	e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: "b", Weight: ptr(0.0)})
	e.reload()
	e.script(map[string]reply{"a": {status: 429}})
	for range 3 {
		e.chat("p")
	}
	if _, err := e.store.UpdateDeployment(context.Background(), a, func(d *models.Deployment) error {
		d.Weight = ptr(5.0)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.reload()
	if !e.memberStatus("p", "a").CoolingDown {
		t.Fatal("a weight change ended the cooldown")
	}
	stats := map[string]proxy.DeploymentStats{}
	for _, s := range e.proxy.Stats() {
		stats[strconv.FormatInt(s.ID, 10)] = s
	}
	sa := stats[strconv.FormatInt(a, 10)]
	if sa.Requests != 1 || sa.Successes != 0 || !strings.Contains(sa.LastError, "429") || sa.LastErrorAt == nil {
		t.Fatalf("a's stats %+v", sa)
	}
	var sb proxy.DeploymentStats
	for _, s := range stats {
		if s.ID != a {
			sb = s
		}
	}
	if sb.Requests != 3 || sb.SuccessRate != 1 || sb.TokensOut != 3*fakeCompletionTokens || sb.P95LatencyMS < 0 {
		t.Fatalf("b's stats %+v", sb)
	}
}

// TestSilentStreamIsRetried: a member that sends its stream's headers but no
// event within its timeout is a failure before the first byte reached the
// caller, so another member serves; the cost arrives as a trailer.
func TestSilentStreamIsRetried(t *testing.T) {
	e, _ := newRouterEnv(t)
	e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: "silent", Weight: ptr(1.0), TimeoutSeconds: ptr(1), Prices: models.PricesOf(250000, 0)})
	e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: "talks", Weight: ptr(0.0), Prices: models.PricesOf(250000, 0)})
	e.reload()
	e.up.setRespond(func(w http.ResponseWriter, r *http.Request, req upstreamRequest) {
		if req.Body["model"] == "silent" {
			startStream(w)
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
			return
		}
		writeFakeStream(w, req)
	})
	start := time.Now()
	resp, body := e.post("/v1/chat/completions", e.key, strings.NewReader(chatBody("p", true)))
	wantStatus(t, resp, body, 200)
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Fatalf("took %s: the silent member's 1 s timeout was not applied to its first event", elapsed)
	}
	if resp.Header.Get("X-Gateway-Upstream-Model") != "talks" || resp.Header.Get("X-Gateway-Attempts") != "2" {
		t.Fatalf("served by %s after %s attempts", resp.Header.Get("X-Gateway-Upstream-Model"), resp.Header.Get("X-Gateway-Attempts"))
	}
	if !strings.Contains(string(body), "[DONE]") {
		t.Fatalf("stream incomplete: %s", body)
	}
	// 12 prompt tokens at 250,000 USD per million tokens: 3 USD.
	if got := resp.Trailer.Get("X-Gateway-Cost-Usd"); got != "3" {
		t.Fatalf("cost trailer %q, want 3", got)
	}
}
