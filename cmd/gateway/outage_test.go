package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gateway/models"
	"gateway/models/dbtest"
)

// callerLoad sends chat requests at a steady rate, every fifth one a stream,
// and keeps what the callers were answered: request ids and the cost each
// answer stated (a header, or a trailer for streams).
type callerLoad struct {
	t      *testing.T
	url    string
	key    string
	stop   chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	acked  map[string]float64
	failed []string
}

func startLoad(t *testing.T, g *Gateway, key string, every time.Duration) *callerLoad {
	l := &callerLoad{t: t, url: "http://" + g.ProxyAddr() + "/v1/chat/completions", key: key,
		stop: make(chan struct{}), acked: make(map[string]float64)}
	l.wg.Go(func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for n := 0; ; n++ {
			select {
			case <-l.stop:
				return
			case <-tick.C:
				l.send(n%5 == 4)
			}
		}
	})
	return l
}

func (l *callerLoad) send(stream bool) {
	body := fmt.Sprintf(`{"model":"team-model","stream":%t,"messages":[{"role":"user","content":"say hello"}]}`, stream)
	req, _ := http.NewRequest("POST", l.url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+l.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		l.fail(err.Error())
		return
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil || resp.StatusCode != http.StatusOK {
		l.fail(fmt.Sprintf("status %d, %v", resp.StatusCode, err))
		return
	}
	cost := resp.Header.Get("X-Gateway-Cost-Usd")
	if stream {
		cost = resp.Trailer.Get("X-Gateway-Cost-Usd")
	}
	usd, err := strconv.ParseFloat(cost, 64)
	if err != nil || usd <= 0 {
		l.fail(fmt.Sprintf("cost %q", cost))
		return
	}
	l.mu.Lock()
	l.acked[resp.Header.Get("X-Request-Id")] = usd
	l.mu.Unlock()
}

func (l *callerLoad) fail(why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.failed = append(l.failed, why)
}

// finish stops the load and returns the acknowledged requests.
func (l *callerLoad) finish() map[string]float64 {
	close(l.stop)
	l.wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.failed) > 0 {
		l.t.Errorf("%d requests failed, first: %s", len(l.failed), l.failed[0])
	}
	return l.acked
}

// checkDurable holds the database to what the callers were answered: a row
// for every acknowledged request, once, and the key's spend equal to the sum
// of its rows' costs and of the costs the callers were told.
func checkDurable(t *testing.T, dsn string, keyID int64, acked map[string]float64) {
	t.Helper()
	s := dbtest.MustOpenStore(t, dsn, t.TempDir())
	ctx := context.Background()
	var rows []models.RequestLog
	for before := int64(0); ; {
		page, err := s.ListRequestLogs(ctx, models.LogFilter{KeyID: keyID, BeforeID: before, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, page...)
		if len(page) < 1000 {
			break
		}
		before = page[len(page)-1].ID
	}
	seen := make(map[string]bool, len(rows))
	var rowCost, toldCost float64
	for _, r := range rows {
		if seen[r.RequestID] {
			t.Errorf("request %s has two rows", r.RequestID)
		}
		seen[r.RequestID] = true
		rowCost += r.CostUSD
	}
	missing := 0
	for id, usd := range acked {
		toldCost += usd
		if !seen[id] {
			missing++
		}
	}
	k, err := s.GetKey(ctx, keyID)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("acknowledged %d requests for $%.6f; stored %d rows for $%.6f; key spend $%.6f",
		len(acked), toldCost, len(rows), rowCost, k.SpendUSD)
	if missing > 0 || len(rows) != len(acked) {
		t.Errorf("%d of %d acknowledged requests have no row; %d rows in all", missing, len(acked), len(rows))
	}
	if !closeTo(k.SpendUSD, rowCost) || !closeTo(rowCost, toldCost) {
		t.Errorf("key spend $%v, rows' costs $%v, costs told to callers $%v: want all equal", k.SpendUSD, rowCost, toldCost)
	}
}

func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// waitRows waits (60 s at most) until the key has n rows.
func waitRows(t *testing.T, dsn string, keyID int64, n int) {
	t.Helper()
	s := dbtest.MustOpenStore(t, dsn, t.TempDir())
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		logs, err := s.ListRequestLogs(context.Background(), models.LogFilter{KeyID: keyID, Limit: 1000})
		if err == nil && len(logs) >= n {
			return
		}
	}
}

// outageSetup is a gateway on a PostgreSQL database reached through a link
// that the test cuts, with a pool and a key.
func outageSetup(t *testing.T) (link *dbtest.Link, direct string, cfg Config, g *Gateway, key string, keyID int64) {
	t.Helper()
	direct = dbtest.PostgresDSN(t)
	link, viaLink := dbtest.NewLink(t, direct)
	cfg = testConfig(viaLink, t.TempDir())
	g, _ = startGateway(t, cfg)
	key = setupPool(t, g, newFakeOpenAI(t).URL)
	return link, direct, cfg, g, key, int64(keyNamed(t, g, "e2e")["id"].(float64))
}

