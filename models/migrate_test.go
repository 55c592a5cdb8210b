package models_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"gateway/models"
	"gateway/models/dbtest"
)

// fillLogs inserts n request logs in one statement.
func fillLogs(t *testing.T, db *models.DB, n int) {
	t.Helper()
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	q := `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < ?)
INSERT INTO request_logs (created_at, request_id, model, provider_name, status, input_tokens, output_tokens, cost_usd)
SELECT ?, hex(randomblob(16)), 'gpt-4o', 'openai', 200, 1200, 300, 0.006 FROM c`
	if db.Dialect == models.DialectPostgres {
		q = `INSERT INTO request_logs (created_at, request_id, model, provider_name, status, input_tokens, output_tokens, cost_usd)
SELECT $2, md5(g::text), 'gpt-4o', 'openai', 200, 1200, 300, 0.006 FROM generate_series(1, $1) g`
	}
	if err := db.Exec(q, n, at).Error; err != nil {
		t.Fatal(err)
	}
}

// storage is what a rewrite of a table would change: on SQLite the file's
// page count and where each table and index starts (a copied table starts
// on a new page), on PostgreSQL each relation's file node (a rewrite
// gives it a new one) and size; and the rows of request_logs.
func storage(t *testing.T, db *models.DB) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	var rows []struct {
		Name string
		N    int64
	}
	q := `SELECT name, rootpage AS n FROM sqlite_master WHERE rootpage > 0`
	if db.Dialect == models.DialectPostgres {
		q = `SELECT c.relname AS name, c.relfilenode AS n FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
WHERE s.nspname = current_schema() AND c.relkind IN ('r', 'i')
UNION ALL SELECT 'size:' || c.relname, pg_relation_size(c.oid) FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
WHERE s.nspname = current_schema() AND c.relkind IN ('r', 'i')`
	}
	if err := db.Raw(q).Scan(&rows).Error; err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		out[r.Name] = r.N
	}
	if db.Dialect == models.DialectSQLite {
		var pages int64
		if err := db.Raw("PRAGMA page_count").Scan(&pages).Error; err != nil {
			t.Fatal(err)
		}
		out["page_count"] = pages
	}
	var n int64
	if err := db.Table("request_logs").Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	out["rows"] = n
	return out
}

func reopen(t *testing.T, dsn, dataDir string) *models.DB {
	t.Helper()
	db, err := models.Open(context.Background(), dsn, dataDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func sameStorage(t *testing.T, before, after map[string]int64) {
	t.Helper()
	for _, k := range slices.Sorted(maps.Keys(before)) {
		if after[k] != before[k] {
			t.Errorf("%s: %d before the start, %d after", k, before[k], after[k])
		}
	}
	if len(after) != len(before) {
		t.Errorf("%d tables and indexes before the start, %d after", len(before), len(after))
	}
}

// TestStartRewritesNothing: a start on a schema the gateway made and
// nothing changed copies no table and grows no file, however many rows.
func TestStartRewritesNothing(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dsn, dataDir string) {
		ctx := context.Background()
		first := reopen(t, dsn, dataDir)
		if err := first.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		fillLogs(t, first, 20000)
		before := storage(t, first)
		first.Close()
		for i := range 2 {
			db := reopen(t, dsn, dataDir)
			if err := db.Migrate(ctx); err != nil {
				t.Fatalf("start %d: %v", i+2, err)
			}
			sameStorage(t, before, storage(t, db))
			db.Close()
		}
	})
}

