package proxy

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"gateway/models"
	"gateway/proxy/cluster"
	"gateway/proxy/jsonscan"
	"gateway/proxy/pricing"
)

// holder is what a budget or a rate limit belongs to: a key, a user or a team.
type holder struct {
	kind string // models.SpendKey, SpendUser, SpendTeam
	id   int64
}

// budget is one holder's spend in the current period. It is runtime state,
// kept in memory across reloads (which only update its limits).
//
// What it has spent is the database's spend as last read (stored) plus what
// this replica settled that the database may not have yet (pending): replicas
// on one database see each other's spend within the second it takes to read
// it again (Server.FollowSpend), and none of their own is ever out of sight.
// Requests reserve their worst case before they are forwarded and settle the
// real cost afterwards, so concurrent requests cannot overspend together.
// With Redis the shared counters admit instead (cluster.Admit), and this is
// the fallback while Redis is down.
type budget struct {
	mu      sync.Mutex
	name    string    // for messages: `key "ci"`
	hard    float64   // USD; 0: no hard budget
	soft    float64   // USD; 0: no soft budget
	period  string    // "", "30m", "1d", "7d", "1mo"
	anchor  time.Time // periods count from it: the holder's creation, in UTC
	resetAt time.Time // when this period ends
	// storedPeriod names the period of the database's spend that stored
	// counts from (its budget_reset_at, or the end of the first period
	// while that is unset): a spend read under another name is another
	// period's.
	storedPeriod time.Time
	stored       float64        // the database's spend in this period, as last read
	pending      []pendingSpend // settled here since, oldest first
	pendSum      float64
	reserved     float64 // in flight
	shared       float64 // what Redis said was spent, at the last admission
	warned       bool    // the soft budget's warning was logged this period
	keys         cluster.HolderKeys
}

// hasHard: the budget has a hard limit (a reload may change it).
func (b *budget) hasHard() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.hard > 0
}

// pendingSpend is a cost settled under a log sequence number: the database
// has it once the log writer has committed that number.
type pendingSpend struct {
	seq  int64
	cost float64
}

// maxPending bounds the pending list while the database is down: the oldest
// two are merged under the newer number, which only ever counts a cost a
// little longer than needed.
const maxPending = 64

func (b *budget) spent() float64 { return b.stored + b.pendSum }

// spentAfter is the stored spend and what was settled under numbers above
// seq, where seq was committed once the stored spend had been read: no cost
// is counted twice (one committed while it was read may be missed, which a
// floor allows). Caller holds b.mu.
func (b *budget) spentAfter(seq int64) float64 {
	sum := b.stored
	for _, p := range b.pending {
		if p.seq > seq {
			sum += p.cost
		}
	}
	return sum
}

// addPending records a settled cost. Caller holds b.mu.
func (b *budget) addPending(seq int64, cost float64) {
	if cost == 0 {
		return
	}
	if len(b.pending) >= maxPending {
		b.pending[1].cost += b.pending[0].cost
		b.pending = append(b.pending[:0], b.pending[1:]...)
	}
	b.pending = append(b.pending, pendingSpend{seq, cost})
	b.pendSum += cost
}

// dbPeriod names the period of a stored spend: its budget_reset_at, or
// the end of the holder's first period while no reset was ever written.
// Caller holds b.mu.
func (b *budget) dbPeriod(resetAt *time.Time) time.Time {
	switch {
	case b.period == "":
		return time.Time{}
	case resetAt != nil:
		return resetAt.UTC()
	}
	return models.BudgetPeriodEnd(b.period, b.anchor, b.anchor)
}

// refresh takes the database's spend, read after the log writer had
// committed every sequence number up to committed. A spend of another
// period (one this replica has rolled over from, or one another replica
// has rolled over to first) is not this one's and is left for a later
// read. Caller holds b.mu.
func (b *budget) refresh(spend float64, resetAt *time.Time, committed int64) {
	if !b.dbPeriod(resetAt).Equal(b.storedPeriod) {
		return
	}
	b.stored = spend
	i := 0
	for i < len(b.pending) && b.pending[i].seq <= committed {
		i++
	}
	b.pending = append(b.pending[:0], b.pending[i:]...)
	b.pendSum = 0
	for _, p := range b.pending {
		b.pendSum += p.cost
	}
}

// budgetLimits are a holder's stored budget, which a reload may change.
type budgetLimits struct {
	name string
	models.Budget
	created time.Time // periods count from it, the same on every replica
}

// accounts holds every holder's budget and rate limiter. Reload creates and
// updates them; requests reach them through their key in the snapshot.
type accounts struct {
	mu       sync.Mutex
	budgets  map[holder]*budget
	limiters map[holder]*rateLimiter
	cluster  *cluster.Cluster // names the shared counters; nil without Redis
}

func newAccounts() *accounts {
	return &accounts{budgets: make(map[holder]*budget), limiters: make(map[holder]*rateLimiter)}
}

