// Package models is the gateway's persistence layer: GORM structs, the embedded
// SQLite default or PostgreSQL, versioned migrations, stores and the encryption
// of provider secrets. It knows nothing of HTTP.
package models

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/libtnb/sqlite"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Dialect names the database behind a DB.
const (
	DialectSQLite   = "sqlite"
	DialectPostgres = "postgres"
)

// DB is an open database with its dialect.
type DB struct {
	*gorm.DB
	Dialect string
	// DSN is the connection string it was opened with (PostgreSQL LISTEN needs it).
	DSN string

	stmts preparedStmts // the request-log writes' statements prepared on this pool
}

// Open opens PostgreSQL when dsn starts with postgres:// or postgresql://, and
// otherwise the embedded SQLite file gateway.db under dataDir. It does not migrate.
func Open(ctx context.Context, dsn, dataDir string) (*DB, error) {
	cfg := &gorm.Config{Logger: logger.Discard, TranslateError: true}
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		g, err := gorm.Open(postgres.Open(dsn), cfg)
		if err != nil {
			return nil, fmt.Errorf("models: open postgres: %w", err)
		}
		db := &DB{DB: g, Dialect: DialectPostgres, DSN: dsn}
		return db, db.ping(ctx)
	}
	if dsn != "" {
		return nil, fmt.Errorf("models: unsupported database url %q: want postgres://… or empty for the embedded SQLite", redactDSN(dsn))
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("models: create data dir: %w", err)
	}
	path := filepath.Join(dataDir, "gateway.db")
	g, err := gorm.Open(sqlite.Open(sqliteDSN(path)), cfg)
	if err != nil {
		return nil, fmt.Errorf("models: open sqlite %s: %w", path, err)
	}
	db := &DB{DB: g, Dialect: DialectSQLite, DSN: path}
	return db, db.ping(ctx)
}

// sqliteDSN puts busy_timeout first so that even the other pragmas wait for a
// lock instead of failing; immediate transactions avoid the deadlock of two
// readers upgrading to writers at once. temp_store(MEMORY) keeps the statement
// journal of a multi-row INSERT in memory instead of a temporary file.
// Times are written as "2006-01-02 15:04:05.999999999-07:00" (_time_format=sqlite),
// the text the glebarez driver wrote before: SQLite compares created_at as
// text, so every row must keep that form. As there, only columns declared
// DATE, DATETIME or TIMESTAMP read back as times (_texttotime=0, _inttotime=0;
// the GORM dialector would turn both on).
func sqliteDSN(path string) string {
	return "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)" +
		"&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_pragma=temp_store(MEMORY)&_txlock=immediate" +
		"&_time_format=sqlite&_texttotime=0&_inttotime=0"
}

func (db *DB) ping(ctx context.Context) error {
	sqlDB, err := db.DB.DB()
	if err != nil {
		return fmt.Errorf("models: %w", err)
	}
	if db.Dialect == DialectSQLite {
		// One writer at a time is all SQLite allows; a small pool keeps readers
		// concurrent under WAL while writers queue on busy_timeout.
		sqlDB.SetMaxOpenConns(4)
	} else {
		sqlDB.SetMaxOpenConns(20)
		sqlDB.SetConnMaxIdleTime(5 * time.Minute)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := sqlDB.PingContext(ctx); err != nil {
		return fmt.Errorf("models: ping %s: %w", db.Dialect, err)
	}
	return nil
}

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error {
	sqlDB, err := db.DB.DB()
	if err != nil {
		return fmt.Errorf("models: %w", err)
	}
	if err := sqlDB.PingContext(ctx); err != nil {
		return fmt.Errorf("models: ping: %w", err)
	}
	return nil
}

// Close closes the connection pool.
func (db *DB) Close() error {
	sqlDB, err := db.DB.DB()
	if err != nil {
		return fmt.Errorf("models: %w", err)
	}
	db.stmts.close()
	return sqlDB.Close()
}

// Domain errors, mapped to HTTP status in one place by the handlers.
var (
	ErrNotFound = errors.New("not found")
	ErrConflict = errors.New("already exists")
	ErrInUse    = errors.New("in use")
	ErrInvalid  = errors.New("invalid")
)

// InvalidError is input the store refuses: Field is the field's JSON (and
// form) name, "" for the input as a whole. It is ErrInvalid to errors.Is.
type InvalidError struct {
	Field, Message string
}

func (e *InvalidError) Error() string {
	if e.Field == "" {
		return "models: " + e.Message + ": invalid"
	}
	return "models: " + e.Field + ": " + e.Message + ": invalid"
}

// Is makes an InvalidError match ErrInvalid.
func (e *InvalidError) Is(target error) bool { return target == ErrInvalid }

// invalid is the InvalidError of field.
func invalid(field, format string, args ...any) error {
	return &InvalidError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// wrap turns GORM's translated errors into domain errors with context.
func wrap(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	msg := fmt.Sprintf(format, args...)
	switch {
	case errors.Is(err, gorm.ErrRecordNotFound):
		return fmt.Errorf("models: %s: %w", msg, ErrNotFound)
	case errors.Is(err, gorm.ErrDuplicatedKey):
		return fmt.Errorf("models: %s: %w", msg, ErrConflict)
	case errors.Is(err, gorm.ErrForeignKeyViolated):
		return fmt.Errorf("models: %s: %w", msg, ErrInUse)
	}
	return fmt.Errorf("models: %s: %w", msg, err)
}

func redactDSN(dsn string) string {
	if i := strings.Index(dsn, "@"); i > 0 {
		if j := strings.Index(dsn, "://"); j > 0 && j < i {
			return dsn[:j+3] + "…" + dsn[i:]
		}
	}
	return dsn
}
