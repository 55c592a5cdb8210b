package handlers

import (
	"net/http"
	"net/url"
	"strconv"
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

// inlineEdit is an inline form of the Models page that comes back with an
// error: which form, what was typed and what is wrong.
type inlineEdit struct {
	publicName string
	entryID    int64  // weight and enabled forms
	field      string // "weight", "enabled" or "fallback"
	kind       string // fallback forms
	value      string
	msg        string
	// errors by field, for the forms of several fields ("entry", "settings")
	errors    map[string]string
	values    views.ModelEntryValues // "entry"
	settings  views.PoolSettingsForm // "settings"
	providers []views.Option         // "entry", filled in by poolGroups
}

// poolGroups is every public name as a group, by name, then the default
// fallbacks when no entry is named "*" (which would show them itself).
func (a *App) poolGroups(r *http.Request, edit *inlineEdit) ([]views.PoolGroup, error) {
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
	settingsByName := map[string]*models.PoolSetting{}
	for i := range settings {
		settingsByName[settings[i].PublicName] = &settings[i]
	}
	cat := catalog.New(entries, fbs)
	prices, err := a.catalog(r.Context())
	if err != nil {
		return nil, err
	}
	csrf := sessionFrom(r.Context()).csrfToken()
	var groups []views.PoolGroup
	hasDefaults := false
	for _, members := range entriesByName(entries) {
		g := a.poolGroup(members, cat, prices, time.Now())
		g.CSRFToken = csrf
		g.Settings = poolSettingsFormOf(settingsByName[g.PublicName])
		if ps := settingsByName[g.PublicName]; ps != nil && ps.RoutingStrategy != "" {
			g.Strategy, g.StrategyHelp = ps.RoutingStrategy, strategyHelp[ps.RoutingStrategy]
		}
		g.Fallbacks = fallbackLists(cat, g.PublicName)
		groups = append(groups, g)
		hasDefaults = hasDefaults || g.PublicName == catalog.DefaultFallbacks
	}
	if !hasDefaults {
		groups = append(groups, views.PoolGroup{PublicName: catalog.DefaultFallbacks, DefaultsOnly: true, CSRFToken: csrf,
			Fallbacks: fallbackLists(cat, catalog.DefaultFallbacks)})
	}
	if edit != nil && edit.field == "entry" {
		ps, err := a.store.ListProviders(r.Context())
		if err != nil {
			return nil, err
		}
		edit.providers = providerOptions(ps)
	}
	if edit != nil {
		for i := range groups {
			if groups[i].PublicName == edit.publicName {
				edit.applyTo(&groups[i])
			}
		}
	}
	return groups, nil
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
func (a *App) poolGroup(members []models.Deployment, cat *catalog.Catalog, prices *pricing.Catalog, now time.Time) views.PoolGroup {
	name := members[0].PublicName
	g := views.PoolGroup{
		PublicName:  name,
		StatusURL:   poolURL(name),
		AddURL:      "/models?add=" + url.QueryEscape(name) + "#model-entry-form",
		Wildcard:    members[0].IsWildcard(),
		SharesKnown: a.runtime != nil,
	}
	live := a.liveMembers(name)
	tiered := usesTiers(members)
	for i := range members {
		d := &members[i]
		e := views.PoolEntry{ModelEntry: modelEntryRow(d, prices), ShareFraction: live[d.ID].PlannedShare}
		if !tiered {
			e.Tier = "" // every member is tier 0: nothing to tell apart
		}
		e.Cooling = coolingOf(live[d.ID], now)
		e.PlannedShare = formatShare(e.ShareFraction)
		if d.Weight != nil {
			e.WeightInput = formatNumber(*d.Weight)
		}
		g.Members = append(g.Members, e)
	}
	served := cat.Pool(name)
	g.NotServed = served == nil
	g.ZeroWeightTrap = served != nil && served.ZeroWeightTrap()
	g.PrefixNote = uncoveredPrefix(cat, name)
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
		Until:    formatTime(*m.CooldownUntil) + " UTC",
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

// uncoveredPrefix is "prefix/" when name looks like "prefix/model" and no
// wildcard route serves every other name under that prefix, else "".
func uncoveredPrefix(cat *catalog.Catalog, name string) string {
	i := strings.IndexByte(name, '/')
	if i <= 0 || strings.HasSuffix(name, "*") {
		return ""
	}
	if prefix := name[:i+1]; !cat.CoversAll(prefix) {
		return prefix
	}
	return ""
}

// fallbackLists is one name's three lists, each target marked when nothing
// would serve it.
func fallbackLists(cat *catalog.Catalog, name string) []views.FallbackList {
	byKind := cat.Fallbacks(name)
	out := make([]views.FallbackList, len(fallbackKinds))
	for i, k := range fallbackKinds {
		targets := byKind[k.kind]
		l := views.FallbackList{Kind: k.kind, Label: k.label, Help: k.help, Input: strings.Join(targets, ", ")}
		for _, t := range targets {
			_, _, routes := cat.Route(t)
			l.Targets = append(l.Targets, views.FallbackTarget{Name: t, Unknown: !routes})
		}
		out[i] = l
	}
	return out
}

// applyTo puts the typed value and the error into the form it came from.
func (e *inlineEdit) applyTo(g *views.PoolGroup) {
	if e.field == "fallback" {
		for i := range g.Fallbacks {
			if g.Fallbacks[i].Kind == e.kind {
				g.Fallbacks[i].Input, g.Fallbacks[i].Error = e.value, e.msg
			}
		}
		return
	}
	if e.field == "settings" {
		g.Settings = e.settings
		g.Settings.Errors = e.errors
		return
	}
	for i := range g.Members {
		m := &g.Members[i]
		if m.ID != e.entryID {
			continue
		}
		switch e.field {
		case "entry":
			m.Edit = &views.ModelEntryForm{
				IDPrefix: "edit-" + strconv.FormatInt(m.ID, 10) + "-", CSRFToken: g.CSRFToken,
				Providers: e.providers, Values: e.values, Errors: e.errors,
			}
		case "weight":
			m.WeightInput, m.WeightError = e.value, e.msg
		default:
			m.ToggleError = e.msg
		}
	}
}
