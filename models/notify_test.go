package models_test

import (
	"context"
	"testing"
	"time"

	"gateway/models"
	"gateway/models/dbtest"
)

// TestListenChanges: a gateway hears another's notice, not its own.
func TestListenChangesPostgres(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := dbtest.MustOpenStore(t, dsn, t.TempDir()).DB()
	changes := make(chan struct{}, 10)
	errs := make(chan error, 10)
	listening := make(chan struct{}, 1)
	go a.ListenChanges(ctx, "a", models.Listener{
		OnListening: func() { listening <- struct{}{} },
		OnChange:    func() { changes <- struct{}{} },
		OnError:     func(err error) { errs <- err },
	})
	select {
	case <-listening:
	case err := <-errs:
		t.Fatal(err)
	case <-time.After(10 * time.Second):
		t.Fatal("LISTEN was never in place")
	}
	b := dbtest.MustOpenStore(t, dsn, t.TempDir()).DB()
	if err := b.NotifyChange(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changes:
	case err := <-errs:
		t.Fatal(err)
	case <-time.After(5 * time.Second):
		t.Fatal("the notice was never heard")
	}
	if err := a.NotifyChange(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changes:
		t.Fatal("a gateway reacted to its own notice")
	case <-time.After(300 * time.Millisecond):
	}
}

func TestNotifyOnSQLiteIsANoop(t *testing.T) {
	db := dbtest.MustOpenStore(t, "", t.TempDir()).DB()
	if err := db.NotifyChange(context.Background(), "x"); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { db.ListenChanges(context.Background(), "x", models.Listener{}); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("ListenChanges on SQLite did not return")
	}
}
