package main

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"gateway/models"
	"gateway/models/dbtest"
)

func TestPruneLogsHonoursRetention(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		now := time.Now().UTC()
		rows := []models.RequestLog{{CreatedAt: now.Add(-10 * 24 * time.Hour), Model: "old"}, {CreatedAt: now, Model: "new"}}
		if err := s.InsertRequestLogs(ctx, rows); err != nil {
			t.Fatal(err)
		}
		logger := slog.New(slog.DiscardHandler)
		pruneOnce(ctx, s, logger, now) // no setting: keep everything
		if logs, _ := s.ListRequestLogs(ctx, models.LogFilter{}); len(logs) != 2 {
			t.Fatalf("pruned without a retention setting: %d left", len(logs))
		}
		if err := s.PutSetting(ctx, models.SettingLogRetentionDays, "7"); err != nil {
			t.Fatal(err)
		}
		pruneOnce(ctx, s, logger, now)
		logs, _ := s.ListRequestLogs(ctx, models.LogFilter{})
		if len(logs) != 1 || logs[0].Model != "new" {
			t.Fatalf("after pruning at 7 days: %+v", logs)
		}
	})
}