// TestMigrateAddsColumnsInPlace: a store from before a column existed gets
// it at the next start without a copy of its rows.
func TestMigrateAddsColumnsInPlace(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dsn, dataDir string) {
		ctx := context.Background()
		db := reopen(t, dsn, dataDir)
		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		fillLogs(t, db, 5000)
		for _, col := range []string{"reasoning_tokens", "price_source", "cost_output_usd"} {
			if err := db.Exec("ALTER TABLE request_logs DROP COLUMN " + col).Error; err != nil {
				t.Fatal(err)
			}
		}
		if err := db.Exec("DROP INDEX idx_request_logs_status").Error; err != nil {
			t.Fatal(err)
		}
		before := storage(t, db)
		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		for _, col := range []string{"reasoning_tokens", "price_source", "cost_output_usd"} {
			if !db.Migrator().HasColumn(&models.RequestLog{}, col) {
				t.Errorf("Migrate did not add %s", col)
			}
		}
		if !db.Migrator().HasIndex(&models.RequestLog{}, "idx_request_logs_status") {
			t.Error("Migrate did not add the missing index")
		}
		after := storage(t, db)
		delete(after, "idx_request_logs_status")
		delete(after, "size:idx_request_logs_status")
		delete(before, "page_count") // the new index has pages of its own
		delete(after, "page_count")
		sameStorage(t, before, after)
		var src string
		if err := db.Raw("SELECT price_source FROM request_logs LIMIT 1").Scan(&src).Error; err != nil || src != "" {
			t.Errorf("an old row's price_source is %q (%v), want the column's default", src, err)
		}
	})
}

// TestMigrationUnsetsEntryPrices: entries of before prices could be unset
// had 0 for "not typed"; they become unset, so that the catalog prices
// them, and a typed price stays.
func TestMigrationUnsetsEntryPrices(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dsn, dataDir string) {
		ctx := context.Background()
		db := reopen(t, dsn, dataDir)
		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		oldSchema(t, db)
		if err := db.Exec(`INSERT INTO providers (name, api_type, base_url, api_key_cipher) VALUES ('p', 'openai', 'http://x', '')`).Error; err != nil {
			t.Fatal(err)
		}
		insert := `INSERT INTO deployments (public_name, provider_id, upstream_model, input_price, output_price, priority, enabled)
VALUES (?, (SELECT id FROM providers), 'u', ?, ?, 0, true)`
		for _, e := range []struct {
			name    string
			in, out float64
		}{{"untyped", 0, 0}, {"typed", 2.5, 10}, {"half", 0, 4}} {
			if err := db.Exec(insert, e.name, e.in, e.out).Error; err != nil {
				t.Fatal(err)
			}
		}
		if err := db.Exec("DELETE FROM schema_migrations WHERE version = 2").Error; err != nil {
			t.Fatal(err)
		}
		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		s := models.NewStore(db, nil)
		ds, err := s.ListDeployments(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, d := range ds {
			got[d.PublicName] = fmt.Sprint(price(d.InputPrice), "/", price(d.OutputPrice))
		}
		want := map[string]string{"untyped": "unset/unset", "typed": "2.5/10", "half": "unset/4"}
		if !maps.Equal(got, want) {
			t.Errorf("prices after the migration %v, want %v", got, want)
		}
		if err := db.Exec(insert, "new", nil, nil).Error; err != nil {
			t.Errorf("an unset price is still refused: %v", err)
		}
	})
}

func price(p *float64) string {
	if p == nil {
		return "unset"
	}
	return fmt.Sprint(*p)
}

// oldSchema makes deployments' input and output prices NOT NULL DEFAULT 0,
// as they were.
func oldSchema(t *testing.T, db *models.DB) {
	t.Helper()
	if db.Dialect == models.DialectPostgres {
		for _, col := range []string{"input_price", "output_price"} {
			if err := db.Exec("ALTER TABLE deployments ALTER COLUMN " + col + " SET DEFAULT 0, ALTER COLUMN " + col + " SET NOT NULL").Error; err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	for _, col := range []string{"InputPrice", "OutputPrice"} {
		if err := db.Migrator().AlterColumn(&oldDeployment{}, col); err != nil {
			t.Fatal(err)
		}
	}
}

// oldDeployment has the price columns of before.
type oldDeployment struct {
	ID          int64   `gorm:"primaryKey"`
	InputPrice  float64 `gorm:"not null;default:0"`
	OutputPrice float64 `gorm:"not null;default:0"`
}

func (oldDeployment) TableName() string { return "deployments" }
