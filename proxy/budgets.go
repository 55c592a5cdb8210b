package proxy

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"gateway/models"
)

// holder is what a budget or a rate limit belongs to: a key, a user or a team.
type holder struct {
	kind string // models.SpendKey, SpendUser, SpendTeam
	id   int64
}

// budget is one holder's spend in the current period. It is runtime state:
// loaded from the database once, then kept in memory across reloads (which
// only update its limits), and written back as increments by the log writer.
// Requests reserve their worst case before they are forwarded and settle the
// real cost afterwards, so concurrent requests cannot overspend together.
type budget struct {
	mu       sync.Mutex
	name     string  // for messages: `key "ci"`
	hard     float64 // USD; 0: no hard budget
	soft     float64 // USD; 0: no soft budget
	period   string  // "", "30m", "1d", "7d", "1mo"
	resetAt  time.Time
	spent    float64 // settled in this period
	reserved float64 // in flight
	warned   bool    // the soft budget's warning was logged this period
}

// budgetLimits are what a reload may change.
type budgetLimits struct {
	name       string
	hard, soft *float64
	period     string
}

// accounts holds every holder's budget and rate limiter. Reload creates and
// updates them; requests reach them through their key in the snapshot.
type accounts struct {
	mu       sync.Mutex
	budgets  map[holder]*budget
	limiters map[holder]*rateLimiter
}

func newAccounts() *accounts {
	return &accounts{budgets: make(map[holder]*budget), limiters: make(map[holder]*rateLimiter)}
}

