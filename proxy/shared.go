package proxy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"time"

	"gateway/proxy/cluster"
)

// This file is what the server shares with its replicas through Redis
// (design, "Scale-out"), when Share was called: the shared limits and
// budgets admit requests, cooldowns and sticky bindings go to every
// replica, and the others' come back through the mirror. Without Redis, or
// while it is down, the server's own books decide, as on a single gateway.

// Share makes the server share its runtime state through c. Call it once,
// before the first Reload and before serving; c's Mirror must be the one
// Mirror returns.
func (s *Server) Share(c *cluster.Cluster) {
	s.cluster = c
	s.accounts.cluster = c
}

// Mirror returns what applies the state the other replicas share to this
// server, for cluster.Options.
func (s *Server) Mirror() cluster.Mirror { return stateMirror{s} }

type stateMirror struct{ s *Server }

func (m stateMirror) CoolDown(c cluster.Cooldown) {
	m.s.states.get(c.DeploymentID).extendTo(c.Until, c.Reason)
}

func (m stateMirror) EndCooldown(id int64) { m.s.states.get(id).endCooldown() }

func (m stateMirror) Bind(b cluster.Binding) {
	m.s.sticky.m.Store(b.Name, stickyBinding{deploymentID: b.DeploymentID, until: b.Until, manual: b.Manual})
}

func (m stateMirror) Unbind(name string, id int64) {
	switch {
	case name == "":
		m.s.sticky.clearAll()
	case id == 0:
		m.s.sticky.clear(name)
	default:
		m.s.sticky.clearOnFailure(name, id)
	}
}

func (m stateMirror) LocalCooldowns() []cluster.Cooldown {
	return m.s.states.cooldowns(m.s.now())
}

func (m stateMirror) Replace(cooldowns []cluster.Cooldown, bindings []cluster.Binding) {
	live := make(map[int64]bool, len(cooldowns))
	for _, c := range cooldowns {
		live[c.DeploymentID] = true
		m.CoolDown(c)
	}
	m.s.states.endCooldownsExcept(live)
	bound := make(map[string]bool, len(bindings))
	for _, b := range bindings {
		bound[b.Name] = true
		m.Bind(b)
	}
	m.s.sticky.m.Range(func(k, _ any) bool {
		if !bound[k.(string)] {
			m.s.sticky.m.Delete(k)
		}
		return true
	})
}

// nanos is a cost in whole nanodollars, rounded up so that shared sums
// never fall below the costs stored; usd is the way back.
func nanos(usd float64) int64 { return int64(math.Ceil(usd*1e9 - 1e-6)) }
func usd(nanos int64) float64 { return float64(nanos) / 1e9 }

// sharedAdmission is a request's admission on the limits and budgets
// shared in Redis, drawn up when the key is checked and run at its first
// pick, together with the claim on the picked member's own limits: one
// round trip for both (design, hot path).
type sharedAdmission struct {
	a        cluster.Admission
	amount   float64
	limiters [len(virtualKey{}.limiters)]*rateLimiter
	budgets  [len(virtualKey{}.budgets)]*budget
}

// prepareShared draws up the request's shared admission; nil when Redis is
// down or the key has nothing to share: the local books then decide.
func (s *Server) prepareShared(x *exchange, amount float64) *sharedAdmission {
	if s.cluster == nil || !s.cluster.Up() {
		return nil
	}
	k := x.key
	p := &sharedAdmission{a: cluster.Admission{RequestID: x.row.RequestID, Amount: nanos(amount)}, amount: amount}
	for _, l := range k.limiters {
		if l != nil {
			p.limiters[len(p.a.Limits)] = l
			p.a.Limits = append(p.a.Limits, l.shared())
		}
	}
	for i, b := range k.budgets {
		if b == nil {
			continue
		}
		if sb, ok := s.sharedBudget(b, k.holders[i], x.start); ok {
			p.budgets[len(p.a.Budgets)] = b
			p.a.Budgets = append(p.a.Budgets, sb)
		}
	}
	if len(p.a.Limits)+len(p.a.Budgets) == 0 {
		return nil
	}
	return p
}

// admitPending runs the shared admission x waits for, claiming entry too
// when it is given, and returns the refusal if any. When Redis does not
// answer, the local books admit the request and the verdict says the entry
// was not asked.
func (s *Server) admitPending(w http.ResponseWriter, x *exchange, entry *cluster.EntryClaim) (cluster.Verdict, error) {
	p := x.pending
	x.pending = nil
	v, err := s.cluster.AdmitClaiming(context.Background(), &p.a, entry)
	if err != nil {
		return cluster.Verdict{}, s.admitLocal(w, x, p.amount)
	}
	switch v.Refusal {
	case cluster.OverRPM, cluster.OverTPM:
		return v, p.limiters[v.Index].refusal(v.Refusal == cluster.OverTPM, v.RetryAfter)
	case cluster.OverBudget:
		b := p.budgets[v.Index]
		b.mu.Lock()
		defer b.mu.Unlock()
		return v, budgetRefusal(b, usd(v.Spent[0]), usd(v.Held), p.amount)
	}
	for i, b := range p.budgets[:len(p.a.Budgets)] {
		b.mu.Lock()
		b.shared = usd(v.Spent[i])
		b.mu.Unlock()
	}
	for _, l := range p.limiters[:len(p.a.Limits)] {
		l.note(x.start)
	}
	x.shared = &p.a
	// Nothing is held locally; settling adds the cost to the local books.
	x.reservation, x.reserved = reservation{budgets: x.key.budgets}, true
	s.warnOverSoft(w, x.key)
	return v, nil
}

