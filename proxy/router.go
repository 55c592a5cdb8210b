package proxy

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"gateway/models"
	"gateway/proxy/cluster"
	"gateway/proxy/pricing"
)

// Routing defaults (design, Routing 5–7); pools override the first two.
const (
	defaultNumRetries   = 2
	defaultAllowedFails = 3
	maxFallbackDepth    = 5
	firstBackoff        = 500 * time.Millisecond
	maxBackoff          = 8 * time.Second
	maxHonouredWait     = 60 * time.Second // a longer retry-after is a cooldown, not a wait
)

// poolSettings are a pool's routing settings with the defaults filled in.
type poolSettings struct {
	numRetries   int
	allowedFails int
	stickyTTL    time.Duration // 0: no automatic sticky binding
	strategy     strategy
}

func newPoolSettings(ps models.PoolSetting) poolSettings {
	s := poolSettings{numRetries: defaultNumRetries, allowedFails: defaultAllowedFails,
		strategy: parseStrategy(ps.RoutingStrategy)}
	if ps.NumRetries != nil && *ps.NumRetries >= 0 {
		s.numRetries = *ps.NumRetries
	}
	if ps.AllowedFails != nil && *ps.AllowedFails >= 0 {
		s.allowedFails = *ps.AllowedFails
	}
	if ps.StickyTTLSeconds != nil && *ps.StickyTTLSeconds > 0 {
		s.stickyTTL = time.Duration(*ps.StickyTTLSeconds) * time.Second
	}
	return s
}

// attemptFunc makes one call to one member. It returns nil when the member
// served the request; after the first byte reached the caller it may still
// return a failure (a stream broken mid-way), for the member's record, and
// the router stops there.
type attemptFunc func(m *member, upstreamModel string) *failure

// routing is one request's way through its pool, retries and fallbacks.
type routing struct {
	s        *Server
	w        http.ResponseWriter
	r        *http.Request
	x        *exchange
	snap     *snapshot
	model    string // what the caller asked for
	estimate int    // rough prompt tokens, for members' context windows
	attempt  attemptFunc
	current  string // the public name being routed now
	// nativeOnly: a translator refused the request in the pool being
	// routed; only members taking the caller's protocol as is are left.
	nativeOnly bool
	claim      entryClaim // the attempt's place in its member's limits
	// generates: the request asks for an answer (not token counts, not
	// embeddings), so its latency is one latency-based routing compares.
	generates bool
	// refusal: the shared admission, run at a pick, refused the request.
	refusal error
	// pricedOnly: the caller has a hard budget, so members without a price
	// are no candidates; passedUnpriced: a pick passed one over.
	pricedOnly     bool
	passedUnpriced bool
}

// serve routes the request: its own pool first, then the fallbacks the
// failure calls for, breadth first, each pool routed in full, no pool twice,
// at most maxFallbackDepth of them. It writes the final failure itself, and
// returns the refusal of an admission that waited for a pick.
func (rq *routing) serve() error {
	f := rq.servePool(rq.model)
	if f == nil {
		return nil
	}
	if rq.refusal != nil {
		return rq.refused()
	}
	first, tried := f, []string(nil)
	visited := map[string]bool{rq.model: true}
	queue := rq.fallbackTargets(rq.model, f.kind)
	for len(queue) > 0 && len(tried) < maxFallbackDepth {
		name := queue[0]
		queue = queue[1:]
		if visited[name] {
			continue
		}
		visited[name] = true
		tried = append(tried, name)
		if f = rq.servePool(name); f == nil {
			return nil
		}
		if rq.refusal != nil {
			return rq.refused()
		}
		if f.clientGone() {
			break
		}
		queue = append(queue, rq.fallbackTargets(name, f.kind)...)
	}
	if rq.x.pending != nil {
		// Nothing was picked: the admission's refusal comes before the
		// routing's failure, as without Redis.
		if _, err := rq.s.admitPending(rq.w, rq.x, nil); err != nil {
			return err
		}
	}
	rq.writeFailure(first, f, tried)
	return nil
}

// refused is the admission's refusal, for a request routed nowhere.
func (rq *routing) refused() error {
	rq.x.route = ""
	return rq.refusal
}

// fallbackTargets is the ordered list of the given kind for a public name,
// by the catalog's rule: its own, else the wildcard route's it came through,
// else the defaults under "*".
func (rq *routing) fallbackTargets(name, kind string) []string {
	return rq.snap.catalog.FallbackTargets(name, kind)
}

