// Package dbtest opens real databases for tests: an SQLite file in a temporary
// directory, and a fresh PostgreSQL database when GATEWAY_TEST_DATABASE_URL
// points at a server.
package dbtest

import (
	"context"
	"os"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"gateway/models"
)

// EnvPostgresURL names the PostgreSQL server tests use; the user must be allowed
// to create databases.
const EnvPostgresURL = "GATEWAY_TEST_DATABASE_URL"

// Each runs fn as a subtest on SQLite ("sqlite") and on PostgreSQL ("postgres").
// Without a PostgreSQL URL the postgres subtest is skipped, and fails when
// GATEWAY_REQUIRE_POSTGRES is set (CI sets it).
func Each(t *testing.T, fn func(t *testing.T, dsn, dataDir string)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { fn(t, "", t.TempDir()) })
	t.Run("postgres", func(t *testing.T) { fn(t, PostgresDSN(t), t.TempDir()) })
}

// EachStore is Each with an open, migrated store.
func EachStore(t *testing.T, fn func(t *testing.T, s *models.Store)) {
	t.Helper()
	Each(t, func(t *testing.T, dsn, dataDir string) { fn(t, MustOpenStore(t, dsn, dataDir)) })
}

// MustOpenStore opens and migrates the database and returns a store with a
// fixed test secret. It closes the database when the test ends.
func MustOpenStore(tb testing.TB, dsn, dataDir string) *models.Store {
	tb.Helper()
	db, err := models.Open(context.Background(), dsn, dataDir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		tb.Fatal(err)
	}
	c, err := models.NewCipher("test-secret")
	if err != nil {
		tb.Fatal(err)
	}
	// Tests sign in thousands of times: passwords at bcrypt's least cost.
	return models.NewStore(db, c, models.WithPasswordCost(bcrypt.MinCost))
}

// PostgresDSN creates a fresh database on the test server and returns its URL;
// it is dropped when the test ends. It skips (or fails, see Each) without a server.
func PostgresDSN(tb testing.TB) string {
	tb.Helper()
	base := os.Getenv(EnvPostgresURL)
	if base == "" {
		if os.Getenv("GATEWAY_REQUIRE_POSTGRES") != "" {
			tb.Fatalf("postgres: %s is unset but GATEWAY_REQUIRE_POSTGRES is set", EnvPostgresURL)
		}
		tb.Skipf("postgres: set %s to run this test on PostgreSQL", EnvPostgresURL)
	}
	dsn, drop, err := models.CreateScratchDatabase(context.Background(), base, "gwtest_")
	if err != nil {
		tb.Fatalf("postgres: %v", err)
	}
	tb.Cleanup(func() {
		if err := drop(); err != nil {
			tb.Errorf("postgres: %v", err)
		}
	})
	return dsn
}
