package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"gateway/models"
	"gateway/models/dbtest"
)

func TestSumRequestLogsByTime(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		from := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
		const bucket, n = 10 * time.Minute, 4 // [from, from+40m)
		at := func(d time.Duration) time.Time { return from.Add(d) }
		rows := []models.RequestLog{
			{CreatedAt: at(-time.Microsecond), Status: 200, CostUSD: 100}, // before the window
			{CreatedAt: at(0), Status: 200, LatencyMS: 100, InputTokens: 10, OutputTokens: 1, CostUSD: 0.5},
			{CreatedAt: at(bucket - time.Microsecond), Status: 500, LatencyMS: 300},
			{CreatedAt: at(bucket), Status: 0, LatencyMS: 7},                              // never answered
			{CreatedAt: at(bucket + 1500*time.Millisecond), Status: 399, OutputTokens: 4}, // a success
			// bucket 2 is empty
			{CreatedAt: at(3 * bucket), Status: 404, LatencyMS: 20, CostUSD: 0.25},
			{CreatedAt: at(n*bucket - time.Microsecond), Status: 199, LatencyMS: 40},
			{CreatedAt: at(n * bucket), Status: 200, CostUSD: 100}, // the window's end is outside
			{CreatedAt: at(2 * time.Hour), Status: 200, CostUSD: 100},
		}
		if err := s.InsertRequestLogs(ctx, rows); err != nil {
			t.Fatal(err)
		}
		want := []models.UsageSum{
			{Requests: 2, Successes: 1, LatencyMS: 400, TokensIn: 10, TokensOut: 1, CostUSD: 0.5},
			{Requests: 2, Successes: 1, LatencyMS: 7, TokensOut: 4},
			{},
			{Requests: 2, Successes: 0, LatencyMS: 60, CostUSD: 0.25},
		}
		// SQLite compares the times as text: bounds in another zone must
		// select the same rows.
		for _, start := range []time.Time{from, from.In(time.FixedZone("UTC+2", 2*60*60))} {
			got, err := s.SumRequestLogsByTime(ctx, start, bucket, n)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != n {
				t.Fatalf("from %v: %d buckets, want %d", start, len(got), n)
			}
			for i, b := range got {
				if !b.Start.Equal(at(time.Duration(i) * bucket)) {
					t.Errorf("from %v: bucket %d starts at %v", start, i, b.Start)
				}
				if b.UsageSum != want[i] {
					t.Errorf("from %v: bucket %d = %+v, want %+v", start, i, b.UsageSum, want[i])
				}
			}
		}
		if got, want := (models.UsageSum{Requests: 4, LatencyMS: 6}).AvgMS(), 1.5; got != want {
			t.Errorf("AvgMS = %v, want %v", got, want)
		}
		for _, bad := range []struct {
			bucket time.Duration
			n      int
		}{{0, 4}, {bucket, 0}, {bucket, 100000}} {
			if _, err := s.SumRequestLogsByTime(ctx, from, bad.bucket, bad.n); !errors.Is(err, models.ErrInvalid) {
				t.Errorf("%d buckets of %v: %v, want ErrInvalid", bad.n, bad.bucket, err)
			}
		}
	})
}

func TestSumRequestLogsByDeployment(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		now := time.Now().UTC()
		d := int64(7)
		rows := []models.RequestLog{
			{CreatedAt: now, Model: "m", DeploymentID: &d, ProviderName: "openai", UpstreamModel: "gpt-4o", Status: 200, LatencyMS: 10},
			{CreatedAt: now, Model: "m", DeploymentID: &d, ProviderName: "openai", UpstreamModel: "gpt-4o-2024", Status: 0, LatencyMS: 30},
			{CreatedAt: now, Model: "m", Status: 502},
		}
		if err := s.InsertRequestLogs(ctx, rows); err != nil {
			t.Fatal(err)
		}
		// The upstream model changed: the greatest name is kept. Bounds in
		// another zone select the same rows (SQLite compares text).
		want := models.UsageTotal{Group: "7", Requests: 2, Successes: 1, AvgMS: 20, Provider: "openai", UpstreamModel: "gpt-4o-2024"}
		for _, at := range []time.Time{now, now.In(time.FixedZone("UTC-5", -5*60*60))} {
			got, err := s.SumRequestLogs(ctx, "deployment", at.Add(-time.Minute), at.Add(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0] != want {
				t.Fatalf("by deployment from %v: %+v, want [%+v]", at, got, want)
			}
		}
		byModel, err := s.SumRequestLogs(ctx, "model", now.Add(-time.Hour), now.Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if len(byModel) != 1 || byModel[0].Requests != 3 || byModel[0].Successes != 1 || byModel[0].Provider != "" {
			t.Fatalf("by model: %+v", byModel)
		}
	})
}
