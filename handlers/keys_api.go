package handlers

import (
	"context"
	"net/http"
	"time"

	"gateway/models"
)

// keyInput is the body of POST /api/keys.
type keyInput struct {
	Name   string   `json:"name" validate:"required,max=200,singleline"`
	Models []string `json:"models" validate:"max=1000,dive,required,max=500,publicname"`
	budgetInput
	limitsInput
	UserID    *int64     `json:"user_id" validate:"omitnil,gt=0"`
	TeamID    *int64     `json:"team_id" validate:"omitnil,gt=0"`
	ExpiresAt *timestamp `json:"expires_at"`
}

// keyPatchInput is the body of PATCH /api/keys/{id}: "revoked": true
// revokes the key, false restores it.
type keyPatchInput struct {
	keyInput
	Revoked bool `json:"revoked"`
}

func keyPatchInputOf(k *models.VirtualKey) keyPatchInput {
	return keyPatchInput{keyInput: keyInputOf(k), Revoked: k.RevokedAt != nil}
}

// applyTo writes the input into k; a key revoked again keeps the time it
// was first revoked.
func (in *keyPatchInput) applyTo(k *models.VirtualKey) {
	in.keyInput.applyTo(k)
	switch {
	case !in.Revoked:
		k.RevokedAt = nil
	case k.RevokedAt == nil:
		now := time.Now().UTC()
		k.RevokedAt = &now
	}
}

func keyInputOf(k *models.VirtualKey) keyInput {
	return keyInput{
		Name:        k.Name,
		Models:      k.Models,
		budgetInput: budgetInputOf(k.Budget),
		limitsInput: limitsInputOf(k.RateLimits),
		UserID:      k.UserID,
		TeamID:      k.TeamID,
		ExpiresAt:   timestampOf(k.ExpiresAt),
	}
}

func (in *keyInput) applyTo(k *models.VirtualKey) {
	k.Name = in.Name
	k.Models = models.StringList(in.Models)
	if k.Models == nil {
		k.Models = models.StringList{}
	}
	in.budgetInput.applyTo(&k.Budget)
	in.limitsInput.applyTo(&k.RateLimits)
	k.UserID = in.UserID
	k.TeamID = in.TeamID
	k.ExpiresAt = in.ExpiresAt.timePtr()
}

// keyJSON is a virtual key in API answers: its hint, never its hash.
type keyJSON struct {
	ID      int64    `json:"id"`
	Name    string   `json:"name"`
	KeyHint string   `json:"key_hint"`
	Models  []string `json:"models"`
	budgetJSON
	limitsJSON
	UserID    *int64     `json:"user_id"`
	TeamID    *int64     `json:"team_id"`
	ExpiresAt *time.Time `json:"expires_at"`
	Revoked   bool       `json:"revoked"`
	RevokedAt *time.Time `json:"revoked_at"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
}

// newKeyJSON is the answer to POST /api/keys: the only time the key is shown.
type newKeyJSON struct {
	keyJSON
	Key string `json:"key"`
}

func keyJSONOf(k *models.VirtualKey) keyJSON {
	ms := []string(k.Models)
	if ms == nil {
		ms = []string{}
	}
	return keyJSON{
		ID:         k.ID,
		Name:       k.Name,
		KeyHint:    k.KeyHint,
		Models:     ms,
		budgetJSON: budgetJSONOf(k.Budget),
		limitsJSON: limitsJSONOf(k.RateLimits),
		UserID:     k.UserID,
		TeamID:     k.TeamID,
		ExpiresAt:  k.ExpiresAt,
		Revoked:    k.RevokedAt != nil,
		RevokedAt:  k.RevokedAt,
		CreatedAt:  k.CreatedAt,
		UpdatedAt:  k.UpdatedAt,
	}
}

// createKey handles POST /api/keys.
func (a *App) createKey(w http.ResponseWriter, r *http.Request) {
	var secret string // shown in this answer only
	create := func(ctx context.Context, k *models.VirtualKey) (err error) {
		secret, err = a.store.CreateKey(ctx, k)
		return err
	}
	createAs(a, w, r, newRow[keyInput](a, create), writtenAs(a, func(k *models.VirtualKey) newKeyJSON {
		return newKeyJSON{keyJSON: keyJSONOf(k), Key: secret}
	}))
}

// listKeys handles GET /api/keys.
func (a *App) listKeys(w http.ResponseWriter, r *http.Request) {
	listAs(a, w, r, a.store.ListKeys, keyJSONOf)
}

// updateKey handles PATCH /api/keys/{id}.
func (a *App) updateKey(w http.ResponseWriter, r *http.Request) {
	patchAs(a, w, r, "key", overRow(a, a.store.UpdateKey, keyPatchInputOf), writtenAs(a, keyJSONOf))
}

// deleteKey handles DELETE /api/keys/{id}.
func (a *App) deleteKey(w http.ResponseWriter, r *http.Request) {
	deleteAs(a, w, r, "key", a.store.DeleteKey, a.written)
}

// showKey handles GET /api/keys/{id}: one key, its spend_usd in the
// current budget period included.
func (a *App) showKey(w http.ResponseWriter, r *http.Request) {
	showAs(a, w, r, "key", a.store.GetKey, keyJSONOf)
}
