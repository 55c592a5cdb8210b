package models_test

import (
	"context"
	"testing"
	"time"

	"gateway/models"
	"gateway/models/dbtest"
)

// TestSQLiteTimeText: SQLite compares created_at as the text stored, so the
// driver must write every time in the one form that databases already hold.
func TestSQLiteTimeText(t *testing.T) {
	s := dbtest.MustOpenStore(t, "", t.TempDir())
	ctx := context.Background()
	at := time.Date(2026, 11, 30, 12, 0, 5, 123456000, time.UTC)
	if err := s.InsertRequestLogs(ctx, []models.RequestLog{{CreatedAt: at, Model: "m"}}); err != nil {
		t.Fatal(err)
	}
	var text string
	if err := s.DB().WithContext(ctx).Raw("SELECT CAST(created_at AS TEXT) FROM request_logs").Row().Scan(&text); err != nil {
		t.Fatal(err)
	}
	if want := "2026-11-30 12:00:05.123456+00:00"; text != want {
		t.Fatalf("created_at stored as %q, want %q", text, want)
	}
}
