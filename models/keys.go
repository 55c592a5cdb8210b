package models

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"

	"gorm.io/gorm"
)

// KeyPrefix starts every virtual key.
const KeyPrefix = "sk-"

// HashKey is the stored form of a virtual key: hex SHA-256.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// NewKeySecret returns a fresh virtual key: "sk-" and 32 random bytes.
func NewKeySecret() (string, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("models: generate key: %w", err)
	}
	return KeyPrefix + base64.RawURLEncoding.EncodeToString(raw), nil
}

// CreateKey generates a key, stores k with its hash and returns the key: the
// only time it exists in clear.
func (s *Store) CreateKey(ctx context.Context, k *VirtualKey) (string, error) {
	key, err := NewKeySecret()
	if err != nil {
		return "", err
	}
	k.KeyHash = HashKey(key)
	k.KeyHint = KeyPrefix + "…" + key[len(key)-4:]
	if k.Models == nil {
		k.Models = StringList{}
	}
	err = s.g(ctx).Transaction(func(tx *gorm.DB) error {
		if err := ownersExist(tx, k.UserID, k.TeamID); err != nil {
			return err
		}
		return createRow(ctx, s, tx, k, "key", "User", "Team")
	})
	if err != nil {
		return "", err
	}
	return key, nil
}

// ListKeys returns every virtual key (hashes only) in id order.
func (s *Store) ListKeys(ctx context.Context) ([]VirtualKey, error) {
	return listAll[VirtualKey](ctx, s, "keys")
}

// CountKeys returns how many virtual keys exist.
func (s *Store) CountKeys(ctx context.Context) (int64, error) {
	var n int64
	err := s.g(ctx).Model(&VirtualKey{}).Count(&n).Error
	return n, wrap(err, "count keys")
}

// GetKey returns one virtual key.
func (s *Store) GetKey(ctx context.Context, id int64) (*VirtualKey, error) {
	return getByID[VirtualKey](ctx, s, id, "key")
}

// UpdateKey lets apply change the key's settings; the hash never changes.
func (s *Store) UpdateKey(ctx context.Context, id int64, apply func(*VirtualKey) error) (*VirtualKey, error) {
	return updateByID(ctx, s, id, "key", func(tx *gorm.DB, k *VirtualKey) error {
		hash := k.KeyHash
		if err := apply(k); err != nil {
			return err
		}
		k.KeyHash = hash
		return ownersExist(tx, k.UserID, k.TeamID)
	})
}

// DeleteKey deletes a virtual key; its request logs keep its id.
func (s *Store) DeleteKey(ctx context.Context, id int64) error {
	return s.g(ctx).Transaction(func(tx *gorm.DB) error {
		return deleteByID[VirtualKey](ctx, s, tx, id, "key")
	})
}

func ownersExist(tx *gorm.DB, userID, teamID *int64) error {
	if userID != nil {
		if err := rowExists(tx, &User{}, *userID, "user_id", "user"); err != nil {
			return err
		}
	}
	if teamID != nil {
		return rowExists(tx, &Team{}, *teamID, "team_id", "team")
	}
	return nil
}

func rowExists(tx *gorm.DB, model any, id int64, field, what string) error {
	var n int64
	if err := tx.Model(model).Where("id = ?", id).Count(&n).Error; err != nil {
		return wrap(err, "find %s %d", what, id)
	}
	if n == 0 {
		return invalid(field, "no %s with id %d", what, id)
	}
	return nil
}
