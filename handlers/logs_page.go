package handlers

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"gateway/models"
	"gateway/views"
)

// showLogs shows the Logs page: recent requests, newest first, filtered by
// the query (model, provider, key_id, status, request_id, from, to, errors)
// and paged by before, the id the page starts below. Bad filters are shown
// on the form, 422, without rows.
func (a *App) showLogs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	values := views.LogFilterValues{Model: q.Get("model"), Provider: q.Get("provider"), KeyID: q.Get("key_id"), Status: q.Get("status"),
		RequestID: strings.TrimSpace(q.Get("request_id")), From: q.Get("from"), To: q.Get("to"), Errors: q.Get("errors") == "1"}
	vm := views.LogsPage{Filter: views.LogFilterForm{Values: values}}
	keys, err := a.fillLogFilterChoices(r, &vm.Filter)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	filter, input := logFilterOf(values, q.Get("before"))
	if input != nil {
		vm.Filter.Errors = input.byField()
		a.renderPage(w, r, http.StatusUnprocessableEntity, "Logs", "logs", views.LogsContent(vm))
		return
	}
	values = withInputTimes(values, filter)
	vm.Filter.Values = values
	filter.Limit = pageFetch
	logs, err := a.store.ListRequestLogs(r.Context(), filter)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	logs, vm.OlderURL, vm.NewestURL = newestFirst(logs, filter.BeforeID, func(l *models.RequestLog) int64 { return l.ID },
		func(before int64) string { return logsURL(values, before) })
	for i := range logs {
		vm.Rows = append(vm.Rows, logRow(&logs[i], keys))
	}
	a.renderPage(w, r, http.StatusOK, "Logs", "logs", views.LogsContent(vm))
}

// logFilterOf checks the filters; blank ones select everything.
func logFilterOf(v views.LogFilterValues, before string) (models.LogFilter, *inputError) {
	f := models.LogFilter{Model: v.Model, Provider: v.Provider}
	p := formParser{}
	if v.KeyID != "" {
		if id := p.id("key_id", v.KeyID); id != nil {
			f.KeyID = *id
		}
	}
	if v.Status != "" {
		n, err := strconv.Atoi(v.Status)
		if err != nil || n < 100 || n > 599 {
			p.fail("status", "must be an HTTP status such as 429")
		}
		f.Status = n
	}
	if before != "" {
		n, err := strconv.ParseInt(before, 10, 64)
		if err != nil || n <= 0 {
			p.fail("", "the page link is broken: start again from the newest requests")
		}
		f.BeforeID = n
	}
	if len(v.Model) > 500 {
		p.fail("model", "must be at most 500 characters long")
	}
	if len(v.RequestID) > 64 {
		p.fail("request_id", "must be at most 64 characters long")
	}
	f.RequestID, f.ErrorsOnly = v.RequestID, v.Errors
	f.From = pageTime(&p, "from", v.From)
	f.To = pageTime(&p, "to", v.To)
	if !f.From.IsZero() && !f.To.IsZero() && !f.From.Before(f.To) {
		p.fail("to", "must be later than from")
	}
	return f, p.err
}

// withInputTimes writes the time filters as a datetime-local field shows
// them, in UTC: one given in RFC 3339 (a link from the API's world) would
// otherwise show as blank while it filters.
func withInputTimes(v views.LogFilterValues, f models.LogFilter) views.LogFilterValues {
	for _, t := range []struct {
		at  time.Time
		dst *string
	}{{f.From, &v.From}, {f.To, &v.To}} {
		switch {
		case t.at.IsZero():
		case t.at.Second() == 0 && t.at.Nanosecond() == 0:
			*t.dst = t.at.UTC().Format("2006-01-02T15:04")
		default:
			*t.dst = t.at.UTC().Format("2006-01-02T15:04:05")
		}
	}
	return v
}

// pageTimeLayouts are what a time filter accepts: a datetime-local field's
// value (with or without seconds), read as UTC like the page's times, or
// RFC 3339 as the API takes it.
var pageTimeLayouts = []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"}

