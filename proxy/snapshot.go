package proxy

import (
	"strings"
	"time"

	"gateway/models"
	"gateway/proxy/catalog"
	"gateway/proxy/pricing"
)

// snapshot is the routing table and the keys as one immutable value. Reload
// builds a new one and swaps it in; a request loads it once and reads it
// without locks. Nothing in it changes after the swap: runtime state (member
// statistics, later cooldowns and sticky bindings) lives in memberStates.
type snapshot struct {
	// catalog finds pools and fallbacks by the rules the admin pages read too;
	// pools holds the proxy's own pool of each catalog pool, by its Index.
	catalog  *catalog.Catalog
	pools    []*pool
	keys     map[string]*virtualKey
	settings map[string]models.PoolSetting // by public name; each pool has its own copy filled in
	// allowUnpriced lets callers with a budget use members without a price.
	allowUnpriced bool
}

// pool is one catalog pool as the proxy serves it: its members ready to call.
type pool struct {
	*catalog.Pool
	settings poolSettings
	members  []*member // in the order of the catalog pool's Members
}

// member is one model entry as the proxy serves it.
type member struct {
	id            int64
	upstreamModel string
	weight        float64       // unset reads as 0
	timeout       time.Duration // 0: the defaults
	cooldown      time.Duration // cooldown_seconds; -1: unset, 0: never cool down
	contextWindow int           // tokens; 0: unknown
	// prices are the entry's prices, the catalog's where it sets none. A
	// wildcard route's member whose model is the caller's (perModel)
	// looks its catalog prices up for each model it is asked for.
	prices   pricing.Prices
	perModel bool
	entry    *models.Deployment
	catalog  *pricing.Catalog
	rpmLimit int64 // 0: no limit
	tpmLimit int64
	priority int // the tier; lower serves first
	provider *provider
	state    *memberState
	headers  memberHeaders
}

// route is the answer to "who serves model N": a pool and, for a wildcard
// route, the part of N that '*' matched.
type route struct {
	pool   *pool
	suffix string
}

// route finds the pool for a public name by the catalog's rule: the exact
// name first, then the wildcard with the longest matching prefix.
func (s *snapshot) route(model string) (route, bool) {
	cp, suffix, ok := s.catalog.Route(model)
	if !ok {
		return route{}, false
	}
	return route{pool: s.pools[cp.Index], suffix: suffix}, true
}

// upstreamModelFor is the model the member asks its provider for on this
// route (a wildcard route's suffix replaces '*').
func (m *member) upstreamModelFor(rt route) string {
	return rt.pool.UpstreamModel(m.upstreamModel, rt.suffix)
}

// snapshotData is what Reload reads from the store.
type snapshotData struct {
	deployments []models.Deployment
	keys        []models.VirtualKey
	settings    []models.PoolSetting
	fallbacks   []models.Fallback
	users       []models.User
	teams       []models.Team
	catalog     *pricing.Catalog // the price catalog in effect
	// allowUnpriced is the setting that lets budgets use unpriced entries.
	allowUnpriced bool
}

// buildSnapshot assembles the tables. providers holds one provider per id,
// states the runtime state of each deployment.
func buildSnapshot(d snapshotData, providers map[int64]*provider, states *memberStates) *snapshot {
	s := &snapshot{
		catalog:  catalog.New(d.deployments, d.fallbacks),
		keys:     make(map[string]*virtualKey, len(d.keys)),
		settings: make(map[string]models.PoolSetting, len(d.settings)),

		allowUnpriced: d.allowUnpriced,
	}
	for _, ps := range d.settings {
		s.settings[ps.PublicName] = ps
	}
	for _, cp := range s.catalog.Pools() {
		p := &pool{Pool: cp, settings: newPoolSettings(s.settings[cp.Name])}
		for _, e := range cp.Members {
			m := newMember(e, providers[e.ProviderID], states.get(e.ID))
			m.setPrices(d.catalog)
			p.members = append(p.members, m)
		}
		s.pools = append(s.pools, p)
	}
	for i := range d.keys {
		k := newVirtualKey(&d.keys[i])
		s.keys[d.keys[i].KeyHash] = k
	}
	return s
}

func newMember(d *models.Deployment, p *provider, st *memberState) *member {
	m := &member{
		id:            d.ID,
		upstreamModel: d.UpstreamModel,
		entry:         d,
		provider:      p,
		state:         st,
		cooldown:      -1,
		weight:        catalog.Weight(d),
		rpmLimit:      int64(positive(d.RPMLimit)),
		tpmLimit:      int64(positive(d.TPMLimit)),
		priority:      d.Priority,
	}
	if p != nil { // nil only in tests of the table alone
		m.headers = newMemberHeaders(d.ID, d.UpstreamModel, p.name)
	}
	if d.CooldownSeconds != nil && *d.CooldownSeconds >= 0 {
		m.cooldown = time.Duration(*d.CooldownSeconds) * time.Second
	}
	if d.ContextWindow != nil {
		m.contextWindow = *d.ContextWindow
	}
	if d.TimeoutSeconds != nil && *d.TimeoutSeconds > 0 {
		m.timeout = time.Duration(*d.TimeoutSeconds) * time.Second
	}
	return m
}

// setPrices resolves the member's prices in catalog c.
func (m *member) setPrices(c *pricing.Catalog) {
	m.catalog = c
	m.perModel = m.entry.BaseModel == "" && strings.Contains(m.upstreamModel, "*")
	m.prices = pricing.ForEntry(c, m.providerType(), m.entry, m.upstreamModel)
}

func (m *member) providerType() string {
	if m.provider == nil {
		return m.entry.Provider.APIType // tests of the table alone
	}
	return m.provider.apiType
}

// pricesFor is the member's prices when it asks its provider for
// upstreamModel: its own, or for a wildcard route's model the catalog's
// for that model, written into room.
func (m *member) pricesFor(upstreamModel string, room *pricing.Prices) *pricing.Prices {
	if !m.perModel {
		return &m.prices
	}
	*room = pricing.ForEntry(m.catalog, m.providerType(), m.entry, upstreamModel)
	return room
}

// allPools returns every pool, wildcard routes included, by name.
func (s *snapshot) allPools() []*pool { return s.pools }

// poolNamed returns the pool whose public name is exactly name ("anthropic/*"
// for a wildcard route), or nil.
func (s *snapshot) poolNamed(name string) *pool {
	if cp := s.catalog.Pool(name); cp != nil {
		return s.pools[cp.Index]
	}
	return nil
}

// member returns the pool's member with this deployment id, or nil.
func (p *pool) member(id int64) *member {
	for _, m := range p.members {
		if m.id == id {
			return m
		}
	}
	return nil
}
