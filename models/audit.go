package models

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/schema"
)

// Kinds of audited things (AuditEntry.Kind).
const (
	AuditProvider   = "provider"
	AuditModelEntry = "model_entry"
	AuditPool       = "pool"
	AuditFallbacks  = "fallbacks"
	AuditKey        = "key"
	AuditTeam       = "team"
	AuditUser       = "user"
	AuditSettings   = "settings"
	AuditAdmin      = "admin"
	AuditSticky     = "sticky"
	AuditCooldown   = "cooldown"
)

// AuditKinds are every kind, in the order the Audit page offers them.
var AuditKinds = []string{AuditModelEntry, AuditPool, AuditFallbacks, AuditProvider, AuditKey, AuditTeam,
	AuditUser, AuditSettings, AuditAdmin, AuditSticky, AuditCooldown}

// AuditEntry is one change: who made it, when, to what, and the thing as it
// was before and after (JSON objects of its fields, secrets left out; ""
// for a thing that did not exist before or no longer does).
type AuditEntry struct {
	ID        int64     `gorm:"primaryKey"`
	CreatedAt time.Time `gorm:"not null;index"`
	Actor     string    `gorm:"size:200;not null;index"`
	// Via is how the change came: "app" (the web pages), "api", "sso" (an
	// account made or changed by single sign-on), or what an API client
	// says it is ("cli"; the LiteLLM importer says "import litellm").
	Via      string `gorm:"size:40;not null;default:''"`
	Action   string `gorm:"size:20;not null"`
	Kind     string `gorm:"size:40;not null;index:idx_audit_target"`
	TargetID string `gorm:"size:500;not null;default:'';index:idx_audit_target"`
	Name     string `gorm:"size:500;not null;default:''"`
	Before   string `gorm:"type:text;not null;default:''"`
	After    string `gorm:"type:text;not null;default:''"`
}

// Audit actions beside create, update and delete.
const (
	ActionCreate = "create"
	ActionUpdate = "update"
	ActionDelete = "delete"
)

// Actor is who makes the changes of a context: an admin's username or
// "master key", and how (see AuditEntry.Via).
type Actor struct {
	Name string
	Via  string
}

// ActorMasterKey names changes made with the master key.
const ActorMasterKey = "master key"

// actorSystem names changes made with no actor in the context (the gateway
// itself: the first admin at bootstrap).
const actorSystem = "system"

type actorKey struct{}

// WithActor returns ctx whose store writes are recorded as a's.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorFrom returns the actor WithActor put into ctx, "system" if none.
func ActorFrom(ctx context.Context) Actor {
	if a, ok := ctx.Value(actorKey{}).(Actor); ok && a.Name != "" {
		return a
	}
	return Actor{Name: actorSystem}
}

// audit records one change in tx, the write's own transaction: a change
// that rolls back leaves no record. before or after is nil when the thing
// did not exist; a write that changed nothing is not recorded.
func (s *Store) audit(ctx context.Context, tx *gorm.DB, action, kind, id, name string, before, after any) error {
	b, err := auditJSON(before)
	if err != nil {
		return err
	}
	a, err := auditJSON(after)
	if err != nil {
		return err
	}
	if b == a {
		return nil
	}
	actor := ActorFrom(ctx)
	e := AuditEntry{CreatedAt: s.now(), Actor: actor.Name, Via: actor.Via, Action: action, Kind: kind,
		TargetID: id, Name: name, Before: b, After: a}
	return wrap(tx.Create(&e).Error, "record %s of %s %s", action, kind, id)
}

// RecordAudit records a change to runtime state that has no row of its own
// (a sticky pin, a cooldown ended), after it was made.
func (s *Store) RecordAudit(ctx context.Context, action, kind, id, name string, before, after any) error {
	return s.audit(ctx, s.g(ctx), action, kind, id, name, before, after)
}

