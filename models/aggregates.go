package models

import (
	"context"
	"fmt"
	"time"
)

// UsageTotal is what the request logs of one group add up to.
type UsageTotal struct {
	Group     string  `json:"group"` // the key id, user id, team id, public name or deployment id
	Requests  int64   `json:"requests"`
	Successes int64   `json:"successes"`
	TokensIn  int64   `json:"tokens_in"`
	TokensOut int64   `json:"tokens_out"`
	CostUSD   float64 `json:"cost_usd"`
	AvgMS     float64 `json:"avg_latency_ms"`
}

// Groupings of SumRequestLogs.
var usageGroups = map[string]string{
	"key": "key_id", "user": "user_id", "team": "team_id", "model": "model", "deployment": "deployment_id",
}

// SumRequestLogs adds up the request logs created in [from, to) by one of
// "key", "user", "team", "model" or "deployment", biggest spenders first.
// Rows without the grouping (a request of a key without a team) are left out.
func (s *Store) SumRequestLogs(ctx context.Context, by string, from, to time.Time) ([]UsageTotal, error) {
	col, ok := usageGroups[by]
	if !ok {
		return nil, fmt.Errorf("models: group by %q: want key, user, team, model or deployment: %w", by, ErrInvalid)
	}
	var out []UsageTotal
	err := s.g(ctx).Model(&RequestLog{}).
		Select(fmt.Sprintf(`CAST(%s AS TEXT) AS "group", COUNT(*) AS requests,
			SUM(CASE WHEN status < 400 THEN 1 ELSE 0 END) AS successes,
			SUM(input_tokens) AS tokens_in, SUM(output_tokens) AS tokens_out, SUM(cost_usd) AS cost_usd,
			AVG(latency_ms) AS avg_ms`, col)).
		Where("created_at >= ? AND created_at < ? AND "+col+" IS NOT NULL", from, to).
		Group(col).Order("cost_usd DESC, requests DESC").Scan(&out).Error
	return out, wrap(err, "sum request logs by %s", by)
}
