package handlers

import "time"

// Keys of a single sign-on attempt in the pre-login session.
const (
	keySSOState    = "sso_state"
	keySSONonce    = "sso_nonce"
	keySSOVerifier = "sso_verifier"
	keySSONext     = "sso_next"
	keySSOStarted  = "sso_started"
)

// ssoAttempt is a sign-in sent to the provider: what its answer must match
// (state, and the ID token's nonce), the PKCE verifier, and where to go after.
type ssoAttempt struct {
	state, nonce, verifier, next string
	started                      time.Time
}

// startSSO keeps at in the session, replacing an earlier attempt.
func (s *session) startSSO(at ssoAttempt) {
	s.raw.Values[keySSOState] = at.state
	s.raw.Values[keySSONonce] = at.nonce
	s.raw.Values[keySSOVerifier] = at.verifier
	s.raw.Values[keySSONext] = at.next
	s.raw.Values[keySSOStarted] = at.started.Unix()
}

// takeSSO removes the session's attempt and returns it, if it had one: an
// answer from the provider is used once.
func (s *session) takeSSO() (ssoAttempt, bool) {
	started, _ := s.raw.Values[keySSOStarted].(int64)
	at := ssoAttempt{state: s.str(keySSOState), nonce: s.str(keySSONonce), verifier: s.str(keySSOVerifier),
		next: s.str(keySSONext), started: time.Unix(started, 0)}
	for _, k := range []string{keySSOState, keySSONonce, keySSOVerifier, keySSONext, keySSOStarted} {
		delete(s.raw.Values, k)
	}
	return at, at.state != "" && at.nonce != "" && at.verifier != ""
}
