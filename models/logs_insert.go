package models

import (
	"database/sql"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/gorm"
)

// Request logs are the one table written on every proxied request, so they
// are inserted by hand: GORM's CreateInBatches (reflection, RETURNING id read
// back into the structs) cost as much again as SQLite's own work, and even
// its Exec builds the statement again with allocations per value
// (models/bench_logs_test.go: 200 rows 14 ms → about 4 ms).

// logBatchRows is how many request logs go into one INSERT on SQLite. With
// statements prepared once, 20 or 50 rows to a statement were no faster
// than 10. (PostgreSQL copies a whole batch: copyLogs.)
const logBatchRows = 10

// logColumns counts request_logs' columns but id.
const logColumns = 33

// requestLogColumns are those columns, in the order in which
// (*RequestLog).columnValues gives their values; a test holds them to the
// struct's columns.
var requestLogColumns = [logColumns]string{
	"created_at", "request_id", "key_id", "user_id", "team_id", "model",
	"deployment_id", "provider_id", "provider_name", "upstream_model", "endpoint",
	"stream", "status", "latency_ms", "ttfbms", "input_tokens", "output_tokens",
	"cache_read_tokens", "cache_write_tokens", "cost_usd", "usage_estimated", "attempts", "fallback", "error",
	"trace", "cache_write_1h_tokens", "reasoning_tokens", "cost_input_usd", "cost_cache_read_usd",
	"cost_cache_write_usd", "cost_output_usd", "price_source", "long_context",
}

func (l *RequestLog) columnValues() [logColumns]any {
	return [logColumns]any{l.CreatedAt, l.RequestID, l.KeyID, l.UserID, l.TeamID, l.Model,
		l.DeploymentID, l.ProviderID, l.ProviderName, l.UpstreamModel, l.Endpoint,
		l.Stream, l.Status, l.LatencyMS, l.TTFBMS, l.InputTokens, l.OutputTokens,
		l.CacheReadTokens, l.CacheWriteTokens, l.CostUSD, l.UsageEstimated, l.Attempts, l.Fallback, l.Error,
		l.traceColumn(), l.CacheWrite1hTokens, l.ReasoningTokens, l.CostInputUSD, l.CostCacheReadUSD,
		l.CostCacheWriteUSD, l.CostOutputUSD, l.PriceSource, l.LongContext}
}

// traceColumn is the trace as a column value. Most rows have none, and a
// slice put in an interface costs an allocation per row: "" does not.
func (l *RequestLog) traceColumn() any {
	if len(l.Trace) == 0 {
		return ""
	}
	return l.Trace
}

// isColumnDefault reports whether a value is what its column holds when an
// INSERT leaves it out (NULL, 0, ” or false). Most rows have a handful of
// such columns (cache tokens, fallback, error, user, team), and every value
// bound costs time in the drivers: leaving them out made a batch of sparse
// rows about a fifth cheaper, on SQLite with the statement prepared as on
// PostgreSQL (models/bench_logs_test.go).
func isColumnDefault(v any) bool {
	switch v := v.(type) {
	case *int64:
		return v == nil
	case string:
		return v == ""
	case int:
		return v == 0
	case int64:
		return v == 0
	case float64:
		return v == 0
	case bool:
		return !v
	}
	return false // created_at is always written
}

// logShape is the form of one INSERT of request logs, a stmtKey.
type logShape struct {
	cols uint64 // bit c set: requestLogColumns[c] is given
	rows int
}

// sql writes the INSERT of sh.
func (sh logShape) sql(dialect string) (string, error) {
	placeholder, ok := placeholders[dialect]
	if !ok {
		return "", fmt.Errorf("models: insert request logs: no statement for database %q", dialect)
	}
	var b strings.Builder
	b.WriteString("INSERT INTO request_logs (")
	cols := 0
	for c, name := range requestLogColumns {
		if sh.cols&(1<<c) != 0 {
			if cols > 0 {
				b.WriteByte(',')
			}
			b.WriteString(name)
			cols++
		}
	}
	b.WriteString(") VALUES ")
	for r := range sh.rows {
		if r > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		for c := range cols {
			if c > 0 {
				b.WriteByte(',')
			}
			placeholder(&b, r*cols+c+1)
		}
		b.WriteByte(')')
	}
	return b.String(), nil
}

// insertLogs inserts logs on the transaction's connection: on SQLite
// logBatchRows to a statement, each statement with the columns that some of
// its rows set; on PostgreSQL all of them in one COPY (copyLogs).
func insertLogs(tx *gorm.DB, w *txStmts, logs []RequestLog) error {
	for i := range logs {
		if logs[i].CreatedAt.IsZero() {
			logs[i].CreatedAt = tx.NowFunc().UTC() // UTC as the proxy writes: SQLite compares the text
		}
	}
	if w.conn != nil {
		return copyLogs(tx, w.conn, logs)
	}
	var (
		args = make([]any, 0, logBatchRows*logColumns)
		rows [logBatchRows][logColumns]any
	)
	for len(logs) > 0 {
		sh := logShape{rows: min(len(logs), logBatchRows)}
		for i := range logs[:sh.rows] {
			rows[i] = logs[i].columnValues()
			for c, v := range rows[i] {
				if !isColumnDefault(v) {
					sh.cols |= 1 << c
				}
			}
		}
		args = args[:0]
		for i := range sh.rows {
			for c, v := range rows[i] {
				if sh.cols&(1<<c) != 0 {
					args = append(args, v)
				}
			}
		}
		if err := w.exec(tx, sh, args...); err != nil {
			return wrap(err, "insert %d request logs", sh.rows)
		}
		logs = logs[sh.rows:]
	}
	return nil
}

// copyLogs copies logs into request_logs with PostgreSQL's COPY, inside the
// transaction open on conn: one command for the whole batch, in the binary
// format, rather than an INSERT of logBatchRows rows at a time: one round
// trip instead of one per ten rows, and far less for the server to do per
// row (psql, 20,000 rows: 0.56–0.64 s as INSERTs of 100 rows, 0.21 s
// copied; BenchmarkInsertRequestLogs/postgres about twice as fast). Every
// column is given, its default where the row has none, which is what the
// INSERT's leaving it out stored.
func copyLogs(tx *gorm.DB, conn *sql.Conn, logs []RequestLog) error {
	ctx := tx.Statement.Context
	rows := make([][]any, len(logs))
	values := make([][logColumns]any, len(logs))
	for i := range logs {
		values[i] = logs[i].columnValues()
		rows[i] = values[i][:]
	}
	err := conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("models: copy request logs: a %T is not pgx's", dc)
		}
		_, err := c.Conn().CopyFrom(ctx, pgx.Identifier{"request_logs"}, requestLogColumns[:], pgx.CopyFromRows(rows))
		return err
	})
	return wrap(err, "copy %d request logs", len(logs))
}