// sharedBudget is a budget as the admission script takes it, after rolling
// its period over if it is due; ok is false for a holder without a budget.
func (s *Server) sharedBudget(b *budget, h holder, now time.Time) (sb cluster.Budget, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s.rollOver(b, h, now)
	if b.hard <= 0 && b.soft <= 0 {
		return sb, false
	}
	return cluster.Budget{Spent: b.keys.Spent(b.periodEndUnix()), Held: b.keys.Held, HeldSum: b.keys.HeldSum,
		Hard: nanos(b.hard), Seed: nanos(b.spent())}, true
}

// periodEndUnix names the period in shared keys. Caller holds b.mu.
func (b *budget) periodEndUnix() int64 {
	if b.resetAt.IsZero() {
		return 0
	}
	return b.resetAt.Unix()
}

// FollowSpend reads every budget's stored spend again each interval until
// ctx ends, so that replicas on one database see each other's spend within
// about that interval, and raises the spend shared in Redis to at least
// what the database has (Redis may have restarted, or missed settlements
// while it was down).
func (s *Server) FollowSpend(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := s.refreshSpend(ctx); err != nil && ctx.Err() == nil {
			s.log.Debug("could not read the stored spend; budgets count on with what they have", "err", err)
		}
	}
}

// refreshSpend reads the stored spend once.
func (s *Server) refreshSpend(ctx context.Context) error {
	// Read first: every row up to this number is in what the query sees.
	committed := s.logs.Committed()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	rows, err := s.store.ListSpend(ctx)
	if err != nil {
		return err
	}
	// Read again: a row committed while the query ran may be in what it
	// saw. The local books count such a row until the next read (they must
	// never miss one); a floor, which stays, must never count one twice.
	committedAfter := s.logs.Committed()
	s.accounts.mu.Lock()
	budgets := make([]*budget, len(rows))
	for i, r := range rows {
		budgets[i] = s.accounts.budgets[holder{r.Holder, r.ID}]
	}
	s.accounts.mu.Unlock()
	var floors map[string]int64
	if s.cluster != nil && s.cluster.Up() {
		floors = make(map[string]int64, len(rows))
	}
	for i, r := range rows {
		b := budgets[i]
		if b == nil {
			continue
		}
		b.mu.Lock()
		b.refresh(r.SpendUSD, r.BudgetResetAt, committed)
		if floors != nil && b.keys.Held != "" {
			floors[b.keys.Spent(b.periodEndUnix())] = nanos(b.spentAfter(committedAfter))
		}
		b.mu.Unlock()
	}
	if floors != nil {
		s.cluster.Raise(floors)
	}
	return nil
}

// EndCooldown ends the cooldown of a member of the pool named name, on
// every replica when Redis is shared.
func (s *Server) EndCooldown(ctx context.Context, name string, deploymentID int64) error {
	snap := s.snap.Load()
	if snap == nil {
		return ErrUnknownModel
	}
	p := snap.poolNamed(name)
	if p == nil {
		return fmt.Errorf("%w: %q", ErrUnknownModel, name)
	}
	m := p.member(deploymentID)
	if m == nil {
		return fmt.Errorf("%w: deployment %d, model %q", ErrNotAMember, deploymentID, name)
	}
	if s.cluster != nil {
		if err := s.cluster.EndCooldown(ctx, deploymentID); err != nil {
			return notShared(err)
		}
	}
	m.state.endCooldown()
	return nil
}

// ErrNotShared: with Redis, a change an admin makes to the runtime state
// (a cooldown ended, a sticky binding pinned or cleared) goes through
// Redis to every replica; while Redis cannot be reached it is refused and
// nothing changes, rather than holding on one replica only and being
// undone by the shared state when Redis is back.
var ErrNotShared = errors.New("redis is unreachable: nothing was changed, because the other replicas could not be told; try again when it is back")

func notShared(err error) error { return fmt.Errorf("%w (%v)", ErrNotShared, err) }

// refusal is the 429 of a limit the shared window refused.
func (l *rateLimiter) refusal(tokens bool, wait time.Duration) *apiError {
	l.mu.Lock()
	defer l.mu.Unlock()
	msg := fmt.Sprintf("%s is limited to %d requests per minute", l.name, l.rpm)
	if tokens {
		msg = fmt.Sprintf("%s is limited to %d tokens per minute", l.name, l.tpm)
	}
	return &apiError{Status: http.StatusTooManyRequests, Type: "rate_limit_error", Code: "rate_limit_exceeded",
		Message: msg, retryAfter: wait}
}

// SharedState says whether runtime state is shared through Redis, and
// whether Redis answers now.
func (s *Server) SharedState() (configured, up bool) {
	if s.cluster == nil {
		return false, false
	}
	return true, s.cluster.Up()
}

// busyInterval is how often replicas exchange their requests in flight per
// entry, for least-busy routing.
const busyInterval = 200 * time.Millisecond

// FollowBusy, with Redis, publishes this replica's requests in flight per
// entry every busyInterval and mirrors the other replicas', until ctx
// ends: least-busy routing then counts the whole cluster's, at most about
// an interval old. Without Redis it returns at once; while Redis is down the
// others' counts are dropped, not kept stale.
func (s *Server) FollowBusy(ctx context.Context) {
	if s.cluster == nil {
		return
	}
	t := time.NewTicker(busyInterval)
	defer t.Stop()
	mine := map[int64]int64{}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		clear(mine)
		for id, st := range s.states.all() {
			if n := st.inflight.Load(); n > 0 {
				mine[id] = n
			}
		}
		others, err := s.cluster.ExchangeBusy(ctx, mine)
		if err != nil {
			others = nil
		}
		for id, st := range s.states.all() {
			st.remoteBusy.Store(others[id])
		}
	}
}