// keyNamed is the management API's view of one key.
func keyNamed(t *testing.T, g *Gateway, name string) map[string]any {
	t.Helper()
	status, b := api(t, g, "GET", "/api/keys", nil)
	var keys []map[string]any
	if status != http.StatusOK || json.Unmarshal(b, &keys) != nil {
		t.Fatalf("GET /api/keys: %d %s", status, b)
	}
	for _, k := range keys {
		if k["name"] == name {
			return k
		}
	}
	t.Fatalf("no key %q in %s", name, b)
	return nil
}

// TestRequestLogsSurviveAMinuteWithoutTheDatabase: PostgreSQL unreachable
// for 60 s under 10 requests a second: every request is served, and once the
// database is back every one has its row and the key's spend is their sum.
func TestRequestLogsSurviveAMinuteWithoutTheDatabase(t *testing.T) {
	link, direct, _, g, key, keyID := outageSetup(t)
	load := startLoad(t, g, key, 100*time.Millisecond)
	time.Sleep(3 * time.Second)
	link.Cut()
	time.Sleep(30 * time.Second)
	if n := metricValue(t, g, "gateway_log_spooled_rows"); n < 100 {
		t.Errorf("30 s into the outage gateway_log_spooled_rows is %v, want the rows waiting there", n)
	}
	time.Sleep(30 * time.Second)
	link.Restore()
	time.Sleep(3 * time.Second)
	acked := load.finish()
	waitRows(t, direct, keyID, len(acked))
	if err := g.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	checkDurable(t, direct, keyID, acked)
}

// TestRequestLogsSurviveAShutdownWithoutTheDatabase: SIGTERM while
// PostgreSQL is unreachable, the database back, a start on the same data
// dir: every acknowledged request has its row and the key's spend is their
// sum, and the gateway that starts counts the spooled spend.
func TestRequestLogsSurviveAShutdownWithoutTheDatabase(t *testing.T) {
	link, direct, cfg, g, key, keyID := outageSetup(t)
	load := startLoad(t, g, key, 50*time.Millisecond)
	time.Sleep(2 * time.Second)
	link.Cut()
	time.Sleep(8 * time.Second)
	acked := load.finish()
	start := time.Now()
	// What serve does on SIGTERM.
	if err := g.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Logf("shut down in %s with the database unreachable", time.Since(start).Round(time.Millisecond))
	if files, _ := filepath.Glob(filepath.Join(cfg.DataDir, "spool", "*.jsonl")); len(files) == 0 {
		t.Fatal("nothing was spooled")
	}
	link.Restore()
	g2, _ := startGateway(t, cfg)
	checkDurable(t, direct, keyID, acked)
	if n := metricValue(t, g2, "gateway_log_replayed_rows_total"); n < 100 {
		t.Errorf("gateway_log_replayed_rows_total %v after the start, want the rows of the outage", n)
	}
	if files, _ := filepath.Glob(filepath.Join(cfg.DataDir, "spool", "*.jsonl")); len(files) != 0 {
		t.Errorf("spool left after the start: %v", files)
	}
	checkBudgetCounts(t, g2, key, keyID, acked)
}

// checkBudgetCounts: the restarted gateway's budget counts the spooled spend.
// With a budget just above it, a request whose worst case is a few times the
// budget's rest is refused; counted from zero, it would pass.
func checkBudgetCounts(t *testing.T, g *Gateway, key string, keyID int64, acked map[string]float64) {
	t.Helper()
	var told float64
	for _, usd := range acked {
		told += usd
	}
	mustAPI(t, g, "PATCH", fmt.Sprintf("/api/keys/%d", keyID), map[string]any{"max_budget_usd": told + 0.00001}, http.StatusOK)
	body := `{"model":"team-model","max_tokens":1,"messages":[{"role":"user","content":"say hello"}]}`
	req, _ := http.NewRequest("POST", "http://"+g.ProxyAddr()+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(b), fmt.Sprintf("spent $%.4f", told)) {
		t.Errorf("with $%.5f spent and a budget $0.00001 above: %d %s; want 429 naming the spend", told, resp.StatusCode, b)
	}
}

// metricValue scrapes one unlabelled series from the admin listener.
func metricValue(t *testing.T, g *Gateway, name string) float64 {
	t.Helper()
	resp, err := http.Get("http://" + g.AdminAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return f
		}
	}
	t.Fatalf("no series %s", name)
	return 0
}