// servePool tries the members of one pool: a first pick and up to
// num_retries more, each excluding the members already tried. It returns nil
// when the request was served or the caller already has its answer.
func (rq *routing) servePool(name string) *failure {
	rt, ok := rq.snap.route(name)
	if !ok {
		return &failure{err: errNoDeployments(name)}
	}
	rq.current, rq.nativeOnly = name, false
	if name == rq.model {
		rq.x.route = rt.pool.Name
	}
	set := rt.pool.settings
	var tried []int64
	var last *failure
	backoffs := 0
	for range set.numRetries + 1 {
		m, f := rq.nextMember(rt, tried, last, &backoffs)
		if f != nil {
			return f
		}
		if m == nil {
			break
		}
		f = rq.try(m, rt, set)
		if f == nil || rq.x.committed() || f.clientGone() {
			return f.unlessCommitted(rq.x)
		}
		last = f
		tried = append(tried, m.id)
		rq.nativeOnly = rq.nativeOnly || f.untranslatable
		if !f.retry && !f.untranslatable {
			break
		}
	}
	if last == nil {
		if rq.passedUnpriced {
			return rq.noMemberPriced(rt)
		}
		return rq.noMemberFits(rt)
	}
	return last
}

// priced: m may serve the request as far as its prices go. A caller under a
// budget is not served by a member whose tokens have no price.
func (rq *routing) priced(m *member, rt route) bool {
	if !rq.pricedOnly {
		return true
	}
	var room pricing.Prices
	if m.pricesFor(m.upstreamModelFor(rt), &room).Priced() {
		return true
	}
	rq.passedUnpriced = true
	return false
}

// noMemberPriced is the answer when only members without a price could
// serve a caller under a budget: its cost could not be counted against
// the budget. The general fallbacks may still serve it.
func (rq *routing) noMemberPriced(rt route) *failure {
	return &failure{kind: models.FallbackGeneral, err: &apiError{Status: http.StatusForbidden,
		Type: typePermission, Code: "model_unpriced",
		Message: fmt.Sprintf("the model %q has no price, and this API key is under a budget its cost could not be counted against: "+
			"an admin sets the entry's input_price and output_price (0 if it is free), or turns on allow_unpriced_with_budget in the settings",
			rt.pool.Name)}}
}

// unlessCommitted: once the caller has bytes, the router has nothing more to say.
func (f *failure) unlessCommitted(x *exchange) *failure {
	if f == nil || x.committed() {
		return nil
	}
	return f
}

// nextMember picks the member for the next attempt. When every member not
// cooling down was tried already and the last failure may pass, it backs off
// (no delay while others exist) and lets one of them try again.
func (rq *routing) nextMember(rt route, tried []int64, last *failure, backoffs *int) (*member, *failure) {
	now := rq.s.now()
	if m := rq.pick(rt, tried, now); m != nil || rq.refusal != nil {
		return m, rq.refusalFailure()
	}
	if last != nil && !last.retrySame {
		return nil, nil // asked again, a tried member would answer the same
	}
	if rt.pool.allSetAside(now) {
		return nil, rq.allSetAside(rt, now)
	}
	if last == nil {
		return nil, nil
	}
	if err := rq.s.sleep(rq.r.Context(), backoffDelay(*backoffs, last.retryAfter)); err != nil {
		return nil, clientGoneFailure()
	}
	*backoffs++
	now = rq.s.now()
	if m := rq.pick(rt, nil, now); m != nil || rq.refusal != nil {
		return m, rq.refusalFailure()
	}
	return nil, rq.allSetAside(rt, now)
}

// refusalFailure ends the pool's routing when the admission refused the
// request (serve then answers with the refusal); nil otherwise.
func (rq *routing) refusalFailure() *failure {
	if rq.refusal == nil {
		return nil
	}
	return &failure{err: asAPIError(rq.refusal)}
}

// backoffDelay is the wait before giving a tried member another go: the
// upstream's retry-after when it is short, else 0.5 s doubling up to 8 s.
func backoffDelay(n int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 && retryAfter < maxHonouredWait {
		return retryAfter
	}
	return min(firstBackoff<<min(n, 8), maxBackoff)
}

