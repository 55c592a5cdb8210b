package proxy

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"gateway/proxy/cluster"
)

// This file is the proxy's runtime state as the admin side sees it: member
// statistics, cooldowns, shares and sticky bindings. Nothing here is stored.

// DeploymentStats are one deployment's in-memory statistics since start.
type DeploymentStats struct {
	ID           int64      `json:"id"`
	PublicName   string     `json:"public_name"`
	Provider     string     `json:"provider"`
	Requests     int64      `json:"requests"`
	Successes    int64      `json:"successes"`
	SuccessRate  float64    `json:"success_rate"` // 0..1; 0 without requests
	AvgLatencyMS float64    `json:"avg_latency_ms"`
	P95LatencyMS float64    `json:"p95_latency_ms"`
	TokensIn     int64      `json:"tokens_in"`
	TokensOut    int64      `json:"tokens_out"`
	CostUSD      float64    `json:"cost_usd"`
	LastError    string     `json:"last_error"`
	LastErrorAt  *time.Time `json:"last_error_at"`
}

// Stats returns the statistics of every enabled deployment, by public name:
// with Redis those of every replica, else this one's since it started.
func (s *Server) Stats() []DeploymentStats {
	snap := s.snap.Load()
	if snap == nil {
		return nil
	}
	shared := s.sharedStats(snap)
	var out []DeploymentStats
	for _, pl := range snap.allPools() {
		for _, m := range pl.members {
			st, p := m.state.statsCopy()
			if sh, ok := shared[m.id]; ok {
				st, p = sh, p95(sh.latencies)
			}
			out = append(out, m.statsView(pl.Name, st, p))
		}
	}
	return out
}

// sharedStats reads every member's statistics from Redis; nil without it,
// or when it does not answer (this replica's own are shown then).
func (s *Server) sharedStats(snap *snapshot) map[int64]memberStats {
	if s.cluster == nil || !s.cluster.Up() {
		return nil
	}
	var ids []int64
	for _, p := range snap.allPools() {
		for _, m := range p.members {
			ids = append(ids, m.id)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), sharedAdminTimeout)
	defer cancel()
	got, err := s.cluster.Stats(ctx, ids)
	if err != nil {
		s.log.Warn("could not read the shared statistics; showing this replica's", "err", err)
		return nil
	}
	out := make(map[int64]memberStats, len(got))
	for id, g := range got {
		out[id] = memberStats{requests: g.Requests, successes: g.Successes, latencySum: g.LatencySum, latencies: g.Latencies,
			tokensIn: g.TokensIn, tokensOut: g.TokensOut, costUSD: usd(g.CostNanos), lastError: g.LastError, lastErrorAt: g.LastErrorAt}
	}
	return out
}

