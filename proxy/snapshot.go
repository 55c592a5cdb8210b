package proxy

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"gateway/models"
)

// snapshot is the routing table and the keys as one immutable value. Reload
// builds a new one and swaps it in; a request loads it once and reads it
// without locks. Nothing in it changes after the swap: runtime state (member
// statistics, later cooldowns and sticky bindings) lives in memberStates.
type snapshot struct {
	pools     map[string]*pool // exact public names
	wildcards []*pool          // longest prefix first
	names     []*pool          // every pool by name, for /v1/models
	keys      map[string]*virtualKey
	settings  map[string]models.PoolSetting  // by public name; each pool has its own copy filled in
	fallbacks map[string]map[string][]string // public name → kind → ordered targets
}

// pool is every enabled entry sharing one public name. Disabled entries are
// left out, so a pool exists only while it has a member to offer.
type pool struct {
	name     string
	settings poolSettings
	prefix   string // wildcard routes: the name without its '*'
	wildcard bool
	created  int64 // unix seconds of the oldest member, for /v1/models
	members  []*member
}

// member is one model entry as the proxy serves it.
type member struct {
	id             int64
	upstreamModel  string
	weight         float64       // unset reads as 0
	timeout        time.Duration // 0: the defaults
	cooldown       time.Duration // cooldown_seconds; -1: unset, 0: never cool down
	contextWindow  int           // tokens; 0: unknown
	inputPrice     float64       // USD per million tokens
	outputPrice    float64
	cacheReadPrice float64
	hasCacheRead   bool
	provider       *provider
	state          *memberState
	headers        memberHeaders
}

// route is the answer to "who serves model N": a pool and, for a wildcard
// route, the part of N that '*' matched.
type route struct {
	pool   *pool
	suffix string
}

// route finds the pool for a public name: the exact name first, then the
// wildcard with the longest matching prefix.
func (s *snapshot) route(model string) (route, bool) {
	if p, ok := s.pools[model]; ok {
		return route{pool: p}, true
	}
	for _, p := range s.wildcards {
		// A bare prefix ("openai/") names no upstream model, so it matches nothing.
		if len(model) > len(p.prefix) && strings.HasPrefix(model, p.prefix) {
			return route{pool: p, suffix: model[len(p.prefix):]}, true
		}
	}
	return route{}, false
}

// upstreamModelFor is the model the member asks its provider for: on a
// wildcard route the matched suffix replaces '*' in the upstream model (which
// is used as is when it has none).
func (m *member) upstreamModelFor(rt route) string {
	if !rt.pool.wildcard {
		return m.upstreamModel
	}
	return strings.Replace(m.upstreamModel, "*", rt.suffix, 1)
}

// snapshotData is what Reload reads from the store.
type snapshotData struct {
	deployments []models.Deployment
	keys        []models.VirtualKey
	settings    []models.PoolSetting
	fallbacks   []models.Fallback
	users       []models.User
	teams       []models.Team
}

// buildSnapshot assembles the tables. providers holds one provider per id,
// states the runtime state of each deployment.
func buildSnapshot(d snapshotData, providers map[int64]*provider, states *memberStates) *snapshot {
	s := &snapshot{
		pools:     make(map[string]*pool),
		keys:      make(map[string]*virtualKey, len(d.keys)),
		settings:  make(map[string]models.PoolSetting, len(d.settings)),
		fallbacks: make(map[string]map[string][]string),
	}
	for _, ps := range d.settings {
		s.settings[ps.PublicName] = ps
	}
	s.addPools(d.deployments, providers, states)
	for _, p := range s.names {
		p.settings = newPoolSettings(s.settings[p.name])
	}
	for i := range d.keys {
		k := newVirtualKey(&d.keys[i])
		s.keys[d.keys[i].KeyHash] = k
	}
	for _, f := range d.fallbacks {
		if s.fallbacks[f.PublicName] == nil {
			s.fallbacks[f.PublicName] = make(map[string][]string)
		}
		s.fallbacks[f.PublicName][f.Kind] = append(s.fallbacks[f.PublicName][f.Kind], f.Target)
	}
	return s
}

func (s *snapshot) addPools(ds []models.Deployment, providers map[int64]*provider, states *memberStates) {
	for i := range ds {
		d := &ds[i]
		if !d.Enabled {
			continue
		}
		p := s.pools[d.PublicName]
		if p == nil {
			p = newPool(d)
			s.pools[d.PublicName] = p
			s.names = append(s.names, p)
		}
		p.created = min(p.created, d.CreatedAt.Unix())
		p.members = append(p.members, newMember(d, providers[d.ProviderID], states.get(d.ID)))
	}
	for name, p := range s.pools {
		if p.wildcard {
			s.wildcards = append(s.wildcards, p)
			// Exact lookups must never see a pattern: "openai/*" is not a model.
			delete(s.pools, name)
		}
	}
	slices.SortFunc(s.wildcards, func(a, b *pool) int {
		return cmp.Or(cmp.Compare(len(b.prefix), len(a.prefix)), strings.Compare(a.name, b.name))
	})
	slices.SortFunc(s.names, func(a, b *pool) int { return strings.Compare(a.name, b.name) })
}

func newPool(d *models.Deployment) *pool {
	p := &pool{name: d.PublicName, wildcard: d.IsWildcard(), created: d.CreatedAt.Unix()}
	if p.wildcard {
		p.prefix = strings.TrimSuffix(d.PublicName, "*")
	}
	return p
}

func newMember(d *models.Deployment, p *provider, st *memberState) *member {
	m := &member{
		id:            d.ID,
		upstreamModel: d.UpstreamModel,
		inputPrice:    d.InputPrice,
		outputPrice:   d.OutputPrice,
		provider:      p,
		state:         st,
		cooldown:      -1,
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
	if d.Weight != nil && *d.Weight > 0 {
		m.weight = *d.Weight
	}
	if d.TimeoutSeconds != nil && *d.TimeoutSeconds > 0 {
		m.timeout = time.Duration(*d.TimeoutSeconds) * time.Second
	}
	if d.CacheReadPrice != nil {
		m.cacheReadPrice, m.hasCacheRead = *d.CacheReadPrice, true
	}
	return m
}

// allPools returns every pool, wildcard routes included, by name.
func (s *snapshot) allPools() []*pool { return s.names }

// poolNamed returns the pool whose public name is exactly name ("anthropic/*"
// for a wildcard route), or nil.
func (s *snapshot) poolNamed(name string) *pool {
	if p := s.pools[name]; p != nil {
		return p
	}
	for _, p := range s.wildcards {
		if p.name == name {
			return p
		}
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
