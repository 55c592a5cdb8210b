package models

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
)

// InsertRequestLogs writes request logs in one transaction (see
// insertLogs). The rows' IDs are not read back.
func (s *Store) InsertRequestLogs(ctx context.Context, logs []RequestLog) error {
	return s.logTx(ctx, func(tx *gorm.DB, w *txStmts) error { return insertLogs(tx, w, logs) })
}

// logTx runs fn in one transaction, with w for the store's prepared
// statements. On PostgreSQL the transaction runs on a connection taken from
// the pool for it, which w keeps, so that request logs are copied into
// their table (COPY) rather than inserted.
func (s *Store) logTx(ctx context.Context, fn func(tx *gorm.DB, w *txStmts) error) error {
	w := &txStmts{p: &s.db.stmts}
	defer w.done(ctx, s.db)
	g := s.g(ctx) // its own statement: the connection set below stays with it
	if s.db.Dialect == DialectPostgres {
		pool, err := s.db.DB.DB()
		if err != nil {
			return wrap(err, "request logs")
		}
		conn, err := pool.Conn(ctx)
		if err != nil {
			return wrap(err, "take a connection for request logs")
		}
		defer conn.Close()
		g.Statement.ConnPool = conn
		w.conn = conn
	}
	return g.Transaction(func(tx *gorm.DB) error { return fn(tx, w) })
}

