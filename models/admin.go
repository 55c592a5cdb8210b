package models

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/crypto/bcrypt"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// ErrBadCredentials is returned for a wrong username or password alike.
var ErrBadCredentials = errors.New("invalid username or password")

// Admin roles: an owner does everything and manages admins, an admin
// everything but admins, a viewer reads everything and changes nothing.
const (
	RoleOwner  = "owner"
	RoleAdmin  = "admin"
	RoleViewer = "viewer"
)

// Roles are every role, the most powerful first.
var Roles = []string{RoleOwner, RoleAdmin, RoleViewer}

// ErrLastOwner refuses to remove or demote the last owner.
var ErrLastOwner = fmt.Errorf("the last owner cannot be removed or demoted: %w", ErrInUse)

// MinPasswordLength is the shortest password an admin may have.
const MinPasswordLength = 8

// CountAdminUsers returns how many admin users exist.
func (s *Store) CountAdminUsers(ctx context.Context) (int64, error) {
	var n int64
	err := s.g(ctx).Model(&AdminUser{}).Count(&n).Error
	return n, wrap(err, "count admin users")
}

// CreateAdminUser stores an admin with a bcrypt hash of password, or with
// no password (signing in by SSO only) when password is "" and subject, the
// account's OpenID Connect issuer and subject, is set.
func (s *Store) CreateAdminUser(ctx context.Context, u *AdminUser, password string) error {
	if !slices.Contains(Roles, u.Role) {
		return invalid("role", "must be one of %s", strings.Join(Roles, ", "))
	}
	if password != "" || u.OIDCSubject == nil {
		hash, err := s.hashPassword(password)
		if err != nil {
			return err
		}
		u.PasswordHash = hash
	}
	return s.g(ctx).Transaction(func(tx *gorm.DB) error {
		return createRow(ctx, s, tx, u, "admin")
	})
}

func (s *Store) hashPassword(password string) (string, error) {
	if len(password) < MinPasswordLength {
		return "", invalid("password", "at least %d characters", MinPasswordLength)
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), s.passwordCost)
	if err != nil {
		return "", fmt.Errorf("models: hash password: %w", err)
	}
	return string(hash), nil
}

// ListAdminUsers returns every admin in id order.
func (s *Store) ListAdminUsers(ctx context.Context) ([]AdminUser, error) {
	return listAll[AdminUser](ctx, s, "admin users")
}

// GetAdminUser returns one admin.
func (s *Store) GetAdminUser(ctx context.Context, id int64) (*AdminUser, error) {
	return getByID[AdminUser](ctx, s, id, "admin user")
}

// FindAdminUser returns the admin of a username, or ErrNotFound.
func (s *Store) FindAdminUser(ctx context.Context, username string) (*AdminUser, error) {
	var u AdminUser
	err := s.g(ctx).Where("username = ?", username).First(&u).Error
	return &u, wrap(err, "find admin user %q", username)
}

// FindAdminBySubject returns the admin signed in with an OpenID Connect
// subject, or ErrNotFound.
func (s *Store) FindAdminBySubject(ctx context.Context, subject string) (*AdminUser, error) {
	var u AdminUser
	err := s.g(ctx).Where("oidc_subject = ?", subject).First(&u).Error
	return &u, wrap(err, "find admin user of subject %q", subject)
}

// AdminChange is a change to an admin: a new role, a new password.
type AdminChange struct {
	Role     *string
	Password *string
}

