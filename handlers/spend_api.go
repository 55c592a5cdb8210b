package handlers

import (
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"gateway/models"
	"gateway/proxy/pricing"
)

// spendRowJSON is one group of GET /api/spend.
type spendRowJSON struct {
	Group string `json:"group"`
	// Name is the key's, team's or user's name (the group is its id); ""
	// for the other groupings and for a holder deleted since.
	Name             string  `json:"name"`
	Requests         int64   `json:"requests"`
	InputTokens      int64   `json:"input_tokens"`
	OutputTokens     int64   `json:"output_tokens"`
	CacheReadTokens  int64   `json:"cache_read_tokens"`
	CacheWriteTokens int64   `json:"cache_write_tokens"`
	CostUSD          usdJSON `json:"cost_usd"`
	// UnpricedRequests had a token with no price: their cost is unknown
	// and not in cost_usd.
	UnpricedRequests int64 `json:"unpriced_requests"`
}

// spendQuery is a spend report's grouping and range: from and to are RFC
// 3339 times or days (YYYY-MM-DD, UTC; a day as to includes that day);
// the last 30 days by default.
type spendQuery struct {
	by       string
	from, to time.Time
}

func spendQueryOf(q url.Values, now time.Time) (spendQuery, error) {
	sq := spendQuery{by: q.Get("group_by"), to: now.UTC()}
	if sq.by == "" {
		sq.by = "key"
	}
	if !slices.Contains(models.SpendGroups, sq.by) {
		return sq, queryError("group_by", "one of "+strings.Join(models.SpendGroups, ", "))
	}
	for _, p := range []struct {
		name  string
		dst   *time.Time
		extra time.Duration // a day as "to" is its end
	}{{"from", &sq.from, 0}, {"to", &sq.to, 24 * time.Hour}} {
		v := strings.TrimSpace(q.Get(p.name))
		if v == "" {
			continue
		}
		if t, err := time.Parse(time.DateOnly, v); err == nil {
			*p.dst = t.Add(p.extra)
			continue
		}
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return sq, queryError(p.name, "a day (2026-11-30) or an RFC 3339 time (2026-11-30T00:00:00Z)")
		}
		*p.dst = t
	}
	if sq.from.IsZero() {
		sq.from = sq.to.Add(-30 * 24 * time.Hour)
	}
	if !sq.from.Before(sq.to) {
		return sq, queryError("to", "later than from")
	}
	return sq, nil
}

// spend is the report of sq, with the holders' names.
func (a *App) spend(ctx context.Context, sq spendQuery) ([]spendRowJSON, error) {
	rows, err := a.store.SpendReport(ctx, sq.by, sq.from, sq.to)
	if err != nil {
		return nil, err
	}
	names, err := a.holderNames(ctx, sq.by)
	if err != nil {
		return nil, err
	}
	out := make([]spendRowJSON, len(rows))
	for i, r := range rows {
		out[i] = spendRowJSON{Group: r.Group, Name: names[r.Group], Requests: r.Requests, InputTokens: r.InputTokens,
			OutputTokens: r.OutputTokens, CacheReadTokens: r.CacheReadTokens, CacheWriteTokens: r.CacheWriteTokens,
			CostUSD: usdJSON(r.CostUSD), UnpricedRequests: r.UnpricedRequests}
	}
	return out, nil
}

// holderNames are the names of the keys, teams or users by id; nil for the
// other groupings.
func (a *App) holderNames(ctx context.Context, by string) (map[string]string, error) {
	names := map[string]string{}
	add := func(id int64, name string) { names[strconv.FormatInt(id, 10)] = name }
	switch by {
	case "key":
		ks, err := a.store.ListKeys(ctx)
		for _, k := range ks {
			add(k.ID, k.Name)
		}
		return names, err
	case "team":
		ts, err := a.store.ListTeams(ctx)
		for _, t := range ts {
			add(t.ID, t.Name)
		}
		return names, err
	case "user":
		us, err := a.store.ListUsers(ctx)
		for _, u := range us {
			add(u.ID, u.Name)
		}
		return names, err
	}
	return names, nil
}

// showSpend handles GET /api/spend?group_by=key|team|user|model|provider|day&from=&to=:
// JSON rows, or CSV when the caller accepts text/csv (or asks format=csv).
func (a *App) showSpend(w http.ResponseWriter, r *http.Request) {
	sq, err := spendQueryOf(r.URL.Query(), time.Now())
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	rows, err := a.spend(r.Context(), sq)
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	if wantsCSV(r) {
		writeSpendCSV(w, sq, rows)
		return
	}
	a.writeJSON(w, r, http.StatusOK, rows)
}

func wantsCSV(r *http.Request) bool {
	return r.URL.Query().Get("format") == "csv" || strings.Contains(r.Header.Get("Accept"), "text/csv")
}

// spendCSVHeader is the CSV's first line: the JSON's names.
var spendCSVHeader = []string{"group", "name", "requests", "input_tokens", "output_tokens", "cache_read_tokens",
	"cache_write_tokens", "cost_usd", "unpriced_requests"}

// writeSpendCSV writes the report as a CSV download named by its range.
func writeSpendCSV(w http.ResponseWriter, sq spendQuery, rows []spendRowJSON) {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Disposition", `attachment; filename="spend-by-`+sq.by+"-"+
		sq.from.UTC().Format(time.DateOnly)+"-"+sq.to.UTC().Format(time.DateOnly)+`.csv"`)
	cw := csv.NewWriter(w)
	_ = cw.Write(spendCSVHeader)
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	for _, r := range rows {
		_ = cw.Write([]string{r.Group, r.Name, n(r.Requests), n(r.InputTokens), n(r.OutputTokens), n(r.CacheReadTokens),
			n(r.CacheWriteTokens), pricing.Decimal(float64(r.CostUSD)), n(r.UnpricedRequests)})
	}
	cw.Flush()
}
