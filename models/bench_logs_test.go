package models_test

import (
	"context"
	"testing"
	"time"

	"gateway/models"
	"gateway/models/dbtest"
)

func BenchmarkInsertRequestLogs(b *testing.B) {
	s := dbtest.MustOpenStore(b, "", b.TempDir())
	k := int64(1)
	rows := make([]models.LogEntry, 200)
	for i := range rows {
		rows[i].Log = models.RequestLog{CreatedAt: time.Now(), KeyID: &k, Model: "m", Status: 200, InputTokens: 10, OutputTokens: 5, CostUSD: 0.001, RequestID: "abc"}
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