// UpdateAdminUser changes an admin's role or password. Either ends the
// admin's sessions (a new SessionEpoch); the last owner keeps the role.
func (s *Store) UpdateAdminUser(ctx context.Context, id int64, c AdminChange) (*AdminUser, error) {
	var hash string
	if c.Password != nil {
		h, err := s.hashPassword(*c.Password)
		if err != nil {
			return nil, err
		}
		hash = h
	}
	if c.Role != nil && !slices.Contains(Roles, *c.Role) {
		return nil, invalid("role", "must be one of %s", strings.Join(Roles, ", "))
	}
	var u *AdminUser
	err := s.g(ctx).Transaction(func(tx *gorm.DB) (err error) {
		var owners []int64
		if c.Role != nil {
			if owners, err = s.lockOwners(tx); err != nil {
				return err
			}
		}
		u, err = updateInTx(ctx, s, tx, id, "admin", func(tx *gorm.DB, u *AdminUser) error {
			changed := false
			if c.Role != nil && *c.Role != u.Role {
				if u.Role == RoleOwner {
					if err := anotherOwner(owners, u.ID); err != nil {
						return err
					}
				}
				u.Role, changed = *c.Role, true
			}
			if c.Password != nil {
				if u.OIDCSubject != nil {
					return invalid("password", "%s signs in with single sign-on and has no password here", u.Username)
				}
				u.PasswordHash, changed = hash, true
				u.PasswordChangedAt = ptr(s.now())
			}
			if changed {
				u.SessionEpoch++
			}
			return nil
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// DeleteAdminUser removes an admin; the last owner stays.
func (s *Store) DeleteAdminUser(ctx context.Context, id int64) error {
	return s.g(ctx).Transaction(func(tx *gorm.DB) error {
		owners, err := s.lockOwners(tx)
		if err != nil {
			return err
		}
		var u AdminUser
		if err := tx.Clauses(lockForUpdate(s.db)...).First(&u, id).Error; err != nil {
			return wrap(err, "delete admin user %d", id)
		}
		if u.Role == RoleOwner {
			if err := anotherOwner(owners, id); err != nil {
				return err
			}
		}
		return deleteByID[AdminUser](ctx, s, tx, id, "admin")
	})
}

// lockOwners returns the owners' ids. On PostgreSQL it locks their rows,
// in one order and before any other row of a change that may take an owner
// away: of two owners demoting each other at once, the second waits for
// the first, then sees it is the last owner (locked the other way round,
// the two transactions deadlocked). SQLite's immediate transactions are
// one at a time already. A new owner added meanwhile only adds to them.
func (s *Store) lockOwners(tx *gorm.DB) ([]int64, error) {
	var ids []int64
	err := tx.Model(&AdminUser{}).Clauses(lockForUpdate(s.db)...).Where("role = ?", RoleOwner).Order("id").Pluck("id", &ids).Error
	if err != nil {
		return nil, wrap(err, "count owners")
	}
	return ids, nil
}

// anotherOwner refuses when no owner but the one of id is among owners.
func anotherOwner(owners []int64, id int64) error {
	for _, o := range owners {
		if o != id {
			return nil
		}
	}
	return fmt.Errorf("models: %w", ErrLastOwner)
}

func ptr[T any](v T) *T { return &v }

// AuthenticateAdmin returns the admin whose password matches, or ErrBadCredentials.
func (s *Store) AuthenticateAdmin(ctx context.Context, username, password string) (*AdminUser, error) {
	var u AdminUser
	err := s.g(ctx).Where("username = ?", username).First(&u).Error
	if err != nil {
		if errors.Is(wrap(err, ""), ErrNotFound) {
			// Spend the same time as a real comparison, so timing does not tell
			// which usernames exist.
			bcrypt.CompareHashAndPassword(s.dummyHash(), []byte(password)) //nolint:errcheck // always fails
			return nil, ErrBadCredentials
		}
		return nil, wrap(err, "authenticate %q", username)
	}
	hash := u.PasswordHash
	if hash == "" { // an SSO account has no password
		hash = string(s.dummyHash())
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) != nil || u.PasswordHash == "" {
		return nil, ErrBadCredentials
	}
	return &u, nil
}

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
	return s.PutSettings(ctx, map[string]string{key: value})
}

// PutSettings creates or replaces several settings at once: all or none.
// The audit log gets one entry with the values that changed.
func (s *Store) PutSettings(ctx context.Context, settings map[string]string) error {
	return s.g(ctx).Transaction(func(tx *gorm.DB) error {
		before, after := map[string]any{}, map[string]any{}
		for key, value := range settings {
			var old []Setting
			if err := tx.Where("key = ?", key).Limit(1).Find(&old).Error; err != nil {
				return wrap(err, "put setting %q", key)
			}
			if len(old) > 0 && old[0].Value == value {
				continue
			}
			before[key] = nil
			if len(old) > 0 {
				before[key] = old[0].Value
			}
			after[key] = value
			st := Setting{Key: key, Value: value, UpdatedAt: s.now()}
			if err := tx.Clauses(clause.OnConflict{UpdateAll: true}).Create(&st).Error; err != nil {
				return wrap(err, "put setting %q", key)
			}
		}
		return s.audit(ctx, tx, ActionUpdate, AuditSettings, "", "settings", before, after)
	})
}

// SettingLogRetentionDays names the setting that says how many days request
// logs are kept; 0 or unset keeps them for ever.
const SettingLogRetentionDays = "log_retention_days"

// SettingHealthCheckMinutes names the setting that turns on background health
// checks: a pool whose members were last checked this many minutes ago or
// more is checked again; 0 or unset never checks on a timer.
const SettingHealthCheckMinutes = "health_check_interval_minutes"

// SettingPriceCatalog names the setting that holds the price catalog an
// admin imported (pricing's catalog file, as JSON), whose rows the
// built-in catalog's give way to; unset is the built-in catalog alone.
const SettingPriceCatalog = "price_catalog"

// SettingAllowUnpricedWithBudget names the setting that lets a key, user or
// team with a budget use a model entry that has no price ("true"); unset
// refuses it, since its spend could not be counted.
const SettingAllowUnpricedWithBudget = "allow_unpriced_with_budget"

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