// pick narrows the pool to its candidates (not cooling down, not at an
// entry limit, not tried, long enough a context window, not needing a
// translation that was refused), keeps the lowest tier among them, honours
// a live sticky binding, and otherwise leaves the choice to the pool's
// strategy. The member picked has its place in its limits claimed. nil
// with rq.refusal set: the admission that waited for this pick refused the
// request.
func (rq *routing) pick(rt route, tried []int64, now time.Time) *member {
	var buf [16]*member // pools are small: the candidates stay on the stack
	candidates := buf[:0]
	for _, m := range rt.pool.members {
		if !m.state.coolingDown(now) && !slices.Contains(tried, m.id) && m.fits(rq.estimate) &&
			(!rq.nativeOnly || m.provider.takesAsIs(rq.x.proto, m.upstreamModelFor(rt))) && !m.atLimit(now) &&
			rq.priced(m, rt) {
			candidates = append(candidates, m)
		}
	}
	count := rt.pool.settings.strategy == strategyUsageBased
	if m := rq.bound(rt, candidates, now); m != nil {
		if got, done := rq.take(m, now, count); done {
			return got
		}
	}
	for len(candidates) > 0 {
		tier := lowestTier(candidates)
		m := rt.pool.settings.strategy.choose(tier, now)
		if got, done := rq.take(m, now, count); done {
			return got
		}
		// Its last place went to another request meanwhile.
		i := slices.Index(candidates, m)
		candidates = slices.Delete(candidates, i, i+1)
	}
	return nil
}

// take claims a place on m for the request. done says that pick ends here:
// with m, or with nil and rq.refusal set; otherwise m has no place left.
func (rq *routing) take(m *member, now time.Time, count bool) (got *member, done bool) {
	c, ok, err := rq.claimFor(m, now, count)
	switch {
	case err != nil:
		rq.refusal = err
		return nil, true
	case ok:
		rq.claim = c
		return m, true
	}
	return nil, false
}

// bound is the candidate a live sticky binding names: an admin's pin
// wherever it is, an automatic binding only in the tier that serves now (a
// binding made while the lower tiers were cooling down ends its hold when
// they are back).
func (rq *routing) bound(rt route, candidates []*member, now time.Time) *member {
	b, ok := rq.stickyBinding(rt, now)
	if !ok {
		return nil
	}
	var found *member
	top := math.MaxInt
	for _, m := range candidates {
		top = min(top, m.priority)
		if m.id == b.deploymentID {
			found = m
		}
	}
	if found == nil || (!b.manual && found.priority > top) {
		return nil
	}
	return found
}

// stickyBinding is the live binding of this request's pool: an admin's pin
// of the very name being routed first, then the pool's own. Automatic
// bindings are kept under the pool's public name, never the name asked for:
// through a wildcard route callers can name models without end.
func (rq *routing) stickyBinding(rt route, now time.Time) (stickyBinding, bool) {
	b, ok := rq.s.sticky.lookup(rq.current, now)
	if ok || rq.current == rt.pool.Name {
		return b, ok
	}
	return rq.s.sticky.lookup(rt.pool.Name, now)
}

// unstick ends the bindings of this request to a member that failed: a pin
// of the name being routed, and the pool's own binding.
func (rq *routing) unstick(rt route, id int64) {
	rq.s.unbindFailed(rq.current, id)
	if rq.current != rt.pool.Name {
		rq.s.unbindFailed(rt.pool.Name, id)
	}
}

// unbindFailed drops the binding of name to a member that failed, here and,
// with Redis, everywhere.
func (s *Server) unbindFailed(name string, id int64) {
	if s.sticky.clearOnFailure(name, id) && s.cluster != nil {
		s.cluster.UnbindFailed(name, id)
	}
}

// fits reports whether a prompt of about estimate tokens fits the member's
// known context window.
func (m *member) fits(estimate int) bool {
	return m.contextWindow <= 0 || estimate <= m.contextWindow
}

// estimatePromptTokens is a deliberately rough guess, about four bytes of
// JSON per token: enough to send a 600k-token prompt past a 200k-token
// member, never used for billing.
func estimatePromptTokens(body []byte) int { return len(body) / 4 }

func (rq *routing) noMemberFits(rt route) *failure {
	return &failure{kind: models.FallbackContextWindow, err: &apiError{Status: http.StatusBadRequest,
		Type: typeInvalidRequest, Code: "context_length_exceeded",
		Message: fmt.Sprintf("the request (about %d tokens) exceeds the context window of every member of %q",
			rq.estimate, rt.pool.Name)}}
}

