package models

// MaxPrepared is maxPrepared, for tests.
const MaxPrepared = maxPrepared

// PreparedStatements counts the statements the store keeps prepared, and
// how often a transaction ran one that had none.
func (s *Store) PreparedStatements() (prepared, missed int) {
	p := &s.db.stmts
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.stmts), p.missed
}
