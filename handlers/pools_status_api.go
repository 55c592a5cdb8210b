package handlers

import (
	"fmt"
	"net/http"
	"time"

	"gateway/models"
	"gateway/proxy"
	"gateway/proxy/pricing"
)

// poolStatusJSON is the answer to GET /api/pools/{public_name}/status.
type poolStatusJSON struct {
	PublicName string `json:"public_name"`
	// RoutingStrategy is the strategy the pool is served by, simple-shuffle
	// by default.
	RoutingStrategy string           `json:"routing_strategy"`
	Members         []poolMemberJSON `json:"members"`
}

// poolMemberJSON is one member of a pool as it is configured and served now.
// Shares are fractions 0..1: planned with every member healthy, current as
// the pool's strategy gives it now, given tiers, cooldowns, limits and failed
// health checks. A disabled member gets neither. Priority, limits and price
// are the entry's settings; the usage of this minute, requests in flight and
// latency are what the strategy decides on.
type poolMemberJSON struct {
	ID             int64            `json:"id"`
	Provider       string           `json:"provider"`
	UpstreamModel  string           `json:"upstream_model"`
	Weight         *float64         `json:"weight"` // null: unset, which picks like 0
	Enabled        bool             `json:"enabled"`
	Share          float64          `json:"share"`
	PlannedShare   float64          `json:"planned_share"`
	CoolingDown    bool             `json:"cooling_down"`
	CooldownUntil  *time.Time       `json:"cooldown_until"`
	CooldownReason string           `json:"cooldown_reason"`
	LastCheck      *healthCheckJSON `json:"last_check"` // null: never checked
	Priority       int              `json:"priority"`
	RPMLimit       *int             `json:"rpm_limit"` // null: no limit
	TPMLimit       *int             `json:"tpm_limit"`
	RequestsMinute int64            `json:"requests_this_minute"`
	TokensMinute   int64            `json:"tokens_this_minute"`
	AtLimit        bool             `json:"at_limit"`
	InFlight       int64            `json:"in_flight"`
	LatencyMS      *float64         `json:"latency_ms"` // moving average; null: no recent sample
	// Price is the input and output prices added, USD per million tokens
	// (what a cost-based pool compares); null when either is unknown.
	Price *usdJSON `json:"price_per_million"`
}

// healthCheckJSON is a member's last live check.
type healthCheckJSON struct {
	At        time.Time `json:"at"`
	OK        bool      `json:"ok"`
	LatencyMS int64     `json:"latency_ms"`
	Error     string    `json:"error"`
}

// showPoolStatus handles GET /api/pools/{public_name}/status: the members of
// the pool with exactly this public name (a wildcard route by its pattern,
// path-escaped: "anthropic%2F*"). It reads the store and the proxy's memory
// and never calls an upstream.
func (a *App) showPoolStatus(w http.ResponseWriter, r *http.Request) {
	st, err := a.poolStatus(r, r.PathValue("public_name"))
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	a.writeJSON(w, r, http.StatusOK, st.json())
}

// poolStatus is a pool as it is configured and served now: what the API's
// status answers and the pool status page shows.
type poolStatus struct {
	name string
	// strategy is the strategy the pool is served by, or would be when no
	// member is enabled.
	strategy string
	members  []poolMember
}

// poolMember is one stored entry of the pool with what the proxy serves of
// it (zero when it is disabled), its last check (nil: never checked) and its
// list price, input and output added (nil: unknown).
type poolMember struct {
	entry  *models.Deployment
	served proxy.MemberStatus
	check  *models.HealthCheck
	price  *float64
}

// poolStatus is the status of the pool with exactly this public name.
func (a *App) poolStatus(r *http.Request, name string) (poolStatus, error) {
	if err := a.validateVar("public_name", name, "required,max=500,publicname"); err != nil {
		return poolStatus{}, err
	}
	rt, err := a.runtimeState()
	if err != nil {
		return poolStatus{}, err
	}
	entries, checks, err := a.poolEntries(r, name)
	if err != nil {
		return poolStatus{}, err
	}
	served, ok := rt.PoolStatus(name, func(id int64) bool {
		c, ok := checks[id]
		return ok && !c.OK
	})
	cat, err := a.catalog(r.Context())
	if err != nil {
		return poolStatus{}, err
	}
	st := poolStatusOf(name, entries, served.Members, checks, cat)
	st.strategy = served.Strategy
	if !ok {
		// Not served (no member enabled): the strategy it would be served by.
		if st.strategy, err = a.storedStrategy(r, name); err != nil {
			return poolStatus{}, err
		}
	}
	return st, nil
}

