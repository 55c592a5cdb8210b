package handlers

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"gateway/models"
	"gateway/proxy/catalog"
	"gateway/proxy/pricing"
	"gateway/views"
)

// budgetNearShare is how much of a hard budget spent puts it on the
// dashboard's attention panel.
const budgetNearShare = 0.8

// attention lists what needs an admin now: members cooling down (this
// gateway's view, or every replica's with Redis), members whose last check
// failed, budgets at 80 % or more of their limit, request logs waiting in
// the spool or dropped.
func (a *App) attention(ctx context.Context, entries []models.Deployment, now time.Time) ([]views.AttentionItem, error) {
	var items []views.AttentionItem
	if a.runtime != nil {
		items = append(items, a.coolingItems(entries, now)...)
	}
	checks, err := a.store.ListHealthChecks(ctx)
	if err != nil {
		return nil, err
	}
	items = append(items, failedCheckItems(entries, checks)...)
	budgets, err := a.budgetItems(ctx)
	if err != nil {
		return nil, err
	}
	items = append(items, budgets...)
	cat, err := a.catalog(ctx)
	if err != nil {
		return nil, err
	}
	items = append(items, unpricedItems(entries, cat)...)
	if a.runtime != nil {
		spooled, dropped := a.runtime.LogBacklog()
		if spooled > 0 {
			items = append(items, views.AttentionItem{Kind: "logs", Link: "/logs",
				Text: fmt.Sprintf("%d request logs wait in the spool: the database did not take them yet", spooled)})
		}
		if dropped > 0 {
			items = append(items, views.AttentionItem{Kind: "logs", Link: "/logs",
				Text: fmt.Sprintf("%d request logs were dropped since this gateway started (see its log)", dropped)})
		}
	}
	return items, nil
}

// coolingItems are the members cooling down, soonest back last.
func (a *App) coolingItems(entries []models.Deployment, now time.Time) []views.AttentionItem {
	var items []views.AttentionItem
	for _, p := range catalog.New(entries, nil).Pools() {
		name := p.Name
		status, ok := a.runtime.PoolStatus(name, nil)
		if !ok {
			continue
		}
		for _, m := range status.Members {
			if !m.CoolingDown || m.CooldownUntil == nil {
				continue
			}
			text := fmt.Sprintf("%s · %s in pool %s is cooling down until %s UTC", m.Provider, m.UpstreamModel, name, stampText(*m.CooldownUntil))
			if m.CooldownReason != "" {
				text += ": " + m.CooldownReason
			}
			items = append(items, views.AttentionItem{Kind: "cooldown", Text: text, Link: poolURL(name),
				Until: m.CooldownUntil.UTC().Format(time.RFC3339), UntilIn: formatDuration(m.CooldownUntil.Sub(now))})
		}
	}
	slices.SortStableFunc(items, func(x, y views.AttentionItem) int { return cmp.Compare(y.Until, x.Until) })
	return items
}

// failedCheckItems are the enabled members whose last live check failed.
func failedCheckItems(entries []models.Deployment, checks []models.HealthCheck) []views.AttentionItem {
	byID := make(map[int64]models.Deployment, len(entries))
	for _, e := range entries {
		byID[e.ID] = e
	}
	var items []views.AttentionItem
	for _, c := range checks {
		e, ok := byID[c.DeploymentID]
		if c.OK || !ok || !e.Enabled {
			continue
		}
		items = append(items, views.AttentionItem{Kind: "check", Link: poolURL(e.PublicName),
			Text: fmt.Sprintf("%s · %s in pool %s failed its last check (%s UTC): %s", e.Provider.Name, e.UpstreamModel,
				e.PublicName, stampText(c.CheckedAt), truncate(c.Error, 200))})
	}
	return items
}

// unpricedItems are the enabled entries with no input or output price in
// the entry or the catalog: their cost is unknown, and callers under a
// budget are refused on them (unless allow_unpriced_with_budget is on).
func unpricedItems(entries []models.Deployment, cat *pricing.Catalog) []views.AttentionItem {
	var items []views.AttentionItem
	for i := range entries {
		e := &entries[i]
		if !e.Enabled || e.IsWildcard() {
			continue
		}
		if p := entryPrices(cat, e); !p.Priced() {
			items = append(items, views.AttentionItem{Kind: "unpriced", Link: "/models/" + strconv.FormatInt(e.ID, 10) + "/edit",
				Text: fmt.Sprintf("%s · %s in pool %s has no price: its cost is unknown, and keys with a budget are refused on it; set its input and output prices (0 if it is free)",
					e.Provider.Name, e.UpstreamModel, e.PublicName)})
		}
	}
	return items
}

// budgetItems are the keys, users and teams at 80 % of their hard budget
// or more, by the stored spend.
func (a *App) budgetItems(ctx context.Context) ([]views.AttentionItem, error) {
	var items []views.AttentionItem
	near := func(what, link string, spent float64, limit *float64) {
		if limit != nil && *limit > 0 && spent >= budgetNearShare**limit {
			items = append(items, views.AttentionItem{Kind: "budget", Link: link,
				Text: fmt.Sprintf("%s has spent $%.4f of its $%.4f budget (%.0f%%)", what, spent, *limit, 100*spent / *limit)})
		}
	}
	keys, err := a.store.ListKeys(ctx)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if k.RevokedAt == nil {
			near(fmt.Sprintf("key %q", k.Name), "/keys", k.SpendUSD, k.MaxBudgetUSD)
		}
	}
	users, err := a.store.ListUsers(ctx)
	if err != nil {
		return nil, err
	}
	for _, u := range users {
		near(fmt.Sprintf("user %q", u.Name), "/users", u.SpendUSD, u.MaxBudgetUSD)
	}
	teams, err := a.store.ListTeams(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range teams {
		near(fmt.Sprintf("team %q", t.Name), "/teams", t.SpendUSD, t.MaxBudgetUSD)
	}
	return items, nil
}
