package proxy

import (
	"sort"
	"sync"
	"time"
)

// DefaultStickyTTL is how long a manual pin lasts when no TTL is given, and
// the seed's default for automatic bindings.
const DefaultStickyTTL = 2 * time.Hour

// stickyBinding routes a public name to one deployment until a deadline.
type stickyBinding struct {
	deploymentID int64
	until        time.Time
	manual       bool
}

// stickyTable holds the sticky bindings by public name. It lives in memory on
// purpose: a restart re-evaluates routes. Requests read it without
// locking; it is written after a success (only when the binding changes or
// has run a second further) and on failures.
type stickyTable struct {
	m sync.Map // string → stickyBinding
}

// lookup returns the live binding of name at now.
func (t *stickyTable) lookup(name string, now time.Time) (stickyBinding, bool) {
	v, ok := t.m.Load(name)
	if !ok {
		return stickyBinding{}, false
	}
	b := v.(stickyBinding)
	if !now.Before(b.until) {
		t.m.CompareAndDelete(name, v)
		return stickyBinding{}, false
	}
	return b, true
}

// bindAfterSuccess binds name to the member that just served it for ttl,
// unless an admin pinned another one, and returns the binding when it
// changed.
func (t *stickyTable) bindAfterSuccess(name string, id int64, ttl time.Duration, now time.Time) (stickyBinding, bool) {
	cur, ok := t.lookup(name, now)
	if ok && cur.manual && cur.deploymentID != id {
		return cur, false
	}
	next := stickyBinding{deploymentID: id, until: now.Add(ttl), manual: ok && cur.manual}
	if ok && cur.manual {
		next.until = cur.until // a pin keeps the TTL the admin gave it
	}
	if ok && cur.deploymentID == id && next.until.Sub(cur.until) < time.Second {
		return cur, false
	}
	t.m.Store(name, next)
	return next, true
}

// clearOnFailure drops the binding of name if it points at the member that
// failed, and reports whether it did.
func (t *stickyTable) clearOnFailure(name string, id int64) bool {
	if v, ok := t.m.Load(name); ok && v.(stickyBinding).deploymentID == id {
		return t.m.CompareAndDelete(name, v)
	}
	return false
}

func (t *stickyTable) pin(name string, id int64, until time.Time) {
	t.m.Store(name, stickyBinding{deploymentID: id, until: until, manual: true})
}

func (t *stickyTable) clear(name string) bool {
	_, ok := t.m.LoadAndDelete(name)
	return ok
}

func (t *stickyTable) clearAll() {
	t.m.Clear()
}

// StickyBinding is one live sticky route, for the management API.
type StickyBinding struct {
	ModelName    string    `json:"model_name"`
	DeploymentID int64     `json:"deployment_id"`
	ExpiresAt    time.Time `json:"expires_at"`
	TTLMS        int64     `json:"ttl_ms"` // what is left
	Manual       bool      `json:"manual"`
	// NotInEffect says why the binding routes nothing now (its member is
	// cooling down, disabled or gone); requests go to the others meanwhile.
	NotInEffect string `json:"not_in_effect,omitempty"`
}

// all returns the live bindings by model name.
func (t *stickyTable) all(now time.Time) []StickyBinding {
	var out []StickyBinding
	t.m.Range(func(k, v any) bool {
		b := v.(stickyBinding)
		if now.Before(b.until) {
			out = append(out, StickyBinding{ModelName: k.(string), DeploymentID: b.deploymentID,
				ExpiresAt: b.until.UTC(), TTLMS: b.until.Sub(now).Milliseconds(), Manual: b.manual})
		}
		return true
	})
	sort.Slice(out, func(i, j int) bool { return out[i].ModelName < out[j].ModelName })
	return out
}
