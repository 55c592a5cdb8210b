package models

import (
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"
	"modernc.org/sqlite"
)

// SQLite's primary result codes for content it will not store.
const (
	sqliteTooBig     = 18
	sqliteConstraint = 19
	sqliteMismatch   = 20
)

// Refused reports whether the database refused a statement for what it holds:
// a constraint, a value it cannot store. Sending the same again would fail
// again. Every other failure (the database unreachable, a timeout, a lock
// held too long, a full disk) may pass later, and what was to be written
// must wait for it rather than be lost.
func Refused(err error) bool {
	if err == nil {
		return false
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		// Class 22: data exception (a value out of range, bad text);
		// class 23: integrity constraint violation.
		return len(pg.Code) == 5 && (pg.Code[:2] == "22" || pg.Code[:2] == "23")
	}
	var lite *sqlite.Error
	if errors.As(err, &lite) {
		switch lite.Code() & 0xff {
		case sqliteTooBig, sqliteConstraint, sqliteMismatch:
			return true
		}
		return false
	}
	return errors.Is(err, ErrConflict) || errors.Is(err, ErrInUse) || errors.Is(err, ErrInvalid) ||
		errors.Is(err, gorm.ErrDuplicatedKey) || errors.Is(err, gorm.ErrForeignKeyViolated) ||
		errors.Is(err, gorm.ErrCheckConstraintViolated)
}