// budgetFor returns the holder's budget, creating it from the stored spend
// the first time. Periods are counted from the holder's creation, so that
// every replica names the same ones; a budget starts in the period of its
// stored spend, which the next reservation rolls over if it is over.
// Caller holds a.mu.
func (a *accounts) budgetFor(h holder, l budgetLimits, now time.Time) *budget {
	spend, resetAt := l.SpendUSD, l.BudgetResetAt
	b := a.budgets[h]
	created := b == nil
	if created {
		b = &budget{stored: spend}
		if a.cluster != nil {
			b.keys = a.cluster.Keys(cluster.Holder{Kind: h.kind, ID: h.id})
		}
		a.budgets[h] = b
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.name = l.name
	b.hard, b.soft = deref(l.MaxBudgetUSD), deref(l.SoftBudgetUSD)
	b.anchor = l.created.UTC()
	if created || b.period != l.BudgetDuration {
		// The period of the stored spend, ended or not, lasts until the end
		// of the current one at most (sooner when it was longer, before the
		// period was shortened): the reservation after that rolls it over.
		b.period = l.BudgetDuration
		b.storedPeriod = b.dbPeriod(resetAt)
		b.resetAt = b.storedPeriod
		if end := models.BudgetPeriodEnd(b.period, b.anchor, now); end.Before(b.resetAt) {
			b.resetAt = end
		}
	}
	return b
}

func deref(p *float64) float64 {
	if p == nil || *p < 0 {
		return 0
	}
	return *p
}

// rollOver starts a new period when the old one is over, and has the
// database's spend reset between the rows of the old period and those of
// the new. Caller holds b.mu.
func (s *Server) rollOver(b *budget, h holder, now time.Time) {
	if b.period == "" || b.resetAt.IsZero() || now.Before(b.resetAt) {
		return
	}
	from := b.storedPeriod
	b.stored, b.pending, b.pendSum, b.shared, b.warned = 0, b.pending[:0], 0, 0, false
	b.resetAt = models.BudgetPeriodEnd(b.period, b.anchor, now)
	b.storedPeriod = b.resetAt // the reset below names it
	s.logs.ResetSpend(h.kind, h.id, b.resetAt, from)
}

// budgetSlack absorbs float rounding: fifty requests of $0.01 fit a $0.50
// budget even though their float sum is a hair above it.
const budgetSlack = 1e-9

// reservation is what a request holds on its budgets until it settles.
type reservation struct {
	budgets [3]*budget
	amount  float64
}

// reserve admits a request whose worst-case cost is amount against every
// budget of its key, user and team, all or none: budgets are locked in a
// fixed order, so concurrent requests neither deadlock nor overspend.
func (s *Server) reserve(k *virtualKey, amount float64, now time.Time) (reservation, error) {
	r := reservation{amount: amount}
	for i, b := range k.budgets {
		if b != nil {
			b.mu.Lock()
			defer b.mu.Unlock()
			s.rollOver(b, k.holders[i], now)
		}
	}
	for _, b := range k.budgets {
		if b != nil && b.hard > 0 && b.spent()+b.reserved+amount > b.hard+budgetSlack {
			return r, errBudgetExceeded(b, amount)
		}
	}
	for i, b := range k.budgets {
		if b != nil {
			b.reserved += amount
			r.budgets[i] = b
		}
	}
	return r, nil
}

// settle replaces the reservation by the real cost, settled under the log
// sequence number seq. The database learns of the spend from the request's
// log row, which carries the cost. It returns the budgets whose soft budget
// this cost reached, for warnSoft.
func (s *Server) settle(r reservation, cost float64, seq int64) (warn [3]*budget) {
	for i, b := range r.budgets {
		if b == nil {
			continue
		}
		b.mu.Lock()
		b.reserved = max(b.reserved-r.amount, 0)
		b.addPending(seq, cost)
		if b.soft > 0 && !b.warned && max(b.spent(), b.shared+cost) >= b.soft {
			b.warned, warn[i] = true, b
		}
		b.mu.Unlock()
	}
	return warn
}

// warnSoft logs the soft budgets a request reached, once a period each.
func (s *Server) warnSoft(warn [3]*budget) {
	for _, b := range warn {
		if b == nil {
			continue
		}
		b.mu.Lock()
		spent, soft, name := max(b.spent(), b.shared), b.soft, b.name
		b.mu.Unlock()
		s.log.Warn("soft budget reached", "holder", name, "spent_usd", spent, "soft_budget_usd", soft)
	}
}

// overSoft reports the first budget of the key past its soft budget, for a
// warning header.
func (k *virtualKey) overSoft() string {
	for _, b := range k.budgets {
		if b == nil {
			continue
		}
		b.mu.Lock()
		spent, soft := max(b.spent(), b.shared), b.soft
		b.mu.Unlock()
		if soft > 0 && spent >= soft {
			return fmt.Sprintf("%s has spent $%.4f of its soft budget of $%.4f", b.name, spent, soft)
		}
	}
	return ""
}

func errBudgetExceeded(b *budget, amount float64) *apiError {
	return budgetRefusal(b, b.spent(), b.reserved, amount)
}

// budgetRefusal is the 429 of a budget that has spent spent and holds held
// for requests in flight, refusing a request whose worst case is amount. It
// says which is the cause: the budget is spent, or there is room left but
// not for this request's worst case (a smaller max_tokens would fit).
// Caller holds b.mu.
func budgetRefusal(b *budget, spent, held, amount float64) *apiError {
	var msg string
	if left := b.hard - spent - held; left > budgetSlack {
		msg = fmt.Sprintf("budget exceeded: this request could cost up to $%.4f, more than the $%.4f left of %s's $%.4f budget "+
			"(spent $%.4f", amount, left, b.name, b.hard, spent)
		if held > 0 {
			msg += fmt.Sprintf(", $%.4f held by requests in flight", held)
		}
		msg += "); ask for fewer max_tokens"
	} else {
		msg = fmt.Sprintf("budget exceeded: %s has spent $%.4f of its $%.4f budget", b.name, spent, b.hard)
		if held > 0 {
			msg += fmt.Sprintf(" ($%.4f more held by requests in flight)", held)
		}
	}
	if !b.resetAt.IsZero() {
		msg += "; it resets at " + b.resetAt.UTC().Format(time.RFC3339)
	}
	return &apiError{Status: http.StatusTooManyRequests, Type: "budget_exceeded", Code: "budget_exceeded", Message: msg}
}

// requestEstimate is a request's worst-case cost on the pool it routes to:
// its prompt at about four bytes a token, all of it written to the cache
// for an hour, and its max tokens (4096 when it names none), at the pool's
// highest prices.
func (s *snapshot) requestEstimate(model string, req *chatRequest) float64 {
	rt, ok := s.route(model)
	if !ok {
		return 0
	}
	prompt := int64(estimatePromptTokens(req.body))
	var in, out pricing.Rate
	var room pricing.Prices
	for _, m := range rt.pool.members {
		i, o := m.pricesFor(m.upstreamModelFor(rt), &room).WorstRates(prompt)
		in, out = max(in, i), max(out, o)
	}
	return (float64(prompt)*float64(in) + float64(req.maxTokens())*float64(out)) / 1e15
}

// defaultMaxTokens is assumed for a request that names no limit.
const defaultMaxTokens = 4096

// maxTokens is the request's output limit under any of the protocols' names.
func (c *chatRequest) maxTokens() int64 {
	sc := jsonscan.NewObject(c.body, c.open)
	for key, val, ok := sc.Next(); ok; key, val, ok = sc.Next() {
		if jsonscan.KeyIs(key, "max_tokens") || jsonscan.KeyIs(key, "max_completion_tokens") || jsonscan.KeyIs(key, "max_output_tokens") {
			if n, err := strconv.ParseInt(c.raw(val), 10, 64); err == nil && n > 0 {
				return n
			}
		}
	}
	return defaultMaxTokens
}

// syncAccounts brings budgets and limiters in line with the stored keys,
// users and teams: new holders start from their stored spend, known ones keep
// what they counted. Keys are then given pointers to theirs.
func (s *Server) syncAccounts(d snapshotData, snap *snapshot) {
	now := s.now()
	a := s.accounts
	a.mu.Lock()
	defer a.mu.Unlock()
	users := make(map[int64]*budget, len(d.users))
	for _, u := range d.users {
		users[u.ID] = a.budgetFor(holder{models.SpendUser, u.ID},
			budgetLimits{fmt.Sprintf("user %q", u.Name), u.Budget, u.CreatedAt}, now)
	}
	teams := make(map[int64]*budget, len(d.teams))
	teamLimits := make(map[int64]*rateLimiter, len(d.teams))
	for _, t := range d.teams {
		teams[t.ID] = a.budgetFor(holder{models.SpendTeam, t.ID},
			budgetLimits{fmt.Sprintf("team %q", t.Name), t.Budget, t.CreatedAt}, now)
		teamLimits[t.ID] = a.limiterFor(holder{models.SpendTeam, t.ID}, fmt.Sprintf("team %q", t.Name), t.RateLimits)
	}
	for i := range d.keys {
		dk := &d.keys[i]
		k := snap.keys[dk.KeyHash]
		h := holder{models.SpendKey, dk.ID}
		k.budgets[0], k.holders[0] = a.budgetFor(h,
			budgetLimits{fmt.Sprintf("key %q", dk.Name), dk.Budget, dk.CreatedAt}, now), h
		k.limiters[0] = a.limiterFor(h, fmt.Sprintf("key %q", dk.Name), dk.RateLimits)
		if dk.UserID != nil && users[*dk.UserID] != nil {
			k.budgets[1], k.holders[1] = users[*dk.UserID], holder{models.SpendUser, *dk.UserID}
		}
		if dk.TeamID != nil && teams[*dk.TeamID] != nil {
			k.budgets[2], k.holders[2] = teams[*dk.TeamID], holder{models.SpendTeam, *dk.TeamID}
			k.limiters[1] = teamLimits[*dk.TeamID]
		}
	}
}
