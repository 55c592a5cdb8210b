package models

import (
	"context"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// ListPoolSettings returns the settings of every pool that has any.
func (s *Store) ListPoolSettings(ctx context.Context) ([]PoolSetting, error) {
	var ps []PoolSetting
	err := s.g(ctx).Order("public_name").Find(&ps).Error
	return ps, wrap(err, "list pool settings")
}

// PutPoolSetting creates or replaces the settings of one pool.
func (s *Store) PutPoolSetting(ctx context.Context, p *PoolSetting) error {
	p.UpdatedAt = s.now()
	return s.g(ctx).Transaction(func(tx *gorm.DB) error {
		var old []PoolSetting
		if err := tx.Where("public_name = ?", p.PublicName).Limit(1).Find(&old).Error; err != nil {
			return wrap(err, "put pool setting %q", p.PublicName)
		}
		if err := tx.Clauses(clause.OnConflict{UpdateAll: true}).Create(p).Error; err != nil {
			return wrap(err, "put pool setting %q", p.PublicName)
		}
		action, before := ActionCreate, any(nil)
		if len(old) > 0 {
			action, before = ActionUpdate, &old[0]
		}
		return s.audit(ctx, tx, action, AuditPool, p.PublicName, p.PublicName, before, p)
	})
}

// ListFallbacks returns every fallback target ordered by name, kind and position.
func (s *Store) ListFallbacks(ctx context.Context) ([]Fallback, error) {
	var fs []Fallback
	err := s.g(ctx).Order("public_name, kind, position").Find(&fs).Error
	return fs, wrap(err, "list fallbacks")
}

// SetFallbacks replaces the ordered fallback list of one public name and kind.
// An empty list removes it.
func (s *Store) SetFallbacks(ctx context.Context, publicName, kind string, targets []string) error {
	seen := make(map[string]bool, len(targets))
	for _, t := range targets {
		if t == publicName {
			return invalid("targets", "%q cannot fall back to itself", t)
		}
		if seen[t] {
			return invalid("targets", "%q is listed twice", t)
		}
		seen[t] = true
	}
	return s.g(ctx).Transaction(func(tx *gorm.DB) error {
		var old []string
		if err := tx.Model(&Fallback{}).Where("public_name = ? AND kind = ?", publicName, kind).
			Order("position").Pluck("target", &old).Error; err != nil {
			return wrap(err, "set fallbacks of %q", publicName)
		}
		if err := tx.Where("public_name = ? AND kind = ?", publicName, kind).Delete(&Fallback{}).Error; err != nil {
			return wrap(err, "set fallbacks of %q", publicName)
		}
		for i, t := range targets {
			f := Fallback{PublicName: publicName, Kind: kind, Target: t, Position: i}
			if err := tx.Create(&f).Error; err != nil {
				return wrap(err, "set fallbacks of %q", publicName)
			}
		}
		return s.audit(ctx, tx, fallbackAction(old, targets), AuditFallbacks, publicName, publicName,
			fallbackList(kind, old), fallbackList(kind, targets))
	})
}

// fallbackList is one list of fallbacks as the audit log shows it: nil
// when empty (no list).
func fallbackList(kind string, targets []string) map[string]any {
	if len(targets) == 0 {
		return nil
	}
	return map[string]any{"kind": kind, "targets": targets}
}

func fallbackAction(before, after []string) string {
	switch {
	case len(before) == 0:
		return ActionCreate
	case len(after) == 0:
		return ActionDelete
	}
	return ActionUpdate
}
