package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// InsertRequestLogs writes request logs, logBatchRows to a statement, in one
// transaction. The rows' IDs are not read back.
func (s *Store) InsertRequestLogs(ctx context.Context, logs []RequestLog) error {
	return s.g(ctx).Transaction(func(tx *gorm.DB) error { return insertLogs(tx, logs) })
}

// LogFilter selects request logs; zero fields select everything.
type LogFilter struct {
	Model    string
	Provider string
	KeyID    int64
	Status   int
	BeforeID int64 // paging: only logs with a smaller id
	Limit    int
}

// ListRequestLogs returns matching logs, newest first, at most f.Limit (default 100, max 1000).
func (s *Store) ListRequestLogs(ctx context.Context, f LogFilter) ([]RequestLog, error) {
	q := s.g(ctx).Model(&RequestLog{})
	if f.Model != "" {
		q = q.Where("model = ?", f.Model)
	}
	if f.Provider != "" {
		q = q.Where("provider_name = ?", f.Provider)
	}
	if f.KeyID != 0 {
		q = q.Where("key_id = ?", f.KeyID)
	}
	if f.Status != 0 {
		q = q.Where("status = ?", f.Status)
	}
	if f.BeforeID != 0 {
		q = q.Where("id < ?", f.BeforeID)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	limit = min(limit, 1000)
	var logs []RequestLog
	err := q.Order("id DESC").Limit(limit).Find(&logs).Error
	return logs, wrap(err, "list request logs")
}

// SaveHealthCheck stores the last live check of a deployment.
func (s *Store) SaveHealthCheck(ctx context.Context, h *HealthCheck) error {
	if h.CheckedAt.IsZero() {
		h.CheckedAt = time.Now().UTC()
	}
	return wrap(s.g(ctx).Save(h).Error, "save health check of %d", h.DeploymentID)
}

// ListHealthChecks returns the last check of every deployment that has one.
func (s *Store) ListHealthChecks(ctx context.Context) ([]HealthCheck, error) {
	var hs []HealthCheck
	err := s.g(ctx).Order("deployment_id").Find(&hs).Error
	return hs, wrap(err, "list health checks")
}

// Spend holders: what a SpendDelta adds to.
const (
	SpendKey  = "key"
	SpendUser = "user"
	SpendTeam = "team"
)

// SpendDelta is spend to add to one key, user or team.
type SpendDelta struct {
	Holder string // SpendKey, SpendUser or SpendTeam
	ID     int64
	USD    float64
}

func spendTable(holder string) (string, error) {
	switch holder {
	case SpendKey:
		return "virtual_keys", nil
	case SpendUser:
		return "users", nil
	case SpendTeam:
		return "teams", nil
	}
	return "", fmt.Errorf("models: unknown spend holder %q: %w", holder, ErrInvalid)
}

// SaveLogsAndSpend writes request logs and adds spend in one transaction:
// spend the database acknowledged is never without its logs, nor the reverse.
// Increments, not totals, so that gateways sharing a database add up.
func (s *Store) SaveLogsAndSpend(ctx context.Context, logs []RequestLog, spend []SpendDelta) error {
	return s.g(ctx).Transaction(func(tx *gorm.DB) error {
		if err := insertLogs(tx, logs); err != nil {
			return err
		}
		for _, d := range spend {
			table, err := spendTable(d.Holder)
			if err != nil {
				return err
			}
			if err := tx.Table(table).Where("id = ?", d.ID).
				UpdateColumn("spend_usd", gorm.Expr("spend_usd + ?", d.USD)).Error; err != nil {
				return wrap(err, "add spend to %s %d", d.Holder, d.ID)
			}
		}
		return nil
	})
}

// ResetSpend starts a new budget period for one holder: spend back to 0 and
// the next reset at next. Only a period that has not been reset yet is reset,
// so that gateways sharing a database do it once.
func (s *Store) ResetSpend(ctx context.Context, holder string, id int64, next time.Time) error {
	table, err := spendTable(holder)
	if err != nil {
		return err
	}
	err = s.g(ctx).Table(table).Where("id = ? AND (budget_reset_at IS NULL OR budget_reset_at < ?)", id, next).
		Updates(map[string]any{"spend_usd": 0, "budget_reset_at": next}).Error
	return wrap(err, "reset spend of %s %d", holder, id)
}

// PruneRequestLogs deletes request logs created before t and says how many.
func (s *Store) PruneRequestLogs(ctx context.Context, before time.Time) (int64, error) {
	res := s.g(ctx).Where("created_at < ?", before).Delete(&RequestLog{})
	return res.RowsAffected, wrap(res.Error, "prune request logs")
}
