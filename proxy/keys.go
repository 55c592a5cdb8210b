package proxy

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"slices"
	"strings"
	"time"

	"gateway/models"
)

// virtualKey is a caller's key as the snapshot holds it: no secret, only what
// authorising and logging a request need.
type virtualKey struct {
	id        int64
	userID    *int64
	teamID    *int64
	models    []string // allow-list; empty allows every model
	expiresAt *time.Time
	revoked   bool
	// Runtime state the key reaches (Server.syncAccounts sets it): the
	// budgets of the key, its user and its team, in that order (nil where
	// none), and the rate limiters of the key and its team.
	budgets  [3]*budget
	holders  [3]holder
	limiters [2]*rateLimiter
}

// hasHardBudget: the key, its user or its team has a hard budget.
func (k *virtualKey) hasHardBudget() bool {
	if k == nil {
		return false
	}
	for _, b := range k.budgets {
		if b != nil && b.hasHard() {
			return true
		}
	}
	return false
}

func newVirtualKey(k *models.VirtualKey) *virtualKey {
	return &virtualKey{
		id:     k.ID,
		userID: k.UserID,
		teamID: k.TeamID,
		// A copy: the snapshot shares nothing with the rows it was built from.
		models:    slices.Clone([]string(k.Models)),
		expiresAt: k.ExpiresAt,
		revoked:   k.RevokedAt != nil,
	}
}

// keyFromRequest reads the caller's key: OpenAI clients send a bearer token,
// Anthropic clients x-api-key.
func keyFromRequest(h http.Header) string {
	const bearer = "bearer "
	if v := h.Get("Authorization"); len(v) > len(bearer) && strings.EqualFold(v[:len(bearer)], bearer) {
		return strings.TrimSpace(v[len(bearer):])
	}
	return strings.TrimSpace(h.Get("X-Api-Key"))
}

// authenticate finds the caller's key. Expiry is checked here, not at build
// time, because a key may expire between two reloads.
func (s *snapshot) authenticate(h http.Header, now time.Time) (*virtualKey, error) {
	secret := keyFromRequest(h)
	if secret == "" {
		return nil, errMissingKey()
	}
	k, ok := s.keyByHash(secret)
	switch {
	case !ok:
		return nil, errInvalidKey("invalid API key")
	case k.revoked:
		return nil, errInvalidKey("this API key has been revoked")
	case k.expiresAt != nil && !now.Before(*k.expiresAt):
		return nil, errInvalidKey("this API key has expired")
	}
	return k, nil
}

// keyByHash looks a secret up by its models.HashKey form, computed on the
// stack: a string conversion used only as a map index does not allocate. A
// test keeps the two hash forms equal.
func (s *snapshot) keyByHash(secret string) (*virtualKey, bool) {
	sum := sha256.Sum256([]byte(secret))
	var hexSum [sha256.Size * 2]byte
	hex.Encode(hexSum[:], sum[:])
	k, ok := s.keys[string(hexSum[:])]
	return k, ok
}

// allows reports whether the key may use a public name. An entry ending in '*'
// allows every name with that prefix; the name itself may be a wildcard route
// ("openai/*"), which /v1/models lists.
func (k *virtualKey) allows(model string) bool {
	if len(k.models) == 0 {
		return true
	}
	for _, m := range k.models {
		if m == model {
			return true
		}
		if prefix, ok := strings.CutSuffix(m, "*"); ok && strings.HasPrefix(model, prefix) {
			return true
		}
	}
	return false
}