func (m *member) statsView(publicName string, st memberStats, p95 time.Duration) DeploymentStats {
	v := DeploymentStats{ID: m.id, PublicName: publicName, Provider: m.provider.name,
		Requests: st.requests, Successes: st.successes, TokensIn: st.tokensIn, TokensOut: st.tokensOut,
		CostUSD: st.costUSD, LastError: st.lastError, P95LatencyMS: ms(p95)}
	if st.requests > 0 {
		v.SuccessRate = float64(st.successes) / float64(st.requests)
		v.AvgLatencyMS = ms(st.latencySum / time.Duration(st.requests))
	}
	if !st.lastErrorAt.IsZero() {
		t := st.lastErrorAt.UTC()
		v.LastErrorAt = &t
	}
	return v
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// MemberStatus is one pool member as the pool status page shows it.
type MemberStatus struct {
	ID             int64
	Provider       string
	UpstreamModel  string
	PlannedShare   float64 // what its weight buys with every member healthy
	Share          float64 // what it gets now, given cooldowns and failed checks
	CoolingDown    bool
	CooldownUntil  *time.Time
	CooldownReason string
	// What the pool's strategy decides on.
	Priority       int
	RPMLimit       int64 // 0: none
	TPMLimit       int64
	RequestsMinute int64 // this minute's usage of the limits
	TokensMinute   int64
	AtLimit        bool
	InFlight       int64   // on every replica, as far as this one knows
	LatencyMS      float64 // moving average; 0 without a recent sample
}

// PoolStatus is a pool's strategy and members as the pool status page shows
// them.
type PoolStatus struct {
	Strategy string
	Members  []MemberStatus
}

// PoolStatus returns the strategy and the enabled members of the pool with
// exactly this public name (wildcard routes by their pattern), with shares
// computed by the same rules the router picks by: the planned share is what
// weights and tiers give with every member healthy, the current share what
// the strategy gives now, given cooldowns, limits and failed checks.
// failedCheck tells which members failed their last live check. ok is false
// when no such pool is being served.
func (s *Server) PoolStatus(name string, failedCheck func(id int64) bool) (ps PoolStatus, ok bool) {
	snap := s.snap.Load()
	if snap == nil {
		return ps, false
	}
	p := snap.poolNamed(name)
	if p == nil {
		return ps, false
	}
	now := s.now()
	planned := shares(p.members, func(*member) bool { return true })
	current := p.currentShares(now, func(m *member) bool {
		return !m.state.coolingDown(now) && !m.atLimit(now) && (failedCheck == nil || !failedCheck(m.id))
	})
	ps.Strategy = p.settings.strategy.String()
	for i, m := range p.members {
		reqs, tokens := m.state.window.usage(now)
		st := MemberStatus{ID: m.id, Provider: m.provider.name, UpstreamModel: m.upstreamModel,
			PlannedShare: planned[i], Share: current[i], Priority: m.priority, RPMLimit: m.rpmLimit,
			TPMLimit: m.tpmLimit, RequestsMinute: reqs, TokensMinute: tokens, AtLimit: m.atLimit(now),
			InFlight: m.state.busy()}
		if l, fresh := m.state.latency(now); fresh {
			st.LatencyMS = ms(l)
		}
		if until, reason, cooling := m.state.cooldown(now); cooling {
			u := until.UTC()
			st.CoolingDown, st.CooldownUntil, st.CooldownReason = true, &u, reason
		}
		ps.Members = append(ps.Members, st)
	}
	return ps, true
}

// currentShares is each member's chance of the next pick as the pool's
// strategy sees it now: the lowest tier with an available member, narrowed
// by the strategy, shared by the weight rules.
func (p *pool) currentShares(now time.Time, available func(*member) bool) []float64 {
	var cand []*member
	for _, m := range p.members {
		if available(m) {
			cand = append(cand, m)
		}
	}
	chosen := p.settings.strategy.narrow(lowestTier(cand), now)
	return shares(p.members, func(m *member) bool { return slices.Contains(chosen, m) })
}

// Errors of PinSticky, for the management API to map to 404 and 400.
var (
	ErrUnknownModel = errors.New("no pool serves this model")
	ErrNotAMember   = errors.New("the deployment is not an enabled member of this model's pool")
)

// StickyBindings returns the live sticky bindings.
func (s *Server) StickyBindings() []StickyBinding {
	now := s.now()
	bs := s.sticky.all(now)
	if snap := s.snap.Load(); snap != nil {
		for i := range bs {
			bs[i].NotInEffect = snap.bindingNotInEffect(bs[i].ModelName, bs[i].DeploymentID, now)
		}
	}
	return bs
}

// bindingNotInEffect says why a binding of name to member id routes nothing
// at now, "" when it routes.
func (s *snapshot) bindingNotInEffect(name string, id int64, now time.Time) string {
	p := s.poolNamed(name)
	if rt, ok := s.route(name); p == nil && ok {
		p = rt.pool // a name a wildcard route serves
	}
	if p == nil {
		return "no pool serves this name"
	}
	m := p.member(id)
	switch {
	case m == nil:
		return "the member is not an enabled member of the pool"
	case m.state.coolingDown(now):
		until, _, _ := m.state.cooldown(now)
		return "the member is cooling down until " + until.UTC().Format(time.RFC3339) + "; requests go to the others until it is back"
	}
	return ""
}

// PinSticky routes model to one member of its pool for ttl (DefaultStickyTTL
// when ttl <= 0), until it fails or the pin is cleared.
func (s *Server) PinSticky(model string, deploymentID int64, ttl time.Duration) error {
	snap := s.snap.Load()
	if snap == nil {
		return ErrUnknownModel
	}
	rt, ok := snap.route(model)
	if !ok {
		return fmt.Errorf("%w: %q", ErrUnknownModel, model)
	}
	if rt.pool.member(deploymentID) == nil {
		return fmt.Errorf("%w: deployment %d, model %q", ErrNotAMember, deploymentID, model)
	}
	if ttl <= 0 {
		ttl = DefaultStickyTTL
	}
	until := s.now().Add(ttl)
	if s.cluster != nil {
		ctx, cancel := context.WithTimeout(context.Background(), sharedAdminTimeout)
		defer cancel()
		if err := s.cluster.Pin(ctx, cluster.Binding{Name: model, DeploymentID: deploymentID, Until: until}); err != nil {
			return notShared(err)
		}
	}
	s.sticky.pin(model, deploymentID, until)
	return nil
}

// sharedAdminTimeout bounds an admin's change on its way to Redis.
const sharedAdminTimeout = 2 * time.Second

// ClearSticky drops the binding of model and reports whether there was one.
func (s *Server) ClearSticky(model string) (bool, error) {
	var n int64
	if s.cluster != nil {
		ctx, cancel := context.WithTimeout(context.Background(), sharedAdminTimeout)
		defer cancel()
		var err error
		if n, err = s.cluster.Unbind(ctx, model); err != nil {
			return false, notShared(err)
		}
	}
	return s.sticky.clear(model) || n > 0, nil
}

// ClearAllSticky drops every binding.
func (s *Server) ClearAllSticky() error {
	if s.cluster != nil {
		ctx, cancel := context.WithTimeout(context.Background(), sharedAdminTimeout)
		defer cancel()
		if _, err := s.cluster.Unbind(ctx, ""); err != nil {
			return notShared(err)
		}
	}
	s.sticky.clearAll()
	return nil
}

// LogBacklog is the request-log writer's state, for the admin's attention:
// rows waiting in the spool (the database was down) and rows dropped since
// the start.
func (s *Server) LogBacklog() (spooled, dropped int64) {
	return s.logs.Spooled(), s.logs.Dropped()
}
