package models_test

import (
	"context"
	"fmt"
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
		b.Run(db.name, func(b *testing.B) {
			benchInsertRequestLogs(b, dbtest.MustOpenStore(b, db.dsn(b), b.TempDir()), few, nil)
		})
		b.Run(db.name+"/typical", func(b *testing.B) {
			benchInsertRequestLogs(b, dbtest.MustOpenStore(b, db.dsn(b), b.TempDir()), typical, nil)
		})
		// holders: the rows spread over 40 keys of 40 users in 20 teams, whose
		// spend each batch adds to
		b.Run(db.name+"/holders", func(b *testing.B) {
			s := dbtest.MustOpenStore(b, db.dsn(b), b.TempDir())
			benchInsertRequestLogs(b, s, typical, benchHolders(b, s, 40))
		})
	}
}

// benchHolders creates n keys, each of its own user, two users to a team.
func benchHolders(b *testing.B, s *models.Store, n int) []models.VirtualKey {
	ctx := context.Background()
	keys := make([]models.VirtualKey, n)
	var team models.Team
	for i := range keys {
		if i%2 == 0 {
			team = models.Team{Name: fmt.Sprintf("t%d", i)}
			if err := s.CreateTeam(ctx, &team); err != nil {
				b.Fatal(err)
			}
		}
		u := models.User{Name: fmt.Sprintf("u%d", i), TeamID: &team.ID}
		if err := s.CreateUser(ctx, &u); err != nil {
			b.Fatal(err)
		}
		keys[i] = models.VirtualKey{Name: fmt.Sprintf("k%d", i), UserID: &u.ID, TeamID: &team.ID}
		if _, err := s.CreateKey(ctx, &keys[i]); err != nil {
			b.Fatal(err)
		}
	}
	return keys
}

// benchInsertRequestLogs saves batches of 200 copies of row, spread over
// keys when there are any.
func benchInsertRequestLogs(b *testing.B, s *models.Store, row models.RequestLog, keys []models.VirtualKey) {
	rows := make([]models.LogEntry, 200)
	for i := range rows {
		rows[i].Log = row
		if len(keys) > 0 {
			k := &keys[i%len(keys)]
			rows[i].Log.KeyID, rows[i].Log.UserID, rows[i].Log.TeamID = &k.ID, k.UserID, k.TeamID
		}
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
