package models

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"

	"golang.org/x/crypto/bcrypt"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// ErrBadCredentials is returned for a wrong username or password alike.
var ErrBadCredentials = errors.New("invalid username or password")

// CountAdminUsers returns how many admin users exist.
func (s *Store) CountAdminUsers(ctx context.Context) (int64, error) {
	var n int64
	err := s.g(ctx).Model(&AdminUser{}).Count(&n).Error
	return n, wrap(err, "count admin users")
}

// CreateAdminUser stores an admin with a bcrypt hash of password.
func (s *Store) CreateAdminUser(ctx context.Context, username, password string) (*AdminUser, error) {
	if len(password) < 8 {
		return nil, fmt.Errorf("models: password: at least 8 characters: %w", ErrInvalid)
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	if err != nil {
		return nil, fmt.Errorf("models: hash password: %w", err)
	}
	u := &AdminUser{Username: username, PasswordHash: string(hash)}
	return u, wrap(s.g(ctx).Create(u).Error, "create admin user %q", username)
}

// AuthenticateAdmin returns the admin whose password matches, or ErrBadCredentials.
func (s *Store) AuthenticateAdmin(ctx context.Context, username, password string) (*AdminUser, error) {
	var u AdminUser
	err := s.g(ctx).Where("username = ?", username).First(&u).Error
	if err != nil {
		if errors.Is(wrap(err, ""), ErrNotFound) {
			// Spend the same time as a real comparison, so timing does not tell
			// which usernames exist.
			bcrypt.CompareHashAndPassword(dummyHash, []byte(password)) //nolint:errcheck // always fails
			return nil, ErrBadCredentials
		}
		return nil, wrap(err, "authenticate %q", username)
	}
	if bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), []byte(password)) != nil {
		return nil, ErrBadCredentials
	}
	return &u, nil
}

var dummyHash, _ = bcrypt.GenerateFromPassword([]byte("not a password"), bcrypt.DefaultCost)

// GetSetting returns a setting's value and whether it is set.
func (s *Store) GetSetting(ctx context.Context, key string) (string, bool, error) {
	var st Setting
	err := s.g(ctx).Where("key = ?", key).Limit(1).Find(&st).Error
	if err != nil {
		return "", false, wrap(err, "get setting %q", key)
	}
	return st.Value, st.Key != "", nil
}

// PutSetting creates or replaces a setting.
func (s *Store) PutSetting(ctx context.Context, key, value string) error {
	st := Setting{Key: key, Value: value, UpdatedAt: s.now()}
	return wrap(s.g(ctx).Clauses(clause.OnConflict{UpdateAll: true}).Create(&st).Error, "put setting %q", key)
}

// PutSettings creates or replaces several settings at once: all or none.
func (s *Store) PutSettings(ctx context.Context, settings map[string]string) error {
	return s.g(ctx).Transaction(func(tx *gorm.DB) error {
		for key, value := range settings {
			st := Setting{Key: key, Value: value, UpdatedAt: s.now()}
			if err := tx.Clauses(clause.OnConflict{UpdateAll: true}).Create(&st).Error; err != nil {
				return wrap(err, "put setting %q", key)
			}
		}
		return nil
	})
}

// SettingLogRetentionDays names the setting that says how many days request
// logs are kept; 0 or unset keeps them for ever.
const SettingLogRetentionDays = "log_retention_days"

// SettingHealthCheckMinutes names the setting that turns on background health
// checks: a pool whose members were last checked this many minutes ago or
// more is checked again; 0 or unset never checks on a timer.
const SettingHealthCheckMinutes = "health_check_interval_minutes"

// settingClusterID names the setting that holds the gateways' shared name.
const settingClusterID = "cluster_id"

// ClusterID returns the name every gateway on this database shares, created
// at random by the first to ask: replicas use it to keep their shared state
// in Redis apart from that of other gateways on the same Redis.
func (s *Store) ClusterID(ctx context.Context) (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("models: cluster id: %w", err)
	}
	st := Setting{Key: settingClusterID, Value: hex.EncodeToString(b), UpdatedAt: s.now()}
	if err := s.g(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&st).Error; err != nil {
		return "", wrap(err, "create cluster id")
	}
	id, _, err := s.GetSetting(ctx, settingClusterID)
	return id, err
}
