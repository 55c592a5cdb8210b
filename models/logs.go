package models

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"
)

// logBatchRows is how many request logs go into one INSERT. The pure-Go
// SQLite driver binds parameters in time quadratic in their number, so one
// statement for a whole batch of 200 spent most of its time binding.
const logBatchRows = 10

// requestLogColumns are request_logs' columns but id, in the order in which
// (*RequestLog).appendValues gives their values; a test holds them to the
// struct's columns.
var requestLogColumns = []string{
	"created_at", "request_id", "key_id", "user_id", "team_id", "model",
	"deployment_id", "provider_id", "provider_name", "upstream_model", "endpoint",
	"stream", "status", "latency_ms", "ttfbms", "input_tokens", "output_tokens",
	"cache_read_tokens", "cache_write_tokens", "cost_usd", "attempts", "fallback", "error",
}

func (l *RequestLog) appendValues(args []any) []any {
	return append(args, l.CreatedAt, l.RequestID, l.KeyID, l.UserID, l.TeamID, l.Model,
		l.DeploymentID, l.ProviderID, l.ProviderName, l.UpstreamModel, l.Endpoint,
		l.Stream, l.Status, l.LatencyMS, l.TTFBMS, l.InputTokens, l.OutputTokens,
		l.CacheReadTokens, l.CacheWriteTokens, l.CostUSD, l.Attempts, l.Fallback, l.Error)
}

// insertLogsSQL[dialect][n] inserts n request logs: ? placeholders for
// SQLite, $1… for PostgreSQL.
var insertLogsSQL = map[string]*[logBatchRows + 1]string{
	DialectSQLite:   insertLogsStatements(func(int) string { return "?" }),
	DialectPostgres: insertLogsStatements(func(i int) string { return "$" + strconv.Itoa(i) }),
}

func insertLogsStatements(placeholder func(i int) string) *[logBatchRows + 1]string {
	var q [logBatchRows + 1]string
	cols := len(requestLogColumns)
	for n := 1; n <= logBatchRows; n++ {
		var b strings.Builder
		b.WriteString("INSERT INTO request_logs (" + strings.Join(requestLogColumns, ",") + ") VALUES ")
		for r := range n {
			if r > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('(')
			for c := range cols {
				if c > 0 {
					b.WriteByte(',')
				}
				b.WriteString(placeholder(r*cols + c + 1))
			}
			b.WriteByte(')')
		}
		q[n] = b.String()
	}
	return &q
}

// InsertRequestLogs writes request logs, logBatchRows to a statement, in one
// transaction. The rows' IDs are not read back.
func (s *Store) InsertRequestLogs(ctx context.Context, logs []RequestLog) error {
	return s.g(ctx).Transaction(func(tx *gorm.DB) error { return insertLogs(tx, logs) })
}

// insertLogs is a plain multi-row INSERT on the transaction's connection:
// GORM's CreateInBatches (reflection, RETURNING id read back into the
// structs) cost as much again as SQLite's own work, and even its Exec builds
// the statement again with a few allocations per value
// (models/bench_logs_test.go: 200 rows 14 ms → 4 ms).
func insertLogs(tx *gorm.DB, logs []RequestLog) error {
	statements, ok := insertLogsSQL[tx.Dialector.Name()]
	if !ok {
		return fmt.Errorf("models: insert request logs: no statement for database %q", tx.Dialector.Name())
	}
	ctx := tx.Statement.Context
	args := make([]any, 0, logBatchRows*len(requestLogColumns))
	for len(logs) > 0 {
		n := min(len(logs), logBatchRows)
		args = args[:0]
		for i := range logs[:n] {
			if logs[i].CreatedAt.IsZero() {
				logs[i].CreatedAt = tx.NowFunc().UTC() // UTC as the proxy writes: SQLite compares the text
			}
			args = logs[i].appendValues(args)
		}
		if _, err := tx.Statement.ConnPool.ExecContext(ctx, statements[n], args...); err != nil {
			return wrap(err, "insert %d request logs", n)
		}
		logs = logs[n:]
	}
	return nil
}

// LogFilter selects request logs; zero fields select everything.
type LogFilter struct {
	Model    string
	Provider string
	KeyID    int64
	Status   int
	BeforeID int64 // paging: only logs with a smaller id
	Limit    int
}

