package models_test

import (
	"context"
	"testing"
	"time"

	"gateway/models"
	"gateway/models/dbtest"
)

// BenchmarkInsertRequestLogs writes batches of 200 request logs as the
// proxy's log writer does; the postgres case needs GATEWAY_TEST_DATABASE_URL.
func BenchmarkInsertRequestLogs(b *testing.B) {
	k := int64(1)
	few := models.RequestLog{KeyID: &k, Model: "m", Status: 200, InputTokens: 10, OutputTokens: 5, CostUSD: 0.001, RequestID: "abc"}
	// typical: the columns the proxy sets on a streamed request served at its first attempt
	typical := few
	typical.DeploymentID, typical.ProviderID, typical.ProviderName, typical.UpstreamModel = &k, &k, "openai", "gpt-4o-mini-2024-07-18"
	typical.Endpoint, typical.Stream, typical.LatencyMS, typical.TTFBMS, typical.Attempts = "/v1/chat/completions", true, 812, 240, 1
	typical.RequestID = "req_01JDX4V3W9Q2M8ZK7H5N6T0ABC"
	for _, db := range []struct {
		name string
		dsn  func(testing.TB) string
	}{{"sqlite", func(testing.TB) string { return "" }}, {"postgres", dbtest.PostgresDSN}} {
		b.Run(db.name, func(b *testing.B) { benchInsertRequestLogs(b, db.dsn(b), few) })
		b.Run(db.name+"/typical", func(b *testing.B) { benchInsertRequestLogs(b, db.dsn(b), typical) })
	}
}

func benchInsertRequestLogs(b *testing.B, dsn string, row models.RequestLog) {
	s := dbtest.MustOpenStore(b, dsn, b.TempDir())
	rows := make([]models.LogEntry, 200)
	for i := range rows {
		rows[i].Log = row
	}
	b.ReportAllocs()
	for b.Loop() {
		now := time.Now() // rising, as in a real log: index entries go at the end
		for i := range rows {
			rows[i].Log.CreatedAt = now
		}
		if err := s.SaveLogEntries(context.Background(), rows, false); err != nil {
			b.Fatal(err)
		}
	}
}
