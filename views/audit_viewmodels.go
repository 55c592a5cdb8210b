package views

import "net/url"

// auditHistoryURL is the Audit page filtered to one thing: its changes,
// newest first.
func auditHistoryURL(kind, id string) string {
	return "/audit?" + url.Values{"kind": {kind}, "id": {id}}.Encode()
}

// AuditPage is one page of the audit log, newest first.
type AuditPage struct {
	Filter AuditFilterForm
	// History names the one thing the page is the history of ("model_entry
	// 12"), "" when it shows every thing.
	History string
	Rows    []AuditRow
	// OlderURL is the next page, "" on the last; NewestURL is the first page,
	// "" when this is it.
	OlderURL  string
	NewestURL string
}

// AuditFilterForm filters the audit log.
type AuditFilterForm struct {
	Values AuditFilterValues
	Errors map[string]string
	Actors []string
	Kinds  []string
}

// AuditFilterValues are the filters as given: ID is the changed thing's id.
type AuditFilterValues struct {
	Actor string
	Kind  string
	ID    string
}

// AuditRow is one change.
type AuditRow struct {
	ID     int64
	Date   string
	Time   string
	Actor  string
	Via    string
	Action string
	Kind   string
	// TargetID is the changed thing's id, Name its name ("" for some).
	TargetID string
	Name     string
	// HistoryURL is the Audit page filtered to the changed thing.
	HistoryURL string
	URL        string
	// Changes are what changed: for an update the fields whose value
	// changed, for a create the new thing's fields, for a delete the old
	// one's.
	Changes []AuditChange
}

// AuditChange is one field of a change, its values as text (lists and
// objects as compact JSON). HasBefore and HasAfter say whether the field
// was there before and after.
type AuditChange struct {
	Field     string
	Before    string
	After     string
	HasBefore bool
	HasAfter  bool
	Changed   bool
}

// AuditDetailPage is one change with every field of the thing before and
// after it.
type AuditDetailPage struct {
	Row    AuditRow
	Fields []AuditChange
}
