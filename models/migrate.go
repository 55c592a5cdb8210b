package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// migration is one versioned schema step, applied once in its own transaction.
type migration struct {
	version int
	name    string
	up      func(tx *gorm.DB) error
}

// migrations are applied in order, each once, in its own transaction: the
// steps GORM cannot infer (renames, data moves, dropped columns). New tables,
// columns and indexes come from the structs by addColumns on every start.
// Version 1 built the schema from the structs of its day, so later steps must
// check before they change (HasColumn, HasIndex).
var migrations = []migration{
	{1, "initial schema", addColumns},
}

// tables are every struct with a table.
func tables() []any {
	return []any{&Provider{}, &Deployment{}, &PoolSetting{}, &Fallback{}, &Team{},
		&User{}, &VirtualKey{}, &RequestLog{}, &HealthCheck{}, &AdminUser{}, &Setting{},
		&StoredResponse{}, &StoredResponseItem{}, &AuditEntry{}}
}

// addColumns creates what the structs have and the database lacks. GORM's
// AutoMigrate adds; it never drops a column or table.
func addColumns(tx *gorm.DB) error { return tx.AutoMigrate(tables()...) }

// schemaMigration records an applied migration.
type schemaMigration struct {
	Version   int `gorm:"primaryKey;autoIncrement:false"`
	Name      string
	AppliedAt time.Time
}

func (schemaMigration) TableName() string { return "schema_migrations" }

// migrationLockID is an arbitrary constant for pg_advisory_lock, so that two
// gateways starting at once on one PostgreSQL do not migrate twice.
const migrationLockID = 727274001

// Migrate applies every migration not yet applied. It is idempotent.
func (db *DB) Migrate(ctx context.Context) error {
	g := db.WithContext(ctx)
	if db.Dialect == DialectPostgres {
		conn, err := db.DB.DB()
		if err != nil {
			return fmt.Errorf("models: migrate: %w", err)
		}
		c, err := conn.Conn(ctx)
		if err != nil {
			return fmt.Errorf("models: migrate: %w", err)
		}
		defer c.Close()
		if _, err := c.ExecContext(ctx, "SELECT pg_advisory_lock($1)", migrationLockID); err != nil {
			return fmt.Errorf("models: migrate: lock: %w", err)
		}
		defer c.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrationLockID) //nolint:errcheck // the lock also ends with the session
	}
	if err := g.AutoMigrate(&schemaMigration{}); err != nil {
		return fmt.Errorf("models: migrate: schema_migrations: %w", err)
	}
	for _, m := range migrations {
		if err := db.apply(ctx, m); err != nil {
			return err
		}
	}
	if err := addColumns(g); err != nil {
		return fmt.Errorf("models: migrate: add columns: %w", err)
	}
	return nil
}

func (db *DB) apply(ctx context.Context, m migration) error {
	return db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&schemaMigration{}).Where("version = ?", m.version).Count(&n).Error; err != nil {
			return fmt.Errorf("models: migration %d: %w", m.version, err)
		}
		if n > 0 {
			return nil
		}
		if err := m.up(tx); err != nil {
			return fmt.Errorf("models: migration %d (%s): %w", m.version, m.name, err)
		}
		rec := schemaMigration{Version: m.version, Name: m.name, AppliedAt: time.Now().UTC()}
		if err := tx.Create(&rec).Error; err != nil {
			return fmt.Errorf("models: record migration %d: %w", m.version, err)
		}
		return nil
	})
}
