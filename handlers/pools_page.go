package handlers

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"gateway/models"
	"gateway/proxy/catalog"
	"gateway/proxy/pricing"
	"gateway/views"
)

// showPoolPage handles GET /pools/{public_name}: the pool status page. Like
// the API's status it reads the store and the proxy's memory, never an
// upstream.
func (a *App) showPoolPage(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("public_name")
	vm, _, err := a.poolPage(r, name)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	interval, err := a.healthCheckInterval(r.Context())
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	vm.BackgroundChecks = backgroundChecksText(interval)
	vm.Cooldowns = a.cooldownScopeText()
	a.renderPage(w, r, http.StatusOK, "Pool "+name, "models", views.PoolStatusContent(vm))
}

// poolPage is the pool status page of name, with the status it shows.
func (a *App) poolPage(r *http.Request, name string) (views.PoolStatusPage, poolStatus, error) {
	st, err := a.poolStatus(r, name)
	if err != nil {
		return views.PoolStatusPage{}, st, err
	}
	now := time.Now()
	vm := poolStatusPageOf(st, sessionFrom(r.Context()).csrfToken(), now)
	vm.Pin = a.poolPin(st, now)
	return vm, st, nil
}

// cooldownScopeText says whose cooldowns the page shows.
func (a *App) cooldownScopeText() string {
	configured, up := false, false
	if a.runtime != nil {
		configured, up = a.runtime.SharedState()
	}
	switch {
	case !configured:
		return "Cooldowns are this gateway process's own in-memory view (another replica keeps its own; a restart clears them; GATEWAY_REDIS_URL shares them)."
	case up:
		return "Cooldowns are shared by every replica through Redis, and survive a restart."
	}
	return "Redis is unreachable: cooldowns are this process's in-memory view until it is back."
}

// backgroundChecksText says whether pools are checked on a timer.
func backgroundChecksText(interval time.Duration) string {
	if interval <= 0 {
		return "Background checks are off (set health_check_interval_minutes with PUT /api/settings to turn them on)."
	}
	every := "1 minute"
	if n := int(interval / time.Minute); n != 1 {
		every = strconv.Itoa(n) + " minutes"
	}
	return "Background checks: a pool whose members were last checked " + every + " ago or more is checked again."
}

// checkPoolPage handles POST /pools/{public_name}/check, the Check now
// button: it calls every enabled member, then htmx gets the member table with
// the results and a browser a 303 back to the page.
func (a *App) checkPoolPage(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("public_name")
	sum, err := a.checkPool(r, name)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	if !isHTMX(r) {
		seeOther(w, r, poolURL(name))
		return
	}
	a.renderPoolMembers(w, r, name, func(poolStatus) string { return sum.String() })
}

// renderPoolMembers answers htmx with the pool's member table and a line
// saying what was just done (told the pool's status, to name its members).
func (a *App) renderPoolMembers(w http.ResponseWriter, r *http.Request, name string, done func(poolStatus) string) {
	vm, st, err := a.poolPage(r, name)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	vm.Checked = done(st)
	w.Header().Add("Vary", "HX-Request")
	a.render(w, r, http.StatusOK, views.PoolMembersPartial(vm))
}

// poolStatusPageOf formats the pool's status for the page.
func poolStatusPageOf(st poolStatus, csrf string, now time.Time) views.PoolStatusPage {
	p := views.PoolStatusPage{
		PublicName: st.name,
		Wildcard:   strings.HasSuffix(st.name, "*"),
		URL:        poolURL(st.name),
		CheckURL:   poolURL(st.name) + "/check",
		CSRFToken:  csrf,
		NotServed:  true,
		Strategy:   st.strategy,
		Decides:    strategyDecides[st.strategy],
	}
	p.StrategyHelp = strategyHelp[p.Strategy]
	// usage-based routing counts every member's usage, the others only the
	// usage of members with a limit.
	counted := p.Decides == "minute"
	for _, m := range st.members {
		d := m.entry
		p.NotServed = p.NotServed && !d.Enabled
		p.Tiered = p.Tiered || d.Priority != 0
		p.Limited = p.Limited || counted || d.RPMLimit != nil || d.TPMLimit != nil
		v := poolStatusMemberOf(m, now)
		if counted && v.Requests == "" {
			v.Requests, v.Tokens = usageText(m.served.RequestsMinute, nil, "req"), usageText(m.served.TokensMinute, nil, "tok")
		}
		if v.CoolingDown {
			v.EndCooldownURL = fmt.Sprintf("%s/members/%d/end-cooldown", p.URL, d.ID)
			v.CSRFToken = csrf
		}
		p.Members = append(p.Members, v)
	}
	return p
}

// strategyDecides names the status page's column each strategy decides on.
var strategyDecides = map[string]string{
	models.StrategySimpleShuffle: "weight",
	models.StrategyLatencyBased:  "latency",
	models.StrategyLeastBusy:     "in-flight",
	models.StrategyUsageBased:    "minute",
	models.StrategyCostBased:     "price",
}

