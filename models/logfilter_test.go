package models_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"gateway/models"
	"gateway/models/dbtest"
)

// TestListRequestLogsFilters: request id, a time range [from, to) and
// errors only (a status of 400 or more, or an error after a 200), alone and
// with the other filters.
func TestListRequestLogsFilters(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
		rows := []models.RequestLog{
			{CreatedAt: t0, RequestID: "r0", Model: "m", Status: 200},
			{CreatedAt: t0.Add(time.Minute), RequestID: "r1", Model: "m", Status: 429, Error: "rate limited"},
			{CreatedAt: t0.Add(2 * time.Minute), RequestID: "r2", Model: "other", Status: 200, Error: "upstream broke off the stream"},
			{CreatedAt: t0.Add(3 * time.Minute), RequestID: "r3", Model: "m", Status: 502},
			{CreatedAt: t0.Add(4 * time.Minute), RequestID: "r4", Model: "m", Status: 200},
		}
		if err := s.InsertRequestLogs(ctx, rows); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name string
			f    models.LogFilter
			want []string // request ids, newest first
		}{
			{"request id", models.LogFilter{RequestID: "r2"}, []string{"r2"}},
			{"unknown request id", models.LogFilter{RequestID: "nope"}, nil},
			{"from", models.LogFilter{From: t0.Add(3 * time.Minute)}, []string{"r4", "r3"}},
			{"to is exclusive", models.LogFilter{To: t0.Add(time.Minute)}, []string{"r0"}},
			{"from and to", models.LogFilter{From: t0.Add(time.Minute), To: t0.Add(3 * time.Minute)}, []string{"r2", "r1"}},
			{"another zone", models.LogFilter{From: t0.Add(4 * time.Minute).In(time.FixedZone("CET", 3600))}, []string{"r4"}},
			{"errors only", models.LogFilter{ErrorsOnly: true}, []string{"r3", "r2", "r1"}},
			{"errors of a model", models.LogFilter{ErrorsOnly: true, Model: "m", From: t0.Add(2 * time.Minute)}, []string{"r3"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				logs, err := s.ListRequestLogs(ctx, tc.f)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, l := range logs {
					got = append(got, l.RequestID)
				}
				if !slices.Equal(got, tc.want) {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			})
		}
	})
}

// TestGetRequestLog: one row with its trace; ErrNotFound for none.
func TestGetRequestLog(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		trace := models.Trace{{DeploymentID: 1, Provider: "p", UpstreamModel: "a", Status: 429, LatencyMS: 12,
			Reason: "429, cooling down until 2026-12-05T00:00:00Z", Error: "slow down"},
			{DeploymentID: 2, Provider: "p", UpstreamModel: "b", Status: 200, StartMS: 13, LatencyMS: 40, Fallback: "backup"}}
		if err := s.InsertRequestLogs(ctx, []models.RequestLog{{RequestID: "traced", Status: 200, Attempts: 2, Trace: trace}}); err != nil {
			t.Fatal(err)
		}
		logs, err := s.ListRequestLogs(ctx, models.LogFilter{RequestID: "traced"})
		if err != nil || len(logs) != 1 {
			t.Fatalf("%v, %d rows", err, len(logs))
		}
		got, err := s.GetRequestLog(ctx, logs[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.RequestID != "traced" || len(got.Trace) != 2 || got.Trace[0] != trace[0] || got.Trace[1] != trace[1] {
			t.Fatalf("read back %+v", got)
		}
		if _, err := s.GetRequestLog(ctx, logs[0].ID+1); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("missing row: %v, want ErrNotFound", err)
		}
	})
}