func auditJSON(v any) (string, error) {
	rv := reflect.ValueOf(v)
	if v == nil || rv.Kind() == reflect.Pointer && rv.IsNil() {
		return "", nil
	}
	if reflect.Indirect(rv).Kind() == reflect.Struct {
		v = snapshot(v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("models: audit: %w", err)
	}
	return string(b), nil
}

var (
	timeType  = reflect.TypeOf(time.Time{})
	bytesType = reflect.TypeOf([]byte(nil))
	naming    = schema.NamingStrategy{}
)

// snapshot is a row's fields by column name, for the audit log: without
// secrets (sealed bytes, hashes: fields tagged audit:"-"), associations and
// the timestamps every write changes.
func snapshot(v any) map[string]any {
	m := map[string]any{}
	addFields(m, reflect.Indirect(reflect.ValueOf(v)))
	return m
}

func addFields(m map[string]any, rv reflect.Value) {
	t := rv.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || f.Tag.Get("audit") == "-" || f.Type == bytesType ||
			f.Name == "CreatedAt" || f.Name == "UpdatedAt" {
			continue
		}
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			addFields(m, rv.Field(i))
			continue
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct && ft != timeType {
			continue // an association, audited as its own row
		}
		m[columnName(f)] = rv.Field(i).Interface()
	}
}

// columnName is a field's column: its gorm tag's column, else GORM's name.
func columnName(f reflect.StructField) string {
	if s := schema.ParseTagSetting(f.Tag.Get("gorm"), ";"); s["COLUMN"] != "" {
		return s["COLUMN"]
	}
	return naming.ColumnName("", f.Name)
}

// auditName is how the audit log names a row.
func auditName(v any) string {
	switch v := v.(type) {
	case *Provider:
		return v.Name
	case *Deployment:
		return v.PublicName
	case *VirtualKey:
		return v.Name
	case *Team:
		return v.Name
	case *User:
		return v.Name
	case *AdminUser:
		return v.Username
	}
	return ""
}

// auditKind is the audit kind of a row named what in errors ("model entry").
func auditKind(what string) string { return strings.ReplaceAll(what, " ", "_") }

// AuditFilter selects audit entries: each non-empty field must match.
type AuditFilter struct {
	Kind     string
	Actor    string
	TargetID string
	// Before, when non-zero, returns entries older than that id (the next
	// page after one whose last id it is).
	Before int64
	Limit  int
}

// ListAudit returns the newest entries matching f, newest first.
func (s *Store) ListAudit(ctx context.Context, f AuditFilter) ([]AuditEntry, error) {
	q := s.g(ctx).Order("id DESC").Limit(f.Limit)
	if f.Kind != "" {
		q = q.Where("kind = ?", f.Kind)
	}
	if f.Actor != "" {
		q = q.Where("actor = ?", f.Actor)
	}
	if f.TargetID != "" {
		q = q.Where("target_id = ?", f.TargetID)
	}
	if f.Before > 0 {
		q = q.Where("id < ?", f.Before)
	}
	var es []AuditEntry
	return es, wrap(q.Find(&es).Error, "list audit entries")
}

// GetAuditEntry returns one audit entry.
func (s *Store) GetAuditEntry(ctx context.Context, id int64) (*AuditEntry, error) {
	return getByID[AuditEntry](ctx, s, id, "audit entry")
}

// AuditActors returns everyone who has changed anything, by name.
func (s *Store) AuditActors(ctx context.Context) ([]string, error) {
	var names []string
	err := s.g(ctx).Model(&AuditEntry{}).Distinct("actor").Order("actor").Pluck("actor", &names).Error
	return names, wrap(err, "list audit actors")
}

// PruneAudit deletes audit entries created before t and says how many.
func (s *Store) PruneAudit(ctx context.Context, before time.Time) (int64, error) {
	res := s.g(ctx).Where("created_at < ?", before).Delete(&AuditEntry{})
	return res.RowsAffected, wrap(res.Error, "prune audit entries")
}
