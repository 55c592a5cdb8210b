package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
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

// TestPruneAuditHonoursLogRetention: audit entries go with the request
// logs, at the same cutoff, and never without the setting.
func TestPruneAuditHonoursLogRetention(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		now := time.Now().UTC()
		for _, e := range []models.AuditEntry{
			{CreatedAt: now.Add(-10 * 24 * time.Hour), Actor: "alice", Action: models.ActionCreate, Kind: models.AuditKey, Name: "old"},
			{CreatedAt: now.Add(-1 * time.Hour), Actor: "alice", Action: models.ActionCreate, Kind: models.AuditKey, Name: "new"},
		} {
			if err := s.DB().Create(&e).Error; err != nil {
				t.Fatal(err)
			}
		}
		names := func() []string {
			es, err := s.ListAudit(ctx, models.AuditFilter{Kind: models.AuditKey, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, e := range es {
				out = append(out, e.Name)
			}
			return out
		}
		logs := &strings.Builder{}
		logger := slog.New(slog.NewTextHandler(logs, nil))
		pruneOnce(ctx, s, logger, now) // no setting: keep everything
		if got := fmt.Sprint(names()); got != "[new old]" {
			t.Fatalf("pruned without a retention setting: %s left", got)
		}
		if err := s.PutSetting(ctx, models.SettingLogRetentionDays, "7"); err != nil {
			t.Fatal(err)
		}
		pruneOnce(ctx, s, logger, now)
		if got := fmt.Sprint(names()); got != "[new]" {
			t.Fatalf("after pruning at 7 days: %s left", got)
		}
		if !strings.Contains(logs.String(), "pruned old audit entries") || !strings.Contains(logs.String(), "entries=1") {
			t.Errorf("the pruning is not logged with its count:\n%s", logs)
		}
		// The setting's own change is recent: it stays.
		if es, _ := s.ListAudit(ctx, models.AuditFilter{Kind: models.AuditSettings, Limit: 10}); len(es) != 1 {
			t.Errorf("%d settings entries, want the retention's change", len(es))
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
