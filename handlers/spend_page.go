package handlers

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"gateway/views"
)

// spendGroupOptions are the Spend page's groupings, labelled.
var spendGroupOptions = []views.Option{{Value: "key", Label: "Key"}, {Value: "team", Label: "Team"},
	{Value: "user", Label: "User"}, {Value: "model", Label: "Model"}, {Value: "provider", Label: "Provider"},
	{Value: "day", Label: "Day"}}

// showSpendPage handles GET /spend: the spend report of GET /api/spend,
// with the same query, and its CSV.
func (a *App) showSpendPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	now := time.Now().UTC()
	vm := views.SpendPage{Groups: spendGroupOptions, GroupBy: q.Get("group_by"), From: q.Get("from"), To: q.Get("to")}
	if vm.From == "" && vm.To == "" {
		vm.From, vm.To = now.AddDate(0, 0, -29).Format(time.DateOnly), now.Format(time.DateOnly)
		q.Set("from", vm.From)
		q.Set("to", vm.To)
	}
	sq, err := spendQueryOf(q, now)
	vm.GroupBy = sq.by
	csv := url.Values{"group_by": {sq.by}, "from": {vm.From}, "to": {vm.To}, "format": {"csv"}}
	vm.CSVURL = "/spend/export?" + csv.Encode()
	var input *userError
	if errors.As(err, &input) {
		vm.Error = input.Error()
		a.renderPage(w, r, http.StatusUnprocessableEntity, "Spend", "spend", views.SpendContent(vm))
		return
	}
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	rows, err := a.spend(r.Context(), sq)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	var total spendRowJSON
	for _, row := range rows {
		vm.Rows = append(vm.Rows, spendRowOf(row))
		total.Requests += row.Requests
		total.InputTokens += row.InputTokens
		total.OutputTokens += row.OutputTokens
		total.CacheReadTokens += row.CacheReadTokens
		total.CacheWriteTokens += row.CacheWriteTokens
		total.CostUSD += row.CostUSD
		total.UnpricedRequests += row.UnpricedRequests
	}
	total.Name = "Total"
	vm.Total = spendRowOf(total)
	a.renderPage(w, r, http.StatusOK, "Spend", "spend", views.SpendContent(vm))
}

func spendRowOf(r spendRowJSON) views.SpendRow {
	n := func(v int64) string { return withThousands(strconv.FormatInt(v, 10)) }
	row := views.SpendRow{Group: r.Group, Name: r.Name, Requests: n(r.Requests), InputTokens: n(r.InputTokens),
		OutputTokens: n(r.OutputTokens), CacheReadTokens: n(r.CacheReadTokens), CacheWriteTokens: n(r.CacheWriteTokens),
		Cost: usdExact(float64(r.CostUSD))}
	if r.UnpricedRequests > 0 {
		row.Unpriced = "+ " + n(r.UnpricedRequests) + " requests of unknown cost (no price)"
	}
	return row
}

// exportSpend handles GET /spend/export: the Spend page's report as CSV.
func (a *App) exportSpend(w http.ResponseWriter, r *http.Request) {
	sq, err := spendQueryOf(r.URL.Query(), time.Now())
	var rows []spendRowJSON
	if err == nil {
		rows, err = a.spend(r.Context(), sq)
	}
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	writeSpendCSV(w, sq, rows)
}
