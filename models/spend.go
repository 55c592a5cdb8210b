package models

import (
	"context"
	"fmt"
	"time"
)

// SpendRow is what the request logs of one group cost, for chargeback.
type SpendRow struct {
	// Group is the key, team or user id, the public name, the provider's
	// name, or the day (YYYY-MM-DD, UTC).
	Group            string
	Requests         int64
	InputTokens      int64 // every prompt token, cached ones included
	OutputTokens     int64
	CacheReadTokens  int64
	CacheWriteTokens int64
	CostUSD          float64
	// UnpricedRequests had a token without a price: their cost is unknown
	// and not in CostUSD.
	UnpricedRequests int64
}

// SpendGroups are the groupings of SpendReport.
var SpendGroups = []string{"key", "team", "user", "model", "provider", "day"}

// SpendReport adds up the cost of the request logs created in [from, to)
// by key, team, user, model, provider or day: the dearest first, by day in
// order of days. Rows without the grouping (a key without a team) are left
// out.
func (s *Store) SpendReport(ctx context.Context, by string, from, to time.Time) ([]SpendRow, error) {
	col, order := "", "cost_usd DESC, requests DESC"
	switch by {
	case "key", "team", "user":
		col = by + "_id"
	case "model":
		col = "model"
	case "provider":
		col = "provider_name"
	case "day":
		// The day of created_at in UTC: SQLite keeps the text the driver
		// wrote (UTC, see SumRequestLogs), PostgreSQL a timestamp.
		col, order = "SUBSTR(CAST(created_at AS TEXT), 1, 10)", `"group"`
		if s.db.Dialector.Name() == "postgres" {
			col = "TO_CHAR(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')"
		}
	default:
		return nil, invalid("group_by", "want key, team, user, model, provider or day, not %q", by)
	}
	var out []SpendRow
	err := s.g(ctx).Model(&RequestLog{}).
		Select(fmt.Sprintf(`CAST(%s AS TEXT) AS "group", COUNT(*) AS requests,
			SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens,
			SUM(cache_read_tokens) AS cache_read_tokens, SUM(cache_write_tokens) AS cache_write_tokens,
			SUM(CASE WHEN price_source = ? THEN 0 ELSE cost_usd END) AS cost_usd,
			SUM(CASE WHEN price_source = ? THEN 1 ELSE 0 END) AS unpriced_requests`, col),
			PriceSourceNone, PriceSourceNone).
		Where("created_at >= ? AND created_at < ? AND "+col+" IS NOT NULL", from.UTC(), to.UTC()).
		Group(col).Order(order).Scan(&out).Error
	return out, wrap(err, "spend by %s", by)
}
