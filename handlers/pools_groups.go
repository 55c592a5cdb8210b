package handlers

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"gateway/models"
	"gateway/proxy"
	"gateway/proxy/catalog"
	"gateway/proxy/pricing"
	"gateway/views"
)

// fallbackKinds are the three kinds of fallback, in the order the page
// shows them.
var fallbackKinds = []struct{ kind, label, help string }{
	{models.FallbackGeneral, "General", "any failure after retries, including every member cooling down"},
	{models.FallbackContextWindow, "Context window", "the prompt is too long for the model"},
	{models.FallbackContentPolicy, "Content policy", "the upstream refused the content"},
}

// poolSources are what the Models page's groups are built from, read once
// for a request.
type poolSources struct {
	entries  []models.Deployment
	cat      *catalog.Catalog
	prices   *pricing.Catalog
	settings map[string]*models.PoolSetting
	csrf     string
	now      time.Time
}

func (a *App) poolSources(r *http.Request) (*poolSources, error) {
	entries, err := a.store.ListDeployments(r.Context())
	if err != nil {
		return nil, err
	}
	fbs, err := a.store.ListFallbacks(r.Context())
	if err != nil {
		return nil, err
	}
	settings, err := a.store.ListPoolSettings(r.Context())
	if err != nil {
		return nil, err
	}
	src := &poolSources{entries: entries, cat: catalog.New(entries, fbs), settings: map[string]*models.PoolSetting{},
		csrf: sessionFrom(r.Context()).csrfToken(), now: time.Now()}
	for i := range settings {
		src.settings[settings[i].PublicName] = &settings[i]
	}
	if src.prices, err = a.catalog(r.Context()); err != nil {
		return nil, err
	}
	return src, nil
}

// poolGroups is every public name as a group, by name, then the default
// fallbacks when no entry is named "*" (which would show them itself).
func (a *App) poolGroups(r *http.Request, edit *inlineEdit) ([]views.PoolGroup, error) {
	src, err := a.poolSources(r)
	if err != nil {
		return nil, err
	}
	var groups []views.PoolGroup
	hasDefaults := false
	for _, members := range entriesByName(src.entries) {
		groups = append(groups, a.poolGroup(src, members))
		hasDefaults = hasDefaults || members[0].PublicName == catalog.DefaultFallbacks
	}
	if !hasDefaults {
		groups = append(groups, src.defaultsGroup())
	}
	return groups, a.applyEdit(r, edit, groups)
}

// poolGroupNamed is the group of one public name alone, nil when there is
// none (its last entry was deleted): the answer to an edit of that group.
func (a *App) poolGroupNamed(r *http.Request, name string, edit *inlineEdit) (*views.PoolGroup, error) {
	src, err := a.poolSources(r)
	if err != nil {
		return nil, err
	}
	var members []models.Deployment
	for _, d := range src.entries {
		if d.PublicName == name {
			members = append(members, d)
		}
	}
	var groups []views.PoolGroup
	switch {
	case len(members) > 0:
		groups = append(groups, a.poolGroup(src, members))
	case name == catalog.DefaultFallbacks:
		groups = append(groups, src.defaultsGroup())
	}
	if err := a.applyEdit(r, edit, groups); err != nil || len(groups) == 0 {
		return nil, err
	}
	return &groups[0], nil
}

// defaultsGroup is the card of the default fallbacks when no entry is
// named "*".
func (src *poolSources) defaultsGroup() views.PoolGroup {
	return views.PoolGroup{PublicName: catalog.DefaultFallbacks, DefaultsOnly: true, CSRFToken: src.csrf,
		Fallbacks: fallbackLists(src.cat.Group(catalog.DefaultFallbacks))}
}

// applyEdit puts an inline form that came back with an error into its
// group; an entry's form gets the providers to choose from.
func (a *App) applyEdit(r *http.Request, edit *inlineEdit, groups []views.PoolGroup) error {
	if edit == nil {
		return nil
	}
	if edit.field == "entry" {
		ps, err := a.store.ListProviders(r.Context())
		if err != nil {
			return err
		}
		edit.providers = providerOptions(ps)
	}
	for i := range groups {
		if groups[i].PublicName == edit.publicName {
			edit.applyTo(&groups[i])
		}
	}
	return nil
}

