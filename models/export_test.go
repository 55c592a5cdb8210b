package models

import (
	"context"

	"gorm.io/gorm"
)

// MaxLogInserts is maxLogInserts, for tests.
const MaxLogInserts = maxLogInserts

// PreparedLogInserts counts the request-log INSERTs the store keeps prepared.
func (s *Store) PreparedLogInserts() int {
	li := &s.db.logInserts
	li.mu.Lock()
	defer li.mu.Unlock()
	return len(li.stmts)
}

// InsertRequestLogsMissed is InsertRequestLogs that also says how many of
// its statements' shapes had no prepared statement.
func (s *Store) InsertRequestLogsMissed(ctx context.Context, logs []RequestLog) (int, error) {
	w := s.logInserter()
	defer w.done(ctx, s.db)
	err := s.g(ctx).Transaction(func(tx *gorm.DB) error { return w.insert(tx, logs) })
	return len(w.missed), err
}
