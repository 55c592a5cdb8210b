package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"gateway/models"
)

// fillLogs adds cfg.fillLogs request-log rows to a gateway's store, as a
// platform's traffic leaves them: 30 days up to now, 2,000 keys in 40 teams
// with a few keys doing most of the requests, a dozen models, a few per
// cent errors, coding agents' cache reads and writes. It writes through the
// gateway's own batched insert, so the rows are what the gateway writes.
func fillLogs(ctx context.Context, cfg config, stdout io.Writer) error {
	if cfg.fillDataDir == "" && cfg.databaseURL == "" {
		return errors.New("-fill-logs wants -data-dir or -database-url")
	}
	db, err := models.Open(ctx, cfg.databaseURL, cfg.fillDataDir)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	store := models.NewStore(db, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	keys := rand.NewZipf(rng, 1.2, 8, 1999)
	modelNames := []string{"claude-sonnet-4-5", "claude-haiku-4-5", "gpt-4o", "gpt-4o-mini", "gpt-5", "o3", "gemini-2.5-flash",
		"gemini-2.5-pro", "claude-opus-4-1", "text-embedding-3-small", "deepseek-chat", "llama-3.3-70b"}
	modelPick := rand.NewZipf(rng, 1.5, 2, uint64(len(modelNames)-1))
	now := time.Now().UTC()
	start := now.Add(-30 * 24 * time.Hour)
	step := 30 * 24 * time.Hour / time.Duration(cfg.fillLogs)
	const batch = 5000
	began := time.Now()
	rows := make([]models.RequestLog, 0, batch)
	for i := range cfg.fillLogs {
		key := int64(keys.Uint64()) + 1
		team := key%40 + 1
		dep := int64(modelPick.Uint64()) + 1
		r := models.RequestLog{CreatedAt: start.Add(time.Duration(i) * step), RequestID: fmt.Sprintf("%032x", rng.Uint64()),
			KeyID: &key, TeamID: &team, Model: modelNames[dep-1], DeploymentID: &dep, ProviderName: "provider-" + fmt.Sprint(dep%4),
			UpstreamModel: modelNames[dep-1], Endpoint: "/v1/messages", Stream: rng.IntN(4) > 0, Status: 200,
			LatencyMS: 200 + rng.Int64N(4000), TTFBMS: 100 + rng.Int64N(900), Attempts: 1,
			InputTokens: 1000 + rng.Int64N(60000), OutputTokens: 50 + rng.Int64N(2000), PriceSource: models.PriceSourceCatalog}
		r.CacheReadTokens = r.InputTokens * rng.Int64N(90) / 100
		r.CacheWriteTokens = (r.InputTokens - r.CacheReadTokens) / 2
		r.CacheWrite1hTokens = r.CacheWriteTokens / 2
		r.CostInputUSD = float64(r.InputTokens-r.CacheReadTokens-r.CacheWriteTokens) * 3e-6
		r.CostCacheReadUSD = float64(r.CacheReadTokens) * 0.3e-6
		r.CostCacheWriteUSD = float64(r.CacheWriteTokens) * 4.875e-6
		r.CostOutputUSD = float64(r.OutputTokens) * 15e-6
		r.CostUSD = r.CostInputUSD + r.CostCacheReadUSD + r.CostCacheWriteUSD + r.CostOutputUSD
		if rng.IntN(100) < 3 {
			r.Status, r.Error, r.OutputTokens, r.CostUSD, r.PriceSource = 429, "upstream 429: rate limited", 0, 0, ""
		}
		rows = append(rows, r)
		if len(rows) == batch || i == cfg.fillLogs-1 {
			if err := store.InsertRequestLogs(ctx, rows); err != nil {
				return err
			}
			rows = rows[:0]
		}
	}
	fmt.Fprintf(stdout, "added %d request-log rows in %s\n", cfg.fillLogs, time.Since(began).Round(time.Millisecond))
	return nil
}
