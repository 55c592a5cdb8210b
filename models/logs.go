package models

import (
	"context"
	"time"
)

// InsertRequestLogs writes a batch of request logs in one statement.
func (s *Store) InsertRequestLogs(ctx context.Context, logs []RequestLog) error {
	if len(logs) == 0 {
		return nil
	}
	return wrap(s.g(ctx).CreateInBatches(logs, 500).Error, "insert %d request logs", len(logs))
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
