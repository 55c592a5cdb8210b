package main

import (
	"context"
	"log/slog"
	"strconv"
	"time"

	"gateway/models"
)

// pruneInterval is how often old request logs (and audit entries) are deleted.
const pruneInterval = time.Hour

// pruneLogs deletes request logs and audit entries older than the retention
// setting (and stored responses older than theirs), once at start and then
// every pruneInterval, until ctx ends. The setting is read each time, so a
// change applies at the next run.
func pruneLogs(ctx context.Context, s *models.Store, logger *slog.Logger) {
	t := time.NewTicker(pruneInterval)
	defer t.Stop()
	for {
		pruneOnce(ctx, s, logger, time.Now())
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func pruneOnce(ctx context.Context, s *models.Store, logger *slog.Logger, now time.Time) {
	pruneLogsOnce(ctx, s, logger, now)
	pruneResponsesOnce(ctx, s, logger, now)
}

// pruneResponsesOnce deletes stored Responses answers older than their
// retention, 30 days while unset.
func pruneResponsesOnce(ctx context.Context, s *models.Store, logger *slog.Logger, now time.Time) {
	days := models.DefaultResponsesRetentionDays
	v, ok, err := s.GetSetting(ctx, models.SettingResponsesRetentionDays)
	if err != nil {
		if ctx.Err() == nil {
			logger.Warn("reading the responses retention failed", "err", err)
		}
		return
	}
	if ok {
		if days, err = strconv.Atoi(v); err != nil || days <= 0 {
			return
		}
	}
	n, err := s.PruneResponses(ctx, now.AddDate(0, 0, -days))
	if err != nil {
		logger.Warn("pruning stored responses failed", "err", err)
		return
	}
	if n > 0 {
		logger.Info("pruned old stored responses", "responses", n, "retention_days", days)
	}
}

func pruneLogsOnce(ctx context.Context, s *models.Store, logger *slog.Logger, now time.Time) {
	v, ok, err := s.GetSetting(ctx, models.SettingLogRetentionDays)
	if err != nil || !ok {
		if err != nil && ctx.Err() == nil {
			logger.Warn("reading the log retention failed", "err", err)
		}
		return
	}
	days, err := strconv.Atoi(v)
	if err != nil || days <= 0 {
		return
	}
	cutoff := now.AddDate(0, 0, -days)
	n, err := s.PruneRequestLogs(ctx, cutoff)
	if err != nil {
		logger.Warn("pruning request logs failed", "err", err)
	} else if n > 0 {
		logger.Info("pruned old request logs", "rows", n, "retention_days", days)
	}
	// The audit log is kept as long as the request logs.
	n, err = s.PruneAudit(ctx, cutoff)
	if err != nil {
		logger.Warn("pruning audit entries failed", "err", err)
	} else if n > 0 {
		logger.Info("pruned old audit entries", "entries", n, "retention_days", days)
	}
}