// poolPin is the pool's sticky binding, and whether it routes anything now:
// a binding to a member cooling down or disabled does not.
func (a *App) poolPin(st poolStatus, now time.Time) *views.PoolPin {
	if a.runtime == nil {
		return nil
	}
	for _, b := range a.runtime.StickyBindings() {
		if b.ModelName != st.name {
			continue
		}
		return &views.PoolPin{Until: stampText(b.ExpiresAt), UntilISO: b.ExpiresAt.UTC().Format(time.RFC3339),
			Left: formatDuration(b.ExpiresAt.Sub(now)), Manual: b.Manual, Member: memberLabel(st, b.DeploymentID),
			NotInEffect: b.NotInEffect}
	}
	return nil
}

// memberLabel names a pool member as the page shows it: provider and
// upstream model.
func memberLabel(st poolStatus, id int64) string {
	for _, m := range st.members {
		if d := m.entry; d.ID == id {
			return d.Provider.Name + " · " + d.UpstreamModel
		}
	}
	return fmt.Sprintf("member %d", id)
}

// endCooldownPage handles POST /pools/{public_name}/members/{id}/end-cooldown,
// the End cooldown button: the member is back at once (on every replica
// with Redis); htmx gets the member table, a browser a 303 back.
func (a *App) endCooldownPage(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("public_name")
	id, err := pathID(r, "member")
	if err == nil {
		var rt Runtime
		if rt, err = a.runtimeState(); err == nil {
			err = cooldownError(rt.EndCooldown(r.Context(), name, id), name, id)
			if err == nil {
				a.auditRuntime(r.Context(), "end", models.AuditCooldown, name, id)
			}
		}
	}
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	a.logger(r.Context()).Info("cooldown ended", "model", name, "deployment_id", id)
	if !isHTMX(r) {
		seeOther(w, r, poolURL(name))
		return
	}
	a.renderPoolMembers(w, r, name, func(st poolStatus) string {
		return "Cooldown of " + memberLabel(st, id) + " ended: it gets traffic again."
	})
}

// poolStatusMemberOf formats one member for the page's table.
func poolStatusMemberOf(pm poolMember, now time.Time) views.PoolStatusMember {
	d, m := pm.entry, pm.served
	v := views.PoolStatusMember{
		ID:             d.ID,
		Provider:       d.Provider.Name,
		UpstreamModel:  d.UpstreamModel,
		Enabled:        d.Enabled,
		Weight:         "unset",
		WeightUnset:    d.Weight == nil,
		PlannedShare:   formatShare(m.PlannedShare),
		PlannedFrac:    m.PlannedShare,
		Share:          formatShare(m.Share),
		ShareFrac:      m.Share,
		CoolingDown:    m.CoolingDown,
		CooldownReason: m.CooldownReason,
		Tier:           strconv.Itoa(d.Priority),
		AtLimit:        m.AtLimit,
		InFlight:       countText(m.InFlight),
		Price:          "unpriced",
	}
	if pm.price != nil {
		v.Price = pricing.Decimal(*pm.price)
	}
	// The proxy counts a minute's usage of the members with a limit (and,
	// under usage-based routing, of every member: see poolStatusPageOf).
	if d.RPMLimit != nil || d.TPMLimit != nil {
		v.Requests = usageText(m.RequestsMinute, d.RPMLimit, "req")
		v.Tokens = usageText(m.TokensMinute, d.TPMLimit, "tok")
	}
	if m.LatencyMS > 0 {
		v.Latency = latencyText(m.LatencyMS)
	}
	if d.Weight != nil {
		v.Weight = formatNumber(*d.Weight)
		v.Reserve = *d.Weight == 0
	}
	if m.PlannedShare > 0 && m.Share == 0 {
		switch {
		case m.CoolingDown:
			v.OutBecause = "cooling down"
		case m.AtLimit:
			v.OutBecause = "at its limit this minute"
		case pm.check != nil && !pm.check.OK:
			v.OutBecause = "last check failed"
		}
	}
	if m.CooldownUntil != nil {
		v.CooldownUntil = stampText(*m.CooldownUntil)
		v.CooldownUntilISO = m.CooldownUntil.UTC().Format(time.RFC3339)
		if left := m.CooldownUntil.Sub(now); left > 0 {
			v.CooldownLeft = formatDuration(left)
		}
	}
	if !catalog.Checkable(d.UpstreamModel) {
		v.Uncheckable = "not checkable: the upstream model is a wildcard pattern, which names no model to call"
	} else if c := pm.check; c != nil {
		v.Check = &views.MemberCheck{At: stampText(c.CheckedAt), AtISO: c.CheckedAt.UTC().Format(time.RFC3339), OK: c.OK,
			Latency: formatLatency(c), Error: c.Error}
		if ago := now.Sub(c.CheckedAt); ago >= 0 {
			v.Check.Ago = formatDuration(ago) + " ago"
		}
	}
	return v
}

// usageText is this minute's usage against an optional limit: "42/60 req",
// "1.2k/100k tok", "3 req" without a limit.
func usageText(used int64, limit *int, unit string) string {
	if limit == nil {
		return compactText(float64(used)) + " " + unit
	}
	return compactText(float64(used)) + "/" + compactText(float64(*limit)) + " " + unit
}

// formatLatency is the check's latency; a failed check that never reached
// the upstream has none.
func formatLatency(c *models.HealthCheck) string {
	switch {
	case c.LatencyMS > 0:
		return strconv.FormatInt(c.LatencyMS, 10) + " ms"
	case c.OK:
		return "<1 ms"
	}
	return ""
}