// allSetAside is the answer when every member is cooling down or at its
// limits: 429 with the time until the first is back as its retry-after
// (when the caller may try again, not a guess), and the general fallbacks
// may still help.
func (rq *routing) allSetAside(rt route, now time.Time) *failure {
	wait := time.Duration(math.MaxInt64)
	cooling := 0
	for _, m := range rt.pool.members {
		wait = min(wait, m.backIn(now))
		if m.state.coolingDown(now) {
			cooling++
		}
	}
	n := len(rt.pool.members)
	if cooling == n {
		return &failure{kind: models.FallbackGeneral, retryAfter: wait, err: &apiError{
			Status: http.StatusTooManyRequests, Type: "rate_limit_error", Code: "all_members_cooling_down",
			Message: fmt.Sprintf("%s: %q: all %d members are cooling down", msgNoDeployments, rq.current, n)}}
	}
	return &failure{kind: models.FallbackGeneral, retryAfter: wait, err: &apiError{
		Status: http.StatusTooManyRequests, Type: "rate_limit_error", Code: "all_members_at_limit",
		Message: fmt.Sprintf("%s: %q: all %d members are at their rpm/tpm limits or cooling down (%d)",
			msgNoDeployments, rq.current, n, cooling)}}
}

// backIn is how long until the member may be picked again: the end of its
// cooldown, or of this minute when it is at a limit, whichever is later.
func (m *member) backIn(now time.Time) time.Duration {
	d := m.state.cooldownLeft(now)
	if m.atLimit(now.Add(d)) {
		d = nextMinute(now.Add(d)).Sub(now)
	}
	return d
}

// allSetAside reports whether no member may be picked now, whatever the
// request: each is cooling down or at its limits.
func (p *pool) allSetAside(now time.Time) bool {
	for _, m := range p.members {
		if !m.state.coolingDown(now) && !m.atLimit(now) {
			return false
		}
	}
	return true
}

// try makes one attempt, keeps the books and adds it to the trace.
func (rq *routing) try(m *member, rt route, set poolSettings) *failure {
	s, x := rq.s, rq.x
	upstreamModel := m.upstreamModelFor(rt)
	x.setMember(m, upstreamModel, rq.fallbackName())
	x.row.Error = ""
	start := s.now()
	m.state.inflight.Add(1)
	f := rq.attempt(m, upstreamModel)
	m.state.inflight.Add(-1)
	now := s.now()
	rq.settleClaim(m, f)
	switch {
	case f != nil && f.clientGone():
		x.callerLeft() // never the member's fault
	case f != nil && f.untranslatable:
		// The member was never called: nothing goes on its record.
	default:
		rq.keepBooks(m, rt, set, f, now.Sub(start), now)
	}
	x.traceAttempt(m, f, start, now)
	return f
}

// keepBooks records an attempt's outcome on its member: statistics,
// cooldown, sticky binding.
func (rq *routing) keepBooks(m *member, rt route, set poolSettings, f *failure, latency time.Duration, now time.Time) {
	s, x := rq.s, rq.x
	o := attemptOutcome{latency: latency, ok: f == nil}
	s.metrics.attempt(m, o.ok)
	if f == nil {
		o.tokensIn, o.tokensOut, o.costUSD = x.row.InputTokens, x.row.OutputTokens, x.row.CostUSD
		m.state.countSuccess(now)
		if rq.generates {
			m.state.observeLatency(now, x.latencySample(latency, now))
		}
		if set.stickyTTL > 0 {
			s.bindAfterSuccess(rt.pool.Name, m.id, set.stickyTTL, now)
		}
	} else {
		o.err = f.err.Error()
		x.upstreamFailed = x.upstreamFailed || f.trigger != noTrigger
		s.penalize(m, f, set, now)
		if f.trigger != noTrigger {
			rq.unstick(rt, m.id)
		}
	}
	m.state.recordAttempt(now, o)
	if s.cluster != nil {
		s.cluster.RecordAttempt(cluster.Attempt{DeploymentID: m.id, OK: o.ok, Latency: o.latency, TokensIn: o.tokensIn,
			TokensOut: o.tokensOut, CostNanos: nanos(o.costUSD), Err: o.err, At: now})
	}
}