// ListRequestLogs returns matching logs, newest first, at most f.Limit (default 100, max 1000).
func (s *Store) ListRequestLogs(ctx context.Context, f LogFilter) ([]RequestLog, error) {
	q := s.g(ctx).Model(&RequestLog{})
	if f.Model != "" {
		q = q.Where("model = ?", f.Model)
	}
	if f.Provider != "" {
		q = q.Where("provider_name = ?", f.Provider)
	}
	if f.KeyID != 0 {
		q = q.Where("key_id = ?", f.KeyID)
	}
	if f.Status != 0 {
		q = q.Where("status = ?", f.Status)
	}
	if f.BeforeID != 0 {
		q = q.Where("id < ?", f.BeforeID)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	limit = min(limit, 1000)
	var logs []RequestLog
	err := q.Order("id DESC").Limit(limit).Find(&logs).Error
	return logs, wrap(err, "list request logs")
}

// SaveHealthCheck stores the last live check of a deployment.
func (s *Store) SaveHealthCheck(ctx context.Context, h *HealthCheck) error {
	if h.CheckedAt.IsZero() {
		h.CheckedAt = time.Now().UTC()
	}
	return wrap(s.g(ctx).Save(h).Error, "save health check of %d", h.DeploymentID)
}

// ListHealthChecks returns the last check of every deployment that has one.
func (s *Store) ListHealthChecks(ctx context.Context) ([]HealthCheck, error) {
	var hs []HealthCheck
	err := s.g(ctx).Order("deployment_id").Find(&hs).Error
	return hs, wrap(err, "list health checks")
}

// Spend holders: what a SpendDelta adds to.
const (
	SpendKey  = "key"
	SpendUser = "user"
	SpendTeam = "team"
)

// SpendDelta is spend to add to one key, user or team.
type SpendDelta struct {
	Holder string // SpendKey, SpendUser or SpendTeam
	ID     int64
	USD    float64
}

func spendTable(holder string) (string, error) {
	switch holder {
	case SpendKey:
		return "virtual_keys", nil
	case SpendUser:
		return "users", nil
	case SpendTeam:
		return "teams", nil
	}
	return "", fmt.Errorf("models: unknown spend holder %q: %w", holder, ErrInvalid)
}

// SaveLogsAndSpend writes request logs and adds spend in one transaction:
// spend the database acknowledged is never without its logs, nor the reverse.
// Increments, not totals, so that gateways sharing a database add up.
func (s *Store) SaveLogsAndSpend(ctx context.Context, logs []RequestLog, spend []SpendDelta) error {
	return s.g(ctx).Transaction(func(tx *gorm.DB) error {
		if err := insertLogs(tx, logs); err != nil {
			return err
		}
		for _, d := range spend {
			table, err := spendTable(d.Holder)
			if err != nil {
				return err
			}
			if err := tx.Table(table).Where("id = ?", d.ID).
				UpdateColumn("spend_usd", gorm.Expr("spend_usd + ?", d.USD)).Error; err != nil {
				return wrap(err, "add spend to %s %d", d.Holder, d.ID)
			}
		}
		return nil
	})
}

// ResetSpend starts a new budget period for one holder: spend back to 0 and
// the next reset at next. Only a period that has not been reset yet is reset,
// so that gateways sharing a database do it once.
func (s *Store) ResetSpend(ctx context.Context, holder string, id int64, next time.Time) error {
	table, err := spendTable(holder)
	if err != nil {
		return err
	}
	err = s.g(ctx).Table(table).Where("id = ? AND (budget_reset_at IS NULL OR budget_reset_at < ?)", id, next).
		Updates(map[string]any{"spend_usd": 0, "budget_reset_at": next}).Error
	return wrap(err, "reset spend of %s %d", holder, id)
}

// PruneRequestLogs deletes request logs created before t and says how many.
func (s *Store) PruneRequestLogs(ctx context.Context, before time.Time) (int64, error) {
	res := s.g(ctx).Where("created_at < ?", before).Delete(&RequestLog{})
	return res.RowsAffected, wrap(res.Error, "prune request logs")
}
