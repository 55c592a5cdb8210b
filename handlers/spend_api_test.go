package handlers_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"gateway/models"
	"gateway/models/dbtest"
)

// chatAs sends one chat completion with key.
func (e *runtimeEnv) chatAs(t *testing.T, key, model string) int {
	t.Helper()
	body := fmt.Sprintf(`{"model":%q,"messages":[{"role":"user","content":"hi"}]}`, model)
	req, _ := http.NewRequest(http.MethodPost, e.gw.URL+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body) //nolint:errcheck // the status is what counts
	return resp.StatusCode
}

type spendRow struct {
	Group            string  `json:"group"`
	Name             string  `json:"name"`
	Requests         int64   `json:"requests"`
	InputTokens      int64   `json:"input_tokens"`
	OutputTokens     int64   `json:"output_tokens"`
	CacheReadTokens  int64   `json:"cache_read_tokens"`
	CacheWriteTokens int64   `json:"cache_write_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	UnpricedRequests int64   `json:"unpriced_requests"`
}

// TestSpendIsTheSumOfRows: requests through the proxy by a budgeted key of
// a team's user and by a key of no one; each holder's spend_usd (GET
// /api/keys|users|teams/{id}) is the sum of its rows' costs, and so is the
// report's, by every grouping, in JSON and CSV. A request of unknown cost
// is counted apart, not as 0.
func TestSpendIsTheSumOfRows(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		e := newRuntimeEnv(t, s)
		e.entry(t, "gpt-4o", "gpt-4o", nil, true) // the catalog prices it
		e.entry(t, "private", "llama-private", nil, true)
		team := &models.Team{Name: "platform"}
		if err := s.CreateTeam(ctx, team); err != nil {
			t.Fatal(err)
		}
		user := &models.User{Name: "ada", TeamID: &team.ID}
		if err := s.CreateUser(ctx, user); err != nil {
			t.Fatal(err)
		}
		k1 := &models.VirtualKey{Name: "ada-laptop", UserID: &user.ID, TeamID: &team.ID, Budget: models.Budget{MaxBudgetUSD: ptr(10.0)}}
		key1, err := s.CreateKey(ctx, k1)
		if err != nil {
			t.Fatal(err)
		}
		e.reload(t)
		for range 3 {
			if st := e.chatAs(t, key1, "gpt-4o"); st != 200 {
				t.Fatalf("budgeted key on gpt-4o: %d", st)
			}
		}
		if st := e.chatAs(t, key1, "private"); st != http.StatusForbidden {
			t.Fatalf("budgeted key on an unpriced entry: %d, want 403", st)
		}
		for _, m := range []string{"gpt-4o", "gpt-4o", "private"} {
			if st := e.chatAs(t, e.key, m); st != 200 {
				t.Fatalf("unbudgeted key on %s: %d", m, st)
			}
		}
		var logs []models.RequestLog
		for deadline := time.Now().Add(10 * time.Second); len(logs) < 7 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if logs, err = s.ListRequestLogs(ctx, models.LogFilter{Limit: 100}); err != nil {
				t.Fatal(err)
			}
		}
		if len(logs) != 7 {
			t.Fatalf("%d request logs, want 7", len(logs))
		}
		sum := map[string]float64{}
		for _, l := range logs {
			if l.CostKnown() {
				sum[fmt.Sprint(*l.KeyID)] += l.CostUSD
			}
		}
		if sum[fmt.Sprint(k1.ID)] <= 0 {
			t.Fatalf("the budgeted key's rows cost nothing: %v", sum)
		}
		// The holders' spend, as the proxy settled it.
		for _, h := range []string{fmt.Sprintf("/api/keys/%d", k1.ID), fmt.Sprintf("/api/users/%d", user.ID), fmt.Sprintf("/api/teams/%d", team.ID)} {
			var spend float64
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				got := decodeJSON[map[string]any](t, ta(e).api(t, "GET", h, ""))
				if spend, _ = got["spend_usd"].(float64); math.Abs(spend-sum[fmt.Sprint(k1.ID)]) < 1e-12 {
					break
				}
			}
			if math.Abs(spend-sum[fmt.Sprint(k1.ID)]) > 1e-12 {
				t.Errorf("GET %s: spend_usd %v, want the sum of its rows %v", h, spend, sum[fmt.Sprint(k1.ID)])
			}
		}
		if rec := ta(e).api(t, "GET", "/api/keys/999999", ""); rec.Code != 404 {
			t.Errorf("GET an unknown key: %d", rec.Code)
		}

		rng := "&from=" + testNow.Add(-time.Hour).Format(time.RFC3339) + "&to=" + testNow.Add(time.Hour).Format(time.RFC3339)
		report := func(by string) map[string]spendRow {
			rec := ta(e).api(t, "GET", "/api/spend?group_by="+by+rng, "")
			if rec.Code != 200 {
				t.Fatalf("spend by %s: %d %s", by, rec.Code, rec.Body)
			}
			out := map[string]spendRow{}
			for _, r := range decodeJSON[[]spendRow](t, rec) {
				out[r.Group] = r
			}
			return out
		}
		byKey := report("key")
		r1, r2 := byKey[fmt.Sprint(k1.ID)], byKey[fmt.Sprint(*logs[0].KeyID)]
		if r1.Name != "ada-laptop" || r1.Requests != 4 || r1.UnpricedRequests != 0 || math.Abs(r1.CostUSD-sum[r1.Group]) > 1e-12 ||
			r1.InputTokens != 9 || r1.OutputTokens != 6 {
			t.Errorf("the budgeted key's spend: %+v, want 4 requests (one refused) costing %v", r1, sum[r1.Group])
		}
		if r2.Requests != 3 || r2.UnpricedRequests != 1 || math.Abs(r2.CostUSD-sum[r2.Group]) > 1e-12 {
			t.Errorf("the other key's spend: %+v, want 3 requests, 1 of unknown cost, costing %v", r2, sum[r2.Group])
		}
		if got := report("team")[fmt.Sprint(team.ID)]; got.Name != "platform" || got.Requests != 4 || math.Abs(got.CostUSD-r1.CostUSD) > 1e-12 {
			t.Errorf("the team's spend: %+v", got)
		}
		if got := report("user")[fmt.Sprint(user.ID)]; got.Name != "ada" || math.Abs(got.CostUSD-r1.CostUSD) > 1e-12 {
			t.Errorf("the user's spend: %+v", got)
		}
		models := report("model")
		if models["gpt-4o"].Requests != 5 || models["private"].UnpricedRequests != 1 || models["private"].CostUSD != 0 ||
			math.Abs(models["gpt-4o"].CostUSD-(r1.CostUSD+r2.CostUSD)) > 1e-12 {
			t.Errorf("spend by model: %+v", models)
		}
		if got := report("provider")["fake-openai"]; got.Requests != 6 {
			t.Errorf("spend by provider: %+v (the refusal reached no provider)", got)
		}
		if got := report("day")[testNow.Format(time.DateOnly)]; got.Requests != 7 || math.Abs(got.CostUSD-(r1.CostUSD+r2.CostUSD)) > 1e-12 {
			t.Errorf("spend by day: %+v", report("day"))
		}
		// CSV, by Accept.
		rec := ta(e).do(t, "GET", "/api/spend?group_by=key"+rng, "", http.Header{"Authorization": {"Bearer " + testMasterKey}, "Accept": {"text/csv"}})
		lines, err := csv.NewReader(rec.Body).ReadAll()
		if err != nil || rec.Header().Get("Content-Type") != "text/csv; charset=utf-8" || len(lines) != 3 ||
			strings.Join(lines[0], ",") != "group,name,requests,input_tokens,output_tokens,cache_read_tokens,cache_write_tokens,cost_usd,unpriced_requests" {
			t.Fatalf("CSV: %v %q %v", err, rec.Header().Get("Content-Type"), lines)
		}
		for _, l := range lines[1:] {
			cost, _ := strconv.ParseFloat(l[7], 64)
			if math.Abs(cost-sum[l[0]]) > 1e-12 {
				t.Errorf("CSV row %v: cost %v, want %v", l, cost, sum[l[0]])
			}
		}
		for _, bad := range []string{"?group_by=tag", "?from=yesterday", "?from=2026-03-02&to=2026-03-01"} {
			if rec := ta(e).api(t, "GET", "/api/spend"+bad, ""); rec.Code != 400 {
				t.Errorf("%s: %d", bad, rec.Code)
			}
		}
	})
}

func ta(e *runtimeEnv) *testApp { return e.testApp }
