package proxy

import (
	"sync"
	"sync/atomic"
)

// memberState is the runtime state of one deployment, kept apart from the
// snapshot and keyed by deployment id so that it survives reloads: an admin
// editing a weight must not reset what the gateway learnt about a member. The
// router issue adds cooldowns here; counters are atomics because every request
// touches them.
type memberState struct {
	requests atomic.Int64
	failures atomic.Int64
}

// record counts one finished request of the member.
func (st *memberState) record(failed bool) {
	st.requests.Add(1)
	if failed {
		st.failures.Add(1)
	}
}

// memberStates holds the state of every deployment. Only Reload takes its
// lock; requests reach a state through their snapshot's member.
type memberStates struct {
	mu   sync.Mutex
	byID map[int64]*memberState
}

func newMemberStates() *memberStates {
	return &memberStates{byID: make(map[int64]*memberState)}
}

// get returns the state of a deployment, creating it on first sight.
func (s *memberStates) get(id int64) *memberState {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.byID[id]
	if st == nil {
		st = &memberState{}
		s.byID[id] = st
	}
	return st
}

// retain forgets deleted deployments so that the map does not grow forever;
// a disabled one keeps its state for when it is enabled again.
func (s *memberStates) retain(keep map[int64]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id := range s.byID {
		if !keep[id] {
			delete(s.byID, id)
		}
	}
}
