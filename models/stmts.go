package models

import (
	"context"
	"database/sql"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gorm.io/gorm"
)

// A stmtKey stands for the text of one statement, which sql writes for a
// dialect. Keys are compared as map keys.
type stmtKey interface {
	sql(dialect string) (string, error)
}

// placeholders write a statement's i-th (1-based) parameter per dialect.
var placeholders = map[string]func(b *strings.Builder, i int){
	DialectSQLite:   func(b *strings.Builder, _ int) { b.WriteByte('?') },
	DialectPostgres: func(b *strings.Builder, i int) { b.WriteByte('$'); b.WriteString(strconv.Itoa(i)) },
}

// maxPrepared bounds the statements preparedStmts keeps: the three spend
// updates and (on SQLite; PostgreSQL copies request logs) a few column sets
// of request logs times up to logBatchRows row counts cover what the proxy
// writes, and a rarer statement is compiled on each use. On SQLite an
// INSERT of 10 request logs takes about 30 KB on each connection that ran it.
const maxPrepared = 64

// preparedStmts are the statements of the proxy's request-log writes,
// prepared on the pool. The SQLite driver compiles a statement that is not
// prepared on every Exec, which was a third of the time of a batch of
// request logs; database/sql keeps a prepared one compiled on each
// connection that ran it, and Tx.StmtContext reuses it there. (pgx caches
// statements by their text itself, so on PostgreSQL this changes little.)
type preparedStmts struct {
	mu     sync.Mutex
	stmts  map[stmtKey]*sql.Stmt
	missed int // statements run without one prepared, for tests
}

// get returns the statement prepared for k, or nil.
func (p *preparedStmts) get(k stmtKey) *sql.Stmt {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stmts[k]
}

// prepare prepares the keys that have no statement, while there is room.
// It runs after the transaction that missed them: preparing on the pool
// from inside one waits for a second connection, which SQLite's small pool
// may not have while the others queue for the write lock that the
// transaction holds. It is an optimization only: a failure leaves the
// statement to be compiled on each use, and prepared at another try.
func (p *preparedStmts) prepare(ctx context.Context, db *DB, keys []stmtKey) {
	p.mu.Lock()
	p.missed += len(keys)
	p.mu.Unlock()
	pool, err := db.DB.DB()
	if err != nil {
		return
	}
	for _, k := range keys {
		p.mu.Lock()
		skip := p.stmts[k] != nil || len(p.stmts) >= maxPrepared
		p.mu.Unlock()
		if skip {
			continue
		}
		q, err := k.sql(db.Dialect)
		if err != nil {
			return
		}
		st, err := pool.PrepareContext(ctx, q)
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.stmts[k] == nil && len(p.stmts) < maxPrepared {
			if p.stmts == nil {
				p.stmts = make(map[stmtKey]*sql.Stmt)
			}
			p.stmts[k], st = st, nil
		}
		p.mu.Unlock()
		if st != nil {
			st.Close()
		}
	}
}

// close closes the prepared statements.
func (p *preparedStmts) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, st := range p.stmts {
		st.Close()
		delete(p.stmts, k)
	}
}

// txStmts runs statements in one transaction, the prepared ones where there
// are, and notes the keys that had none.
type txStmts struct {
	p      *preparedStmts
	missed []stmtKey
	// conn is the transaction's connection on PostgreSQL (see
	// Store.logTx), for copying request logs; nil on SQLite.
	conn *sql.Conn
}

// done prepares what the transaction missed; call it after the transaction.
func (w *txStmts) done(ctx context.Context, db *DB) {
	if len(w.missed) > 0 {
		w.p.prepare(ctx, db, w.missed)
	}
}

// exec runs the statement of k on the transaction's connection.
func (w *txStmts) exec(tx *gorm.DB, k stmtKey, args ...any) error {
	ctx := tx.Statement.Context
	if st := w.p.get(k); st != nil {
		if txc, ok := tx.Statement.ConnPool.(interface {
			StmtContext(context.Context, *sql.Stmt) *sql.Stmt
		}); ok {
			_, err := txc.StmtContext(ctx, st).ExecContext(ctx, args...)
			return err
		}
	}
	if !slices.Contains(w.missed, k) {
		w.missed = append(w.missed, k)
	}
	q, err := k.sql(tx.Dialector.Name())
	if err != nil {
		return err
	}
	_, err = tx.Statement.ConnPool.ExecContext(ctx, q, args...)
	return err
}
