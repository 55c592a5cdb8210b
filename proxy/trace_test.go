package proxy_test

import (
	"strings"
	"testing"
	"time"

	"gateway/models"
)

// TestTraceKeepsEveryAttempt: a 429 on the first member, then the reserve
// serving: the request's row keeps both attempts, in order, with the member,
// status and why the router moved on.
func TestTraceKeepsEveryAttempt(t *testing.T) {
	e, clock := newRouterEnv(t)
	a := e.addDeployment(models.Deployment{PublicName: "pool", UpstreamModel: "a", Weight: ptr(1.0)})
	reserve := e.addDeployment(models.Deployment{PublicName: "pool", UpstreamModel: "reserve", Weight: ptr(0.0)})
	e.reload()
	e.script(map[string]reply{"a": {status: 429, retryAfter: "309788"}})

	resp, body := e.chat("pool")
	wantStatus(t, resp, body, 200)
	row := e.waitLogs(1)[0]
	if row.RequestID != resp.Header.Get("X-Request-Id") || row.Attempts != 2 {
		t.Fatalf("row %q with %d attempts, want %q with 2", row.RequestID, row.Attempts, resp.Header.Get("X-Request-Id"))
	}
	if len(row.Trace) != 2 {
		t.Fatalf("trace %+v, want 2 attempts", row.Trace)
	}
	first, second := row.Trace[0], row.Trace[1]
	until := clock.Now().Add(309788 * time.Second).UTC().Format(time.RFC3339)
	if first.DeploymentID != a || first.UpstreamModel != "a" || first.Provider != "openai-main" || first.Status != 429 ||
		first.Reason != "429, retry-after 309788s, cooling down until "+until || !strings.Contains(first.Error, "scripted 429") {
		t.Errorf("first attempt %+v, want a's 429, cooling down until %s", first, until)
	}
	if second.DeploymentID != reserve || second.UpstreamModel != "reserve" || second.Status != 200 || second.Reason != "" ||
		second.Error != "" || second.Fallback != "" {
		t.Errorf("second attempt %+v, want the reserve's 200", second)
	}
}

// TestTraceFollowsFallbacks: an attempt in a fallback pool names the pool.
func TestTraceFollowsFallbacks(t *testing.T) {
	e, _ := newRouterEnv(t)
	for _, n := range []string{"main", "backup"} {
		e.addDeployment(models.Deployment{PublicName: n, UpstreamModel: n, CooldownSeconds: ptr(0)})
		e.setPool(n, models.PoolSetting{NumRetries: ptr(0)})
	}
	e.setFallbacks("main", models.FallbackGeneral, "backup")
	e.reload()
	e.script(map[string]reply{"main": {status: 503}})

	resp, body := e.chat("main")
	wantStatus(t, resp, body, 200)
	tr := e.waitLogs(1)[0].Trace
	if len(tr) != 2 || tr[0].Status != 503 || tr[0].Reason != "5xx" || tr[0].Fallback != "" ||
		tr[1].Status != 200 || tr[1].Fallback != "backup" || tr[1].UpstreamModel != "backup" {
		t.Fatalf("trace %+v, want main's 503 then backup's 200 as fallback", tr)
	}
}

// TestTraceOfFirstAttempt: a request served at once stores no trace (the
// hot path keeps nothing), and its row tells the one attempt; a single
// failed attempt is kept.
func TestTraceOfFirstAttempt(t *testing.T) {
	e, _ := newRouterEnv(t)
	id := e.addDeployment(models.Deployment{PublicName: "pool", UpstreamModel: "a", CooldownSeconds: ptr(0)})
	e.setPool("pool", models.PoolSetting{NumRetries: ptr(0)})
	e.reload()

	resp, body := e.chat("pool")
	wantStatus(t, resp, body, 200)
	row := e.waitLogs(1)[0]
	if row.Trace != nil {
		t.Fatalf("stored trace %+v for a first-attempt success", row.Trace)
	}
	if got := row.AttemptTrace(); len(got) != 1 || got[0].DeploymentID != id || got[0].Status != 200 || got[0].Reason != "" {
		t.Fatalf("attempt trace %+v, want the row's one attempt", got)
	}

	e.script(map[string]reply{"a": {status: 500}})
	resp, body = e.chat("pool")
	wantStatus(t, resp, body, 500)
	tr := e.waitLogs(2)[0].Trace
	if len(tr) != 1 || tr[0].Status != 500 || tr[0].Reason != "5xx" {
		t.Fatalf("trace %+v, want the one 500", tr)
	}
}

// TestTraceIsBounded: no more than models.MaxTraceAttempts attempts are
// kept, and the row still counts them all.
func TestTraceIsBounded(t *testing.T) {
	e, _ := newRouterEnv(t)
	const members = models.MaxTraceAttempts + 4
	for range members {
		e.addDeployment(models.Deployment{PublicName: "pool", UpstreamModel: "down", CooldownSeconds: ptr(0)})
	}
	e.setPool("pool", models.PoolSetting{NumRetries: ptr(members - 1)})
	e.reload()
	e.script(map[string]reply{"down": {status: 502, body: `{"error":{"message":"` + strings.Repeat("é", 400) + `"}}`}})

	resp, body := e.chat("pool")
	wantStatus(t, resp, body, 502)
	row := e.waitLogs(1)[0]
	if row.Attempts != members || len(row.Trace) != models.MaxTraceAttempts {
		t.Fatalf("%d attempts, %d traced; want %d, %d", row.Attempts, len(row.Trace), members, models.MaxTraceAttempts)
	}
	if msg := row.Trace[0].Error; len(msg) > models.MaxTraceText || !strings.HasSuffix(msg, "é…") {
		t.Fatalf("error kept as %d bytes %q, want at most %d, cut on a character", len(msg), msg, models.MaxTraceText)
	}
}