// entriesByName splits entries, which the store orders by public name, into
// one slice per name.
func entriesByName(entries []models.Deployment) [][]models.Deployment {
	var out [][]models.Deployment
	for i := range entries {
		n := len(out)
		if n == 0 || out[n-1][0].PublicName != entries[i].PublicName {
			out = append(out, nil)
			n++
		}
		out[n-1] = append(out[n-1], entries[i])
	}
	return out
}

// poolGroup is one public name's entries with their planned shares and
// warnings. members are every entry of the name, disabled ones too.
func (a *App) poolGroup(src *poolSources, members []models.Deployment) views.PoolGroup {
	name := members[0].PublicName
	g := views.PoolGroup{
		PublicName:  name,
		StatusURL:   poolURL(name),
		AddURL:      "/models?add=" + url.QueryEscape(name) + "#model-entry-form",
		Wildcard:    members[0].IsWildcard(),
		SharesKnown: a.runtime != nil,
		CSRFToken:   src.csrf,
		Settings:    poolSettingsFormOf(src.settings[name]),
	}
	if ps := src.settings[name]; ps != nil && ps.RoutingStrategy != "" {
		g.Strategy, g.StrategyHelp = ps.RoutingStrategy, strategyHelp[ps.RoutingStrategy]
	}
	live := a.liveMembers(name)
	tiered := usesTiers(members)
	for i := range members {
		d := &members[i]
		e := views.PoolEntry{ModelEntry: modelEntryRow(d, src.prices), ShareFraction: live[d.ID].PlannedShare}
		if !tiered {
			e.Tier = "" // every member is tier 0: nothing to tell apart
		}
		e.Cooling = coolingOf(live[d.ID], src.now)
		e.PlannedShare = formatShare(e.ShareFraction)
		if d.Weight != nil {
			e.WeightInput = formatNumber(*d.Weight)
		}
		g.Members = append(g.Members, e)
	}
	cg := src.cat.Group(name)
	g.NotServed = cg.Pool == nil
	g.ZeroWeightTrap = cg.Pool != nil && cg.Pool.ZeroWeightTrap()
	g.PrefixNote = cg.UncoveredPrefix
	g.Fallbacks = fallbackLists(cg)
	return g
}

// usesTiers: some entry has a tier other than 0, so the pages show each
// entry's.
func usesTiers(entries []models.Deployment) bool {
	for _, d := range entries {
		if d.Priority != 0 {
			return true
		}
	}
	return false
}

// liveMembers is each enabled member as the proxy serves it now, by
// deployment id: what its weight buys (by the router's own rule) and its
// cooldown. Disabled members are not in the proxy's table: they read zero.
func (a *App) liveMembers(name string) map[int64]proxy.MemberStatus {
	out := map[int64]proxy.MemberStatus{}
	if a.runtime == nil {
		return out
	}
	status, _ := a.runtime.PoolStatus(name, nil)
	for _, m := range status.Members {
		out[m.ID] = m
	}
	return out
}

// coolingOf is a member's live cooldown for its row, nil when it is not cooling.
func coolingOf(m proxy.MemberStatus, now time.Time) *views.Cooling {
	if !m.CoolingDown || m.CooldownUntil == nil {
		return nil
	}
	c := &views.Cooling{
		Until:    stampText(*m.CooldownUntil) + " UTC",
		UntilISO: m.CooldownUntil.UTC().Format(time.RFC3339),
		Reason:   m.CooldownReason,
	}
	if left := m.CooldownUntil.Sub(now); left > 0 {
		c.Left = formatDuration(left) + " left"
	}
	return c
}

// poolURL is the pool status page of a public name; "/" and "*" are escaped.
func poolURL(name string) string {
	return "/pools/" + url.PathEscape(name)
}

// fallbackLists are a group's three lists, each target marked when nothing
// would serve it.
func fallbackLists(g catalog.Group) []views.FallbackList {
	out := make([]views.FallbackList, len(fallbackKinds))
	for i, k := range fallbackKinds {
		l := views.FallbackList{Kind: k.kind, Label: k.label, Help: k.help}
		var names []string
		for _, t := range g.Fallbacks[k.kind] {
			names = append(names, t.Name)
			l.Targets = append(l.Targets, views.FallbackTarget{Name: t.Name, Unknown: !t.Routes})
		}
		l.Input = strings.Join(names, ", ")
		out[i] = l
	}
	return out
}
