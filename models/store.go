package models

import (
	"context"
	"reflect"
	"strconv"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Store is the gateway's data access: one value shared by the admin side and
// the proxy's snapshot builder.
type Store struct {
	db     *DB
	cipher *Cipher
	now    func() time.Time
	// passwordCost is bcrypt's cost for new admin passwords; dummyHash a
	// hash of that cost that an unknown username is compared with, so
	// that timing does not tell which usernames exist.
	passwordCost int
	dummyHash    func() []byte
}

// StoreOption changes a Store's defaults.
type StoreOption func(*Store)

// WithPasswordCost hashes new admin passwords at bcrypt cost c instead of
// bcrypt.DefaultCost: tests sign in thousands of times and take
// bcrypt.MinCost. A password keeps the cost it was hashed with.
func WithPasswordCost(c int) StoreOption { return func(s *Store) { s.passwordCost = c } }

// NewStore returns a Store over db that seals provider secrets with c.
func NewStore(db *DB, c *Cipher, opts ...StoreOption) *Store {
	s := &Store{db: db, cipher: c, now: time.Now, passwordCost: bcrypt.DefaultCost}
	for _, o := range opts {
		o(s)
	}
	s.dummyHash = sync.OnceValue(func() []byte {
		h, _ := bcrypt.GenerateFromPassword([]byte("not a password"), s.passwordCost)
		return h
	})
	return s
}

// DB returns the underlying database.
func (s *Store) DB() *DB { return s.db }

func (s *Store) g(ctx context.Context) *gorm.DB { return s.db.WithContext(ctx) }

// getByID loads one row of T by primary key.
func getByID[T any](ctx context.Context, s *Store, id int64, what string) (*T, error) {
	var v T
	if err := s.g(ctx).First(&v, id).Error; err != nil {
		return nil, wrap(err, "get %s %d", what, id)
	}
	return &v, nil
}

// listAll loads every row of T in id order.
func listAll[T any](ctx context.Context, s *Store, what string) ([]T, error) {
	var vs []T
	if err := s.g(ctx).Order("id").Find(&vs).Error; err != nil {
		return nil, wrap(err, "list %s", what)
	}
	return vs, nil
}

// deleteByID deletes one row of T in tx and records it in the audit log,
// ErrNotFound when there was none.
func deleteByID[T any](ctx context.Context, s *Store, tx *gorm.DB, id int64, what string) error {
	var v T
	if err := tx.Clauses(lockForUpdate(s.db)...).First(&v, id).Error; err != nil {
		return wrap(err, "delete %s %d", what, id)
	}
	res := tx.Delete(new(T), id)
	if res.Error != nil {
		return wrap(res.Error, "delete %s %d", what, id)
	}
	if res.RowsAffected == 0 {
		return wrap(gorm.ErrRecordNotFound, "delete %s %d", what, id)
	}
	return s.audit(ctx, tx, ActionDelete, auditKind(what), idString(id), auditName(&v), &v, nil)
}

// createRow inserts v in tx (without the associations named in omit) and
// records it in the audit log.
func createRow[T any](ctx context.Context, s *Store, tx *gorm.DB, v *T, what string, omit ...string) error {
	q := tx
	if len(omit) > 0 {
		q = tx.Omit(omit...)
	}
	if err := q.Create(v).Error; err != nil {
		return wrap(err, "create %s %q", what, auditName(v))
	}
	return s.audit(ctx, tx, ActionCreate, auditKind(what), idString(rowID(v)), auditName(v), nil, v)
}

// updateByID loads a row of T in a transaction, lets apply change it,
// writes every column back (Select("*"), so that a value set to zero is
// kept) and records the change in the audit log.
func updateByID[T any](ctx context.Context, s *Store, id int64, what string, apply func(tx *gorm.DB, v *T) error) (*T, error) {
	var v *T
	err := s.g(ctx).Transaction(func(tx *gorm.DB) (err error) {
		v, err = updateInTx(ctx, s, tx, id, what, apply)
		return err
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// updateInTx is updateByID in the transaction tx.
func updateInTx[T any](ctx context.Context, s *Store, tx *gorm.DB, id int64, what string, apply func(tx *gorm.DB, v *T) error) (*T, error) {
	var v T
	if err := tx.Clauses(lockForUpdate(s.db)...).First(&v, id).Error; err != nil {
		return nil, wrap(err, "update %s %d", what, id)
	}
	before := snapshot(&v)
	if err := apply(tx, &v); err != nil {
		return nil, err
	}
	if err := tx.Select("*").Omit(clause.Associations).Save(&v).Error; err != nil {
		return nil, wrap(err, "update %s %d", what, id)
	}
	if err := s.audit(ctx, tx, ActionUpdate, auditKind(what), idString(id), auditName(&v), before, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

func idString(id int64) string { return strconv.FormatInt(id, 10) }

// rowID is the ID field of a row struct.
func rowID(v any) int64 { return reflect.Indirect(reflect.ValueOf(v)).FieldByName("ID").Int() }

// lockForUpdate locks the row on PostgreSQL; SQLite's immediate transactions
// already hold the write lock.
func lockForUpdate(db *DB) []clause.Expression {
	if db.Dialect == DialectPostgres {
		return []clause.Expression{clause.Locking{Strength: "UPDATE"}}
	}
	return nil
}
