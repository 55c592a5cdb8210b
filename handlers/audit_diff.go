package handlers

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"

	"gateway/models"
	"gateway/views"
)

// auditFields is every field of an entry's before and after, by name,
// each marked changed when its JSON differs (or is on one side only).
func auditFields(e *models.AuditEntry) []views.AuditChange {
	return auditFieldsWhere(e, func(_, _ json.RawMessage) bool { return true })
}

// auditChanges is what an entry changed: for an update the fields whose
// value changed, for a create (nothing before) the new fields, for a
// delete (nothing after) the old ones, the unset (null) ones left out.
func auditChanges(e *models.AuditEntry) []views.AuditChange {
	if e.Before == "" || e.After == "" {
		return auditFieldsWhere(e, func(b, a json.RawMessage) bool { return !isJSONNull(b) && !isJSONNull(a) })
	}
	return auditFieldsWhere(e, func(b, a json.RawMessage) bool { return b == nil || a == nil || !bytes.Equal(b, a) })
}

// auditFieldsWhere is the fields of an entry's before and after for which
// keep is true, by name; a value is nil on a side the field is not on.
func auditFieldsWhere(e *models.AuditEntry, keep func(before, after json.RawMessage) bool) []views.AuditChange {
	before, after := auditValues(e.Before), auditValues(e.After)
	names := slices.Sorted(maps.Keys(before))
	for name := range after {
		if _, ok := before[name]; !ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	out := make([]views.AuditChange, 0, len(names))
	for _, name := range names {
		b, hasBefore := before[name]
		a, hasAfter := after[name]
		if !keep(b, a) {
			continue
		}
		out = append(out, views.AuditChange{Field: name, Before: auditText(b), After: auditText(a),
			HasBefore: hasBefore, HasAfter: hasAfter, Changed: !hasBefore || !hasAfter || !bytes.Equal(b, a)})
	}
	return out
}

func isJSONNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// auditValues is a stored before or after as its fields' raw JSON; none
// for "" (and for what is not a JSON object, which the store never writes).
func auditValues(s string) map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	if s == "" || json.Unmarshal([]byte(s), &m) != nil {
		return map[string]json.RawMessage{}
	}
	return m
}

// auditText is a field's value as the page shows it: a string as itself
// (quoted when empty, so that it shows), anything else (null, numbers,
// lists) as compact JSON.
func auditText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	if isJSONNull(raw) {
		return "null"
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if s == "" {
			return `""`
		}
		return s
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return string(raw)
	}
	return buf.String()
}