// LogFilter selects request logs; zero fields select everything.
type LogFilter struct {
	Model     string
	Provider  string
	KeyID     int64
	Status    int
	RequestID string
	From, To  time.Time // created in [From, To)
	// ErrorsOnly: failed requests only, a status of 400 or more or an error
	// (a stream broken after its 200).
	ErrorsOnly bool
	BeforeID   int64 // paging: only logs with a smaller id
	Limit      int
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
	if f.RequestID != "" {
		q = q.Where("request_id = ?", f.RequestID)
	}
	// SQLite compares created_at as the text written, in UTC.
	if !f.From.IsZero() {
		q = q.Where("created_at >= ?", f.From.UTC())
	}
	if !f.To.IsZero() {
		q = q.Where("created_at < ?", f.To.UTC())
	}
	if f.ErrorsOnly {
		q = q.Where("(status >= 400 OR error <> '')")
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

// GetRequestLog returns one request log, ErrNotFound when there is none.
func (s *Store) GetRequestLog(ctx context.Context, id int64) (*RequestLog, error) {
	var l RequestLog
	if err := s.g(ctx).First(&l, id).Error; err != nil {
		return nil, wrap(err, "get request log %d", id)
	}
	return &l, nil
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

// Spend holders: what a request's cost is added to.
const (
	SpendKey  = "key"
	SpendUser = "user"
	SpendTeam = "team"
)

// SpendReset starts a new budget period for one holder: its spend back to 0,
// its next reset at Next. From is the end of the period it follows as the
// writer knew it, which lets a reset move the end earlier after the
// period's length was shortened (zero: the holder had none written).
type SpendReset struct {
	Holder string    `json:"holder"` // SpendKey, SpendUser or SpendTeam
	ID     int64     `json:"id"`
	Next   time.Time `json:"next"`
	From   time.Time `json:"from,omitzero"`
}

// LogEntry is one item of the proxy's stream of request logs: a request's
// row, whose cost is the spend of its key, user and team, or (Reset set) the
// start of a new budget period, which must come between the rows of the
// period before and those of the next. The JSON form is the spool's.
type LogEntry struct {
	Log   RequestLog  `json:"log,omitzero"`
	Reset *SpendReset `json:"reset,omitempty"`
	// Response (set instead of Log) is a Responses answer to keep;
	// ForgetResponse one to delete, which may be on its way in this stream.
	Response       *StoredResponse `json:"response,omitempty"`
	ForgetResponse *ResponseRef    `json:"forget_response,omitempty"`
	// Seq orders a process's entries for the proxy, which learns from it
	// which spend the database has; it is not stored, nor spooled.
	Seq int64 `json:"-"`
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
	return "", invalid("", "unknown spend holder %q", holder)
}

// SaveLogEntries writes entries in one transaction, in their order: request
// logs, each row's cost added to its key, user and team, and budget resets
// where they stand. Spend is derived from the rows written, so stored spend
// is always the sum of stored costs since the last reset, and increments,
// not totals, so that gateways sharing a database add up.
//
// once is for entries tried before, whose earlier transaction may have been
// committed without the writer hearing of it (a connection lost during the
// commit): rows whose request id is already stored are left out, and so is
// their spend.
func (s *Store) SaveLogEntries(ctx context.Context, entries []LogEntry, once bool) error {
	return s.logTx(ctx, func(tx *gorm.DB, w *txStmts) error {
		var stored map[string]bool
		if once {
			var err error
			if stored, err = storedRequestIDs(tx, entries); err != nil {
				return err
			}
		}
		rows := make([]RequestLog, 0, len(entries))
		var responses []StoredResponse
		var forget []ResponseRef
		for _, e := range entries {
			switch {
			case e.Response != nil:
				responses = append(responses, *e.Response)
				continue
			case e.ForgetResponse != nil:
				forget = append(forget, *e.ForgetResponse)
				continue
			}
			if e.Reset == nil {
				if id := e.Log.RequestID; id == "" || !stored[id] {
					rows = append(rows, e.Log)
				}
				continue
			}
			if err := saveRows(tx, w, rows); err != nil {
				return err
			}
			rows = rows[:0]
			if err := resetSpend(tx, *e.Reset); err != nil {
				return err
			}
		}
		if err := saveRows(tx, w, rows); err != nil {
			return err
		}
		if err := saveResponses(tx, responses); err != nil {
			return err
		}
		return forgetResponses(tx, forget)
	})
}

// storedRequestIDs returns which of the entries' request ids are stored
// already. The created_at index narrows the search to the entries' times.
func storedRequestIDs(tx *gorm.DB, entries []LogEntry) (map[string]bool, error) {
	var ids []string
	var lo, hi time.Time
	for _, e := range entries {
		if e.Reset != nil || e.Log.RequestID == "" {
			continue
		}
		t := e.Log.CreatedAt
		if len(ids) == 0 || t.Before(lo) {
			lo = t
		}
		if len(ids) == 0 || t.After(hi) {
			hi = t
		}
		ids = append(ids, e.Log.RequestID)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	// A second either side: PostgreSQL keeps microseconds of Go's nanoseconds.
	var found []string
	err := tx.Table("request_logs").
		Where("created_at >= ? AND created_at <= ? AND request_id IN ?", lo.Add(-time.Second).UTC(), hi.Add(time.Second).UTC(), ids).
		Pluck("request_id", &found).Error
	if err != nil {
		return nil, wrap(err, "find stored request logs")
	}
	stored := make(map[string]bool, len(found))
	for _, id := range found {
		stored[id] = true
	}
	return stored, nil
}

// spendAdd is the statement that adds to the spend of one row of a spend
// table, a stmtKey: as GORM's UpdateColumn wrote it, prepared once.
type spendAdd string

func (table spendAdd) sql(dialect string) (string, error) {
	placeholder, ok := placeholders[dialect]
	if !ok {
		return "", fmt.Errorf("models: add spend: no statement for database %q", dialect)
	}
	var b strings.Builder
	b.WriteString("UPDATE " + string(table) + " SET spend_usd = spend_usd + ")
	placeholder(&b, 1)
	b.WriteString(" WHERE id = ")
	placeholder(&b, 2)
	return b.String(), nil
}

// spendKey is one row of a spend table.
type spendKey struct {
	holder string
	id     int64
}

// saveRows inserts rows and adds their costs to their holders, in the order
// of holder and id, so that two gateways' transactions never wait for each
// other's rows in opposite orders.
func saveRows(tx *gorm.DB, w *txStmts, rows []RequestLog) error {
	if len(rows) == 0 {
		return nil
	}
	if err := insertLogs(tx, w, rows); err != nil {
		return err
	}
	spend := make(map[spendKey]float64)
	for i := range rows {
		r := &rows[i]
		if r.CostUSD == 0 {
			continue
		}
		for _, h := range [...]struct {
			holder string
			id     *int64
		}{{SpendKey, r.KeyID}, {SpendUser, r.UserID}, {SpendTeam, r.TeamID}} {
			if h.id != nil {
				spend[spendKey{h.holder, *h.id}] += r.CostUSD
			}
		}
	}
	keys := slices.SortedFunc(maps.Keys(spend), func(a, b spendKey) int {
		return cmp.Or(cmp.Compare(a.holder, b.holder), cmp.Compare(a.id, b.id))
	})
	for _, k := range keys {
		table, err := spendTable(k.holder)
		if err != nil {
			return err
		}
		if err := w.exec(tx, spendAdd(table), spend[k], k.id); err != nil {
			return wrap(err, "add spend to %s %d", k.holder, k.id)
		}
	}
	return nil
}

// resetSpend starts a new budget period for one holder. Only the period the
// reset follows is reset (or one ending before Next), so that gateways
// sharing a database do it once, an entry written twice changes nothing,
// and a late one (replayed from a spool) never zeroes a newer period.
func resetSpend(tx *gorm.DB, r SpendReset) error {
	table, err := spendTable(r.Holder)
	if err != nil {
		return err
	}
	q := tx.Table(table).Where("id = ?", r.ID)
	if r.From.IsZero() {
		q = q.Where("budget_reset_at IS NULL OR budget_reset_at < ?", r.Next.UTC())
	} else {
		q = q.Where("budget_reset_at IS NULL OR budget_reset_at < ? OR (budget_reset_at = ? AND budget_reset_at <> ?)",
			r.Next.UTC(), r.From.UTC(), r.Next.UTC())
	}
	err = q.Updates(map[string]any{"spend_usd": 0, "budget_reset_at": r.Next.UTC()}).Error
	return wrap(err, "reset spend of %s %d", r.Holder, r.ID)
}

// PruneRequestLogs deletes request logs created before t and says how many.
func (s *Store) PruneRequestLogs(ctx context.Context, before time.Time) (int64, error) {
	res := s.g(ctx).Where("created_at < ?", before).Delete(&RequestLog{})
	return res.RowsAffected, wrap(res.Error, "prune request logs")
}

// HolderSpend is a holder's stored spend in its budget period.
type HolderSpend struct {
	Holder        string // SpendKey, SpendUser or SpendTeam
	ID            int64
	SpendUSD      float64
	BudgetResetAt *time.Time
}

// ListSpend returns the stored spend of every key, user and team that has a
// budget, in one query: replicas read it every second to see each other's
// spend.
func (s *Store) ListSpend(ctx context.Context) ([]HolderSpend, error) {
	const cols = "id, spend_usd, budget_reset_at"
	const budgeted = "max_budget_usd IS NOT NULL OR soft_budget_usd IS NOT NULL"
	var out []HolderSpend
	err := s.g(ctx).Raw(
		"SELECT '" + SpendKey + "' AS holder, " + cols + " FROM virtual_keys WHERE " + budgeted +
			" UNION ALL SELECT '" + SpendUser + "', " + cols + " FROM users WHERE " + budgeted +
			" UNION ALL SELECT '" + SpendTeam + "', " + cols + " FROM teams WHERE " + budgeted).
		Scan(&out).Error
	return out, wrap(err, "list spend")
}