func pageTime(p *formParser, field, s string) time.Time {
	if s = strings.TrimSpace(s); s == "" {
		return time.Time{}
	}
	for _, layout := range pageTimeLayouts {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t
		}
	}
	p.fail(field, "must be a time such as 2026-12-02T11:46 (UTC)")
	return time.Time{}
}

// fillLogFilterChoices lists what the filters offer, and returns the keys by id.
func (a *App) fillLogFilterChoices(r *http.Request, f *views.LogFilterForm) (map[int64]*models.VirtualKey, error) {
	ctx := r.Context()
	ds, err := a.store.ListDeployments(ctx)
	if err != nil {
		return nil, err
	}
	ps, err := a.store.ListProviders(ctx)
	if err != nil {
		return nil, err
	}
	ks, err := a.store.ListKeys(ctx)
	if err != nil {
		return nil, err
	}
	for _, d := range ds {
		if !d.IsWildcard() && !slices.Contains(f.Models, d.PublicName) {
			f.Models = append(f.Models, d.PublicName)
		}
	}
	for _, p := range ps {
		f.Providers = append(f.Providers, p.Name)
	}
	// Logs keep the names of providers deleted since: a filter on one stays.
	if v := f.Values.Provider; v != "" && !slices.Contains(f.Providers, v) {
		f.Providers = append(f.Providers, v)
	}
	byID := make(map[int64]*models.VirtualKey, len(ks))
	for i := range ks {
		k := &ks[i]
		byID[k.ID] = k
		f.Keys = append(f.Keys, idOption(k.ID, k.Name+" ("+k.KeyHint+")"))
	}
	return byID, nil
}

// logsURL is the Logs page with these filters, starting below before (0:
// the newest).
func logsURL(v views.LogFilterValues, before int64) string {
	q := url.Values{}
	for k, s := range map[string]string{"model": v.Model, "provider": v.Provider, "key_id": v.KeyID, "status": v.Status,
		"request_id": v.RequestID, "from": v.From, "to": v.To} {
		if s != "" {
			q.Set(k, s)
		}
	}
	if v.Errors {
		q.Set("errors", "1")
	}
	if before != 0 {
		q.Set("before", strconv.FormatInt(before, 10))
	}
	if len(q) == 0 {
		return "/logs"
	}
	return "/logs?" + q.Encode()
}

func logRow(l *models.RequestLog, keys map[int64]*models.VirtualKey) views.LogRow {
	at := l.CreatedAt.UTC()
	row := views.LogRow{
		ID:            l.ID,
		Date:          at.Format("2006-01-02"),
		Time:          at.Format("15:04:05"),
		Model:         l.Model,
		Fallback:      l.Fallback,
		Provider:      l.ProviderName,
		UpstreamModel: l.UpstreamModel,
		Endpoint:      l.Endpoint,
		Stream:        l.Stream,
		Status:        l.Status,
		OK:            l.Status >= 200 && l.Status < 400,
		Latency:       latencyText(float64(l.LatencyMS)),
		TokensIn:      countText(l.InputTokens),
		TokensOut:     countText(l.OutputTokens),
		Estimated:     l.UsageEstimated,
		Cost:          costText(l),
		Attempts:      l.Attempts,
		Error:         shorten(l.Error, 300),
		URL:           "/logs/" + strconv.FormatInt(l.ID, 10),
	}
	if l.KeyID != nil {
		if k := keys[*l.KeyID]; k != nil {
			row.Key, row.KeyHint = k.Name, k.KeyHint
		} else {
			row.Key = "deleted key #" + strconv.FormatInt(*l.KeyID, 10)
		}
	}
	return row
}

// costText is a request's cost, "unknown" when a token had no price.
func costText(l *models.RequestLog) string {
	if !l.CostKnown() {
		return "unknown"
	}
	return usdText(l.CostUSD)
}
