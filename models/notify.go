package models

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// changesChannel is the PostgreSQL channel on which gateways sharing one
// database announce admin writes, so that each rebuilds its routing table at
// once instead of polling (better than LiteLLM's 30 s poll).
const changesChannel = "gateway_changes"

// NotifyChange tells the other gateways on this database that the
// configuration changed; origin identifies the sender, which ignores its own
// notice. SQLite has no other gateway to tell: a no-op there.
func (db *DB) NotifyChange(ctx context.Context, origin string) error {
	if db.Dialect != DialectPostgres {
		return nil
	}
	if err := db.WithContext(ctx).Exec("SELECT pg_notify(?, ?)", changesChannel, origin).Error; err != nil {
		return fmt.Errorf("models: notify change: %w", err)
	}
	return nil
}

// Listener is told what happens to a ListenChanges loop.
type Listener struct {
	OnListening func()      // each time LISTEN is in place
	OnChange    func()      // another gateway changed something
	OnError     func(error) // the connection was lost; it is re-opened
}

// ListenChanges calls l.OnChange for every change another gateway announces,
// until ctx ends. A lost connection is reported to l.OnError and re-opened
// after a pause, followed by one OnChange: notices sent meanwhile are lost.
// On SQLite it returns at once.
func (db *DB) ListenChanges(ctx context.Context, origin string, l Listener) {
	if db.Dialect != DialectPostgres {
		return
	}
	for first := true; ctx.Err() == nil; first = false {
		err := db.listen(ctx, origin, l, !first)
		if ctx.Err() != nil {
			return
		}
		l.OnError(err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

// listen holds one LISTEN connection until it fails or ctx ends.
func (db *DB) listen(ctx context.Context, origin string, l Listener, catchUp bool) error {
	conn, err := pgx.Connect(ctx, db.DSN)
	if err != nil {
		return fmt.Errorf("models: listen for changes: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+changesChannel); err != nil {
		return fmt.Errorf("models: listen for changes: %w", err)
	}
	l.OnListening()
	if catchUp {
		l.OnChange()
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return fmt.Errorf("models: wait for changes: %w", err)
		}
		if n.Payload != origin {
			l.OnChange()
		}
	}
}