// settleClaim replaces the tokens the attempt held on its member's limits
// by those it used.
func (rq *routing) settleClaim(m *member, f *failure) {
	used := int64(0)
	if f == nil {
		used = rq.x.row.InputTokens + rq.x.row.OutputTokens
	}
	rq.s.settleFor(m, rq.claim, used)
	rq.claim = entryClaim{}
}

// bindAfterSuccess binds a pool to the member that served it, and shares a
// binding that changed.
func (s *Server) bindAfterSuccess(name string, id int64, ttl time.Duration, now time.Time) {
	b, changed := s.sticky.bindAfterSuccess(name, id, ttl, now)
	if changed && s.cluster != nil {
		s.cluster.BindAfterSuccess(cluster.Binding{Name: name, DeploymentID: b.deploymentID, Until: b.until, Manual: b.manual})
	}
}

// fallbackName is the pool being routed when it is not the one asked for.
func (rq *routing) fallbackName() string {
	if rq.current == rq.model {
		return ""
	}
	return rq.current
}

// penalize cools a failed member down on the triggers cooldownTriggerOf
// names.
func (s *Server) penalize(m *member, f *failure, set poolSettings, now time.Time) {
	if f.trigger == noTrigger {
		return
	}
	reason := cooldownReason(f)
	if f.trigger == countFailure {
		if !m.state.countFailure(now, set.allowedFails) {
			return
		}
		reason = "failed too often in the last minute; last: " + reason
	}
	d := m.cooldownLength(f.retryAfter, s.defaultCooldown)
	if d <= 0 {
		return
	}
	if m.state.coolDown(now, d, reason) {
		if s.cluster != nil {
			s.cluster.CoolDown(cluster.Cooldown{DeploymentID: m.id, Until: now.Add(d), Reason: reason})
		}
		s.metrics.cooldowns.WithLabelValues(strconv.FormatInt(m.id, 10), m.provider.name).Inc()
		s.log.Info("member cooling down", "deployment_id", m.id, "provider", m.provider.name,
			"until", now.Add(d).UTC().Format(time.RFC3339), "reason", reason)
	}
}

// cooldownReason says why a member is set aside: the upstream's status and
// retry-after when it answered, then its message.
func cooldownReason(f *failure) string {
	if f.status == 0 {
		return f.err.Message
	}
	return strconv.Itoa(f.status) + f.retryAfterText() + ": " + f.err.Message
}

// cooldownLength is the member's cooldown_seconds if set (0 disables it),
// else the upstream's retry-after, else the gateway's default.
func (m *member) cooldownLength(retryAfter, def time.Duration) time.Duration {
	switch {
	case m.cooldown >= 0:
		return m.cooldown
	case retryAfter > 0:
		return retryAfter
	}
	return def
}

// writeFailure answers with the first pool's failure, naming the fallbacks
// tried. An upstream's own answer is relayed as is when nothing else was
// tried.
func (rq *routing) writeFailure(first, last *failure, tried []string) {
	x, w := rq.x, rq.w
	if first.clientGone() || last.clientGone() {
		x.callerLeft()
		return
	}
	h := w.Header()
	if x.member != nil {
		x.setGatewayHeaders(h) // the member tried last
	}
	if first.retryAfter > 0 {
		h.Set("Retry-After", strconv.FormatInt(int64(math.Ceil(first.retryAfter.Seconds())), 10))
	}
	if first.upstream != nil && len(tried) == 0 {
		rq.relayAnswer(first)
		return
	}
	e := *first.err
	if len(tried) > 0 {
		e.Message += " (fallbacks tried: " + strings.Join(tried, ", ") + ")"
	}
	rq.s.fail(w, x, &e)
}

// relayAnswer sends the upstream's error answer of f on unchanged.
func (rq *routing) relayAnswer(f *failure) {
	a := f.upstream
	h := rq.w.Header()
	if a.contentType != "" {
		h.Set("Content-Type", a.contentType)
	}
	if v := a.header.Get("Retry-After"); v != "" {
		h.Set("Retry-After", v)
	}
	h.Set("Content-Length", strconv.Itoa(len(a.body)))
	rq.w.WriteHeader(a.status)
	rq.x.wrote(rq.s.now())
	rq.x.row.Status = a.status
	rq.x.row.Error = fmt.Sprintf("upstream %d: %s", a.status, f.err.Message)
	rq.w.Write(a.body) //nolint:errcheck // the caller may be gone; nothing left to tell it
}