// storedStrategy is the routing strategy stored for the pool name.
func (a *App) storedStrategy(r *http.Request, name string) (string, error) {
	ps, err := a.store.ListPoolSettings(r.Context())
	if err != nil {
		return "", err
	}
	for _, p := range ps {
		if p.PublicName == name {
			return strategyName(p.RoutingStrategy), nil
		}
	}
	return strategyName(""), nil
}

// poolEntries returns the stored entries named name, and the last health
// check of each deployment, by id.
func (a *App) poolEntries(r *http.Request, name string) ([]models.Deployment, map[int64]models.HealthCheck, error) {
	ds, err := a.store.ListDeployments(r.Context())
	if err != nil {
		return nil, nil, err
	}
	var entries []models.Deployment
	for _, d := range ds {
		if d.PublicName == name {
			entries = append(entries, d)
		}
	}
	if len(entries) == 0 {
		return nil, nil, &userError{kind: models.ErrNotFound, msg: fmt.Sprintf("no model entries with public name %q", name)}
	}
	hs, err := a.store.ListHealthChecks(r.Context())
	if err != nil {
		return nil, nil, err
	}
	checks := make(map[int64]models.HealthCheck, len(hs))
	for _, h := range hs {
		checks[h.DeploymentID] = h
	}
	return entries, checks, nil
}

// poolStatusOf joins the stored entries with what the proxy serves. The
// store says what is configured (weight unset stays unset, disabled members
// are listed); the proxy says who gets what share and who is cooling down.
func poolStatusOf(name string, entries []models.Deployment, served []proxy.MemberStatus, checks map[int64]models.HealthCheck, cat *pricing.Catalog) poolStatus {
	byID := make(map[int64]proxy.MemberStatus, len(served))
	for _, m := range served {
		byID[m.ID] = m
	}
	st := poolStatus{name: name, members: make([]poolMember, len(entries))}
	for i := range entries {
		d := &entries[i]
		m := poolMember{entry: d, served: byID[d.ID]}
		prices := entryPrices(cat, d)
		if p, ok := prices.ListPrice(); ok {
			m.price = &p
		}
		if c, ok := checks[d.ID]; ok {
			m.check = &c
		}
		st.members[i] = m
	}
	return st
}

// json is the status as GET /api/pools/{public_name}/status answers it.
func (st poolStatus) json() poolStatusJSON {
	out := poolStatusJSON{PublicName: st.name, RoutingStrategy: st.strategy, Members: make([]poolMemberJSON, len(st.members))}
	for i, pm := range st.members {
		d, m := pm.entry, pm.served
		out.Members[i] = poolMemberJSON{
			ID:             d.ID,
			Provider:       d.Provider.Name,
			UpstreamModel:  d.UpstreamModel,
			Weight:         d.Weight,
			Enabled:        d.Enabled,
			Share:          m.Share,
			PlannedShare:   m.PlannedShare,
			CoolingDown:    m.CoolingDown,
			CooldownUntil:  m.CooldownUntil,
			CooldownReason: m.CooldownReason,
			Priority:       d.Priority,
			RPMLimit:       d.RPMLimit,
			TPMLimit:       d.TPMLimit,
			RequestsMinute: m.RequestsMinute,
			TokensMinute:   m.TokensMinute,
			AtLimit:        m.AtLimit,
			InFlight:       m.InFlight,
			Price:          (*usdJSON)(pm.price),
		}
		if m.LatencyMS > 0 {
			out.Members[i].LatencyMS = &m.LatencyMS
		}
		if c := pm.check; c != nil {
			out.Members[i].LastCheck = &healthCheckJSON{At: c.CheckedAt.UTC(), OK: c.OK, LatencyMS: c.LatencyMS, Error: c.Error}
		}
	}
	return out
}