// budgetFor returns the holder's budget, creating it from the stored spend
// the first time. Caller holds a.mu.
func (a *accounts) budgetFor(h holder, l budgetLimits, spend float64, resetAt *time.Time, now time.Time) *budget {
	b := a.budgets[h]
	if b == nil {
		b = &budget{spent: spend}
		if resetAt != nil {
			b.resetAt = *resetAt
		}
		a.budgets[h] = b
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.name = l.name
	b.hard, b.soft = deref(l.hard), deref(l.soft)
	if b.period != l.period {
		b.period = l.period
		b.resetAt = nextReset(now, l.period)
	}
	return b
}

func deref(p *float64) float64 {
	if p == nil || *p < 0 {
		return 0
	}
	return *p
}

// nextReset is when a period that starts now ends; zero without a period.
// Calendar months are months, not 30 days.
func nextReset(now time.Time, period string) time.Time {
	if period == "" {
		return time.Time{}
	}
	if n, ok := strings.CutSuffix(period, "mo"); ok {
		k, _ := strconv.Atoi(n)
		return now.AddDate(0, max(k, 1), 0)
	}
	return now.Add(parsePeriod(period))
}

// parsePeriod reads "30m", "12h", "1d", "7d"; anything else is 0.
func parsePeriod(p string) time.Duration {
	if len(p) < 2 {
		return 0
	}
	n, err := strconv.Atoi(p[:len(p)-1])
	if err != nil || n <= 0 {
		return 0
	}
	switch p[len(p)-1] {
	case 's':
		return time.Duration(n) * time.Second
	case 'm':
		return time.Duration(n) * time.Minute
	case 'h':
		return time.Duration(n) * time.Hour
	case 'd':
		return time.Duration(n) * 24 * time.Hour
	}
	return 0
}

// rollOver starts a new period when the old one is over and reports it.
// Caller holds b.mu.
func (b *budget) rollOver(now time.Time) bool {
	if b.period == "" || b.resetAt.IsZero() || now.Before(b.resetAt) {
		return false
	}
	b.spent, b.warned = 0, false
	for !now.Before(b.resetAt) {
		b.resetAt = nextReset(b.resetAt, b.period)
	}
	return true
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
			if b.rollOver(now) {
				s.logs.resetSpend(k.holders[i], b.resetAt)
			}
		}
	}
	for _, b := range k.budgets {
		if b != nil && b.hard > 0 && b.spent+b.reserved+amount > b.hard+budgetSlack {
			return r, errBudgetExceeded(b)
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

// settle replaces the reservation by the real cost. The database learns of
// the spend from the request's log row, which carries the cost.
func (s *Server) settle(r reservation, cost float64) {
	for _, b := range r.budgets {
		if b == nil {
			continue
		}
		b.mu.Lock()
		b.reserved = max(b.reserved-r.amount, 0)
		b.spent += cost
		warn := b.soft > 0 && b.spent >= b.soft && !b.warned
		b.warned = b.warned || warn
		spent, soft, name := b.spent, b.soft, b.name
		b.mu.Unlock()
		if warn {
			s.log.Warn("soft budget reached", "holder", name, "spent_usd", spent, "soft_budget_usd", soft)
		}
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
		spent, soft := b.spent, b.soft
		b.mu.Unlock()
		if soft > 0 && spent >= soft {
			return fmt.Sprintf("%s has spent $%.4f of its soft budget of $%.4f", b.name, spent, soft)
		}
	}
	return ""
}

func errBudgetExceeded(b *budget) *apiError {
	msg := fmt.Sprintf("budget exceeded: %s has spent $%.4f of its $%.4f budget", b.name, b.spent, b.hard)
	if b.reserved > 0 {
		msg += fmt.Sprintf(" ($%.4f more held by requests in flight)", b.reserved)
	}
	if !b.resetAt.IsZero() {
		msg += "; it resets at " + b.resetAt.UTC().Format(time.RFC3339)
	}
	return &apiError{Status: http.StatusTooManyRequests, Type: "budget_exceeded", Code: "budget_exceeded", Message: msg}
}

// requestEstimate is a request's worst-case cost on the pool it routes to:
// its prompt at about four bytes a token and its max tokens (4096 when it
// names none) at the pool's highest prices.
func (s *snapshot) requestEstimate(model string, req *chatRequest) float64 {
	rt, ok := s.route(model)
	if !ok {
		return 0
	}
	var in, out float64
	for _, m := range rt.pool.members {
		in, out = max(in, m.inputPrice), max(out, m.outputPrice)
	}
	return (float64(estimatePromptTokens(req.body))*in + float64(req.maxTokens())*out) / 1e6
}

// defaultMaxTokens is assumed for a request that names no limit.
const defaultMaxTokens = 4096

// maxTokens is the request's output limit under any of the protocols' names.
func (c *chatRequest) maxTokens() int64 {
	sc := newObjectScanner(c.body, c.open)
	for key, val, ok := sc.next(); ok; key, val, ok = sc.next() {
		if keyIs(key, "max_tokens") || keyIs(key, "max_completion_tokens") || keyIs(key, "max_output_tokens") {
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
			budgetLimits{fmt.Sprintf("user %q", u.Name), u.MaxBudgetUSD, u.SoftBudgetUSD, u.BudgetDuration}, u.SpendUSD, u.BudgetResetAt, now)
	}
	teams := make(map[int64]*budget, len(d.teams))
	teamLimits := make(map[int64]*rateLimiter, len(d.teams))
	for _, t := range d.teams {
		teams[t.ID] = a.budgetFor(holder{models.SpendTeam, t.ID},
			budgetLimits{fmt.Sprintf("team %q", t.Name), t.MaxBudgetUSD, t.SoftBudgetUSD, t.BudgetDuration}, t.SpendUSD, t.BudgetResetAt, now)
		teamLimits[t.ID] = a.limiterFor(holder{models.SpendTeam, t.ID}, fmt.Sprintf("team %q", t.Name), t.RPMLimit, t.TPMLimit)
	}
	for i := range d.keys {
		dk := &d.keys[i]
		k := snap.keys[dk.KeyHash]
		h := holder{models.SpendKey, dk.ID}
		k.budgets[0], k.holders[0] = a.budgetFor(h,
			budgetLimits{fmt.Sprintf("key %q", dk.Name), dk.MaxBudgetUSD, dk.SoftBudgetUSD, dk.BudgetDuration}, dk.SpendUSD, dk.BudgetResetAt, now), h
		k.limiters[0] = a.limiterFor(h, fmt.Sprintf("key %q", dk.Name), dk.RPMLimit, dk.TPMLimit)
		if dk.UserID != nil && users[*dk.UserID] != nil {
			k.budgets[1], k.holders[1] = users[*dk.UserID], holder{models.SpendUser, *dk.UserID}
		}
		if dk.TeamID != nil && teams[*dk.TeamID] != nil {
			k.budgets[2], k.holders[2] = teams[*dk.TeamID], holder{models.SpendTeam, *dk.TeamID}
			k.limiters[1] = teamLimits[*dk.TeamID]
		}
	}
}
