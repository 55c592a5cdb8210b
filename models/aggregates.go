package models

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// successesSQL counts the successes of a group of request logs: a status
// 200–399. A status 0 is a request that never got an answer.
const successesSQL = "SUM(CASE WHEN status >= 200 AND status < 400 THEN 1 ELSE 0 END)"

// UsageTotal is what the request logs of one group add up to.
type UsageTotal struct {
	Group     string  `json:"group"` // the key id, user id, team id, public name or deployment id
	Requests  int64   `json:"requests"`
	Successes int64   `json:"successes"`
	TokensIn  int64   `json:"tokens_in"`
	TokensOut int64   `json:"tokens_out"`
	CostUSD   float64 `json:"cost_usd"`
	AvgMS     float64 `json:"avg_latency_ms"`
	// Provider and UpstreamModel name a deployment as its logs do, so that
	// one deleted since still has a name; set only when grouped by
	// deployment. Should they differ over the range, the greatest is kept.
	Provider      string `json:"provider,omitempty"`
	UpstreamModel string `json:"upstream_model,omitempty"`
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
		return nil, invalid("", "group by %q: want key, user, team, model or deployment", by)
	}
	names := ""
	if by == "deployment" {
		names = ", MAX(provider_name) AS provider, MAX(upstream_model) AS upstream_model"
	}
	var out []UsageTotal
	// SQLite compares created_at as the text the driver wrote, in UTC: the
	// bounds must be UTC too.
	err := s.g(ctx).Model(&RequestLog{}).
		Select(fmt.Sprintf(`CAST(%s AS TEXT) AS "group", COUNT(*) AS requests, %s AS successes,
			SUM(input_tokens) AS tokens_in, SUM(output_tokens) AS tokens_out, SUM(cost_usd) AS cost_usd,
			AVG(latency_ms) AS avg_ms%s`, col, successesSQL, names)).
		Where("created_at >= ? AND created_at < ? AND "+col+" IS NOT NULL", from.UTC(), to.UTC()).
		Group(col).Order("cost_usd DESC, requests DESC").Scan(&out).Error
	for i := range out {
		out[i].CostUSD = decimalSum(out[i].CostUSD)
	}
	return out, wrap(err, "sum request logs by %s", by)
}

// decimalSum is a sum of costs as the decimal it stands for: a float64 sum
// of many costs carries binary noise (0.30000000000000004) past its 15th
// significant digit, which answers would otherwise show.
func decimalSum(f float64) float64 {
	v, err := strconv.ParseFloat(strconv.FormatFloat(f, 'e', 14, 64), 64)
	if err != nil {
		return f
	}
	return v
}

// UsageSum is what some request logs add up to.
type UsageSum struct {
	Requests  int64
	Successes int64 // status 200–399
	LatencyMS int64 // the sum: sums add up, averages do not
	TokensIn  int64
	TokensOut int64
	CostUSD   float64
}

// Add adds o to u.
func (u *UsageSum) Add(o UsageSum) {
	u.Requests += o.Requests
	u.Successes += o.Successes
	u.LatencyMS += o.LatencyMS
	u.TokensIn += o.TokensIn
	u.TokensOut += o.TokensOut
	u.CostUSD += o.CostUSD
}

// AvgMS is the average latency, 0 without requests.
func (u UsageSum) AvgMS() float64 {
	if u.Requests == 0 {
		return 0
	}
	return float64(u.LatencyMS) / float64(u.Requests)
}

// UsageBucket is what the request logs of one time bucket add up to.
type UsageBucket struct {
	Start time.Time // the bucket is [Start, Start+length)
	UsageSum
}

// maxUsageBuckets bounds SumRequestLogsByTime: each bucket is a bound
// parameter of its query.
const maxUsageBuckets = 1000

// SumRequestLogsByTime adds up the request logs created in [from,
// from+n*bucket) in n buckets of that length, the i-th starting at
// from+i*bucket. It returns all n buckets, empty ones too.
func (s *Store) SumRequestLogsByTime(ctx context.Context, from time.Time, bucket time.Duration, n int) ([]UsageBucket, error) {
	if bucket <= 0 || n <= 0 || n > maxUsageBuckets {
		return nil, invalid("", "sum request logs in %d buckets of %v", n, bucket)
	}
	from = from.UTC() // see SumRequestLogs
	index, bounds := bucketIndexSQL(from, bucket, n)
	var rows []struct {
		Bucket int
		UsageSum
	}
	err := s.g(ctx).Model(&RequestLog{}).
		Select(`CASE `+index+` END AS bucket, COUNT(*) AS requests, `+successesSQL+` AS successes,
			SUM(latency_ms) AS latency_ms, SUM(input_tokens) AS tokens_in, SUM(output_tokens) AS tokens_out,
			SUM(cost_usd) AS cost_usd`, bounds...).
		Where("created_at >= ? AND created_at < ?", from, from.Add(time.Duration(n)*bucket)).
		Group("bucket").Scan(&rows).Error
	if err != nil {
		return nil, wrap(err, "sum request logs in %d buckets of %v", n, bucket)
	}
	out := make([]UsageBucket, n)
	for i := range out {
		out[i].Start = from.Add(time.Duration(i) * bucket)
	}
	for _, r := range rows {
		if r.Bucket < 0 || r.Bucket >= n {
			return nil, fmt.Errorf("models: sum request logs in %d buckets of %v: got bucket %d", n, bucket, r.Bucket)
		}
		out[r.Bucket].UsageSum = r.UsageSum
	}
	return out, nil
}

// bucketIndexSQL is the body of a CASE expression giving a created_at in
// [from, from+n*bucket) its bucket's index, and its parameters: the buckets'
// ends but the last. Comparisons with bound times, unlike date arithmetic,
// read the same on SQLite and PostgreSQL.
func bucketIndexSQL(from time.Time, bucket time.Duration, n int) (string, []any) {
	var b strings.Builder
	bounds := make([]any, 0, n-1)
	for i := 1; i < n; i++ {
		b.WriteString("WHEN created_at < ? THEN " + strconv.Itoa(i-1) + " ")
		bounds = append(bounds, from.Add(time.Duration(i)*bucket))
	}
	b.WriteString("ELSE " + strconv.Itoa(n-1))
	return b.String(), bounds
}
