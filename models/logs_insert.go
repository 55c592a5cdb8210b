package models

import (
	"fmt"
	"strconv"
	"strings"

	"gorm.io/gorm"
)

// Request logs are the one table written on every proxied request, so they
// are inserted by hand: GORM's CreateInBatches (reflection, RETURNING id read
// back into the structs) cost as much again as SQLite's own work, and even
// its Exec builds the statement again with allocations per value
// (models/bench_logs_test.go: 200 rows 14 ms → about 4 ms).

// logBatchRows is how many request logs go into one INSERT. With the
// earlier SQLite driver (glebarez), whose binding took time quadratic in the
// number of parameters, one statement for a whole batch of 200 spent most of
// its time binding.
const logBatchRows = 10

// logColumns counts request_logs' columns but id.
const logColumns = 25

// requestLogColumns are those columns, in the order in which
// (*RequestLog).columnValues gives their values; a test holds them to the
// struct's columns.
var requestLogColumns = [logColumns]string{
	"created_at", "request_id", "key_id", "user_id", "team_id", "model",
	"deployment_id", "provider_id", "provider_name", "upstream_model", "endpoint",
	"stream", "status", "latency_ms", "ttfbms", "input_tokens", "output_tokens",
	"cache_read_tokens", "cache_write_tokens", "cost_usd", "usage_estimated", "attempts", "fallback", "error",
	"trace",
}

func (l *RequestLog) columnValues() [logColumns]any {
	return [logColumns]any{l.CreatedAt, l.RequestID, l.KeyID, l.UserID, l.TeamID, l.Model,
		l.DeploymentID, l.ProviderID, l.ProviderName, l.UpstreamModel, l.Endpoint,
		l.Stream, l.Status, l.LatencyMS, l.TTFBMS, l.InputTokens, l.OutputTokens,
		l.CacheReadTokens, l.CacheWriteTokens, l.CostUSD, l.UsageEstimated, l.Attempts, l.Fallback, l.Error,
		l.traceColumn()}
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
// INSERT leaves it out (NULL, 0, ” or false): the SQLite driver compiles
// the statement again on every call, at a cost that grows with the values in
// it, and most rows have a handful of zero columns (cache tokens, fallback,
// error, user, team): leaving those out makes a batch about a fifth cheaper.
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

// logPlaceholders write a statement's i-th (1-based) parameter per dialect.
var logPlaceholders = map[string]func(b *strings.Builder, i int){
	DialectSQLite:   func(b *strings.Builder, _ int) { b.WriteByte('?') },
	DialectPostgres: func(b *strings.Builder, i int) { b.WriteByte('$'); b.WriteString(strconv.Itoa(i)) },
}

// insertLogs inserts logs on the transaction's connection, logBatchRows to a
// statement, each statement with the columns that some of its rows set.
func insertLogs(tx *gorm.DB, logs []RequestLog) error {
	placeholder, ok := logPlaceholders[tx.Dialector.Name()]
	if !ok {
		return fmt.Errorf("models: insert request logs: no statement for database %q", tx.Dialector.Name())
	}
	var (
		sql  strings.Builder
		args = make([]any, 0, logBatchRows*logColumns)
		rows [logBatchRows][logColumns]any
	)
	for len(logs) > 0 {
		n := min(len(logs), logBatchRows)
		var used [logColumns]bool
		for i := range logs[:n] {
			if logs[i].CreatedAt.IsZero() {
				logs[i].CreatedAt = tx.NowFunc().UTC() // UTC as the proxy writes: SQLite compares the text
			}
			rows[i] = logs[i].columnValues()
			for c, v := range rows[i] {
				used[c] = used[c] || !isColumnDefault(v)
			}
		}
		args = args[:0]
		for i := range n {
			for c, v := range rows[i] {
				if used[c] {
					args = append(args, v)
				}
			}
		}
		writeInsertLogs(&sql, &used, n, placeholder)
		if _, err := tx.Statement.ConnPool.ExecContext(tx.Statement.Context, sql.String(), args...); err != nil {
			return wrap(err, "insert %d request logs", n)
		}
		logs = logs[n:]
	}
	return nil
}

// writeInsertLogs writes an INSERT of n rows of the used columns into b.
func writeInsertLogs(b *strings.Builder, used *[logColumns]bool, n int, placeholder func(*strings.Builder, int)) {
	b.Reset()
	b.WriteString("INSERT INTO request_logs (")
	cols := 0
	for c, name := range requestLogColumns {
		if used[c] {
			if cols > 0 {
				b.WriteByte(',')
			}
			b.WriteString(name)
			cols++
		}
	}
	b.WriteString(") VALUES ")
	for r := range n {
		if r > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		for c := range cols {
			if c > 0 {
				b.WriteByte(',')
			}
			placeholder(b, r*cols+c+1)
		}
		b.WriteByte(')')
	}
}
