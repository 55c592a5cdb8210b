package main

import (
	"context"
	"fmt"
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

// TestPruneResponsesHonoursRetention: stored responses go after 30 days
// while the setting is unset, after its days once set, never at 0; their
// items go with them.
func TestPruneResponsesHonoursRetention(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		now := time.Now().UTC()
		day := 24 * time.Hour
		var entries []models.LogEntry
		for _, age := range []int{40, 10, 0} {
			id := fmt.Sprintf("resp_%d", age)
			at := now.Add(-time.Duration(age) * day)
			entries = append(entries, models.LogEntry{Response: &models.StoredResponse{KeyID: 1, ID: id, CreatedAt: at,
				Input: "[]", Response: `{"id":"` + id + `"}`,
				Items: []models.StoredResponseItem{{KeyID: 1, ID: "msg_" + id, ResponseID: id, CreatedAt: at, Item: "{}"}}}})
		}
		if err := s.SaveLogEntries(ctx, entries, false); err != nil {
			t.Fatal(err)
		}
		kept := func() []string {
			var out []string
			for _, age := range []int{40, 10, 0} {
				id := fmt.Sprintf("resp_%d", age)
				_, err := s.GetResponse(ctx, 1, id)
				items, _ := s.GetResponseItems(ctx, 1, []string{"msg_" + id})
				if (err == nil) != (len(items) == 1) {
					t.Errorf("%s: response kept %v, item kept %v", id, err == nil, len(items) == 1)
				}
				if err == nil {
					out = append(out, id)
				}
			}
			return out
		}
		logger := slog.New(slog.DiscardHandler)
		pruneOnce(ctx, s, logger, now)
		if got := fmt.Sprint(kept()); got != "[resp_10 resp_0]" {
			t.Fatalf("unset (30 days): kept %s", got)
		}
		s.PutSetting(ctx, models.SettingResponsesRetentionDays, "0")
		pruneOnce(ctx, s, logger, now.Add(100*day))
		if got := fmt.Sprint(kept()); got != "[resp_10 resp_0]" {
			t.Fatalf("0 (for ever): kept %s", got)
		}
		s.PutSetting(ctx, models.SettingResponsesRetentionDays, "7")
		pruneOnce(ctx, s, logger, now)
		if got := fmt.Sprint(kept()); got != "[resp_0]" {
			t.Fatalf("7 days: kept %s", got)
		}
	})
}
