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
// steps that change what exists (a column's type or nullability, renames,
// data moves, dropped columns). New tables, columns and indexes come from
// the structs by addMissing on every start. Version 1 built the schema from
// the structs of its day, so later steps must check before they change
// (HasColumn, HasIndex, ColumnTypes).
var migrations = []migration{
	{1, "initial schema", addMissing},
	{2, "entry prices may be unset", unsetEntryPrices},
}

// tables are every struct with a table.
func tables() []any {
	return []any{&Provider{}, &Deployment{}, &PoolSetting{}, &Fallback{}, &Team{},
		&User{}, &VirtualKey{}, &RequestLog{}, &HealthCheck{}, &AdminUser{}, &Setting{},
		&StoredResponse{}, &StoredResponseItem{}, &AuditEntry{}}
}

// addMissing creates the tables, columns and indexes the structs have and
// the database lacks, and changes nothing that exists. GORM's AutoMigrate
// would also "migrate" every existing column whose reported type differs
// from the struct's in any detail, and on SQLite that means copying the
// whole table into a new one: at every start, for columns nothing changed.
// Adding a column copies no row on either database (SQLite rewrites only
// the schema; PostgreSQL stores a constant default in the catalog).
func addMissing(tx *gorm.DB) error {
	for _, table := range tables() {
		if err := addMissingTo(tx, table); err != nil {
			return err
		}
	}
	return nil
}

func addMissingTo(tx *gorm.DB, table any) error {
	m := tx.Migrator()
	if !m.HasTable(table) {
		return m.CreateTable(table)
	}
	stmt := &gorm.Statement{DB: tx}
	if err := stmt.Parse(table); err != nil {
		return err
	}
	cols, err := m.ColumnTypes(table)
	if err != nil {
		return err
	}
	have := make(map[string]bool, len(cols))
	for _, c := range cols {
		have[c.Name()] = true
	}
	for _, name := range stmt.Schema.DBNames {
		if !have[name] {
			if err := m.AddColumn(table, name); err != nil {
				return fmt.Errorf("add %s.%s: %w", stmt.Schema.Table, name, err)
			}
		}
	}
	for _, idx := range stmt.Schema.ParseIndexes() {
		if !m.HasIndex(table, idx.Name) {
			if err := m.CreateIndex(table, idx.Name); err != nil {
				return fmt.Errorf("add index %s: %w", idx.Name, err)
			}
		}
	}
	return nil
}

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

// Migrate applies every migration not yet applied, then adds what the
// structs have and the database lacks. It is idempotent, and on a schema
// that is already current it writes nothing.
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
	if err := addMissingTo(g, &schemaMigration{}); err != nil {
		return fmt.Errorf("models: migrate: schema_migrations: %w", err)
	}
	applied, err := db.appliedMigrations(ctx)
	if err != nil {
		return err
	}
	for _, m := range migrations {
		if !applied[m.version] {
			if err := db.apply(ctx, m); err != nil {
				return err
			}
		}
	}
	if err := addMissing(g); err != nil {
		return fmt.Errorf("models: migrate: add columns: %w", err)
	}
	return nil
}

func (db *DB) appliedMigrations(ctx context.Context) (map[int]bool, error) {
	var versions []int
	if err := db.WithContext(ctx).Model(&schemaMigration{}).Pluck("version", &versions).Error; err != nil {
		return nil, fmt.Errorf("models: migrate: applied versions: %w", err)
	}
	applied := make(map[int]bool, len(versions))
	for _, v := range versions {
		applied[v] = true
	}
	return applied, nil
}

// apply runs m in a transaction that also records it; a migration applied
// meanwhile by another process (SQLite has no advisory lock) is not run again.
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
