package handlers

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"gateway/models"
)

// Audit pages' sizes: the API's default and largest page.
const (
	auditDefaultLimit = 50
	auditMaxLimit     = 500
)

// auditPageJSON is the answer of GET /api/audit: one page, newest first,
// and the before of the next (older) page, null on the last.
type auditPageJSON struct {
	Data       []auditEntryJSON `json:"data"`
	NextBefore *int64           `json:"next_before"`
}

// auditEntryJSON is an audit entry as the API answers it: before and after
// as the JSON objects they are, null for a thing that did not exist.
type auditEntryJSON struct {
	ID        int64           `json:"id"`
	CreatedAt time.Time       `json:"created_at"`
	Actor     string          `json:"actor"`
	Via       string          `json:"via"`
	Action    string          `json:"action"`
	Kind      string          `json:"kind"`
	TargetID  string          `json:"target_id"`
	Name      string          `json:"name"`
	Before    json.RawMessage `json:"before"`
	After     json.RawMessage `json:"after"`
}

// listAudit handles GET /api/audit?kind=&actor=&id=&before=&limit=: the
// audit log, newest first; next_before pages back.
func (a *App) listAudit(w http.ResponseWriter, r *http.Request) {
	f, input := auditFilterOf(r.URL.Query())
	if input != nil {
		a.apiError(w, r, input)
		return
	}
	limit := f.Limit
	f.Limit++ // one more tells whether there is an older page
	es, err := a.store.ListAudit(r.Context(), f)
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	out := auditPageJSON{Data: []auditEntryJSON{}}
	if len(es) > limit {
		es = es[:limit]
		out.NextBefore = &es[len(es)-1].ID
	}
	for i := range es {
		out.Data = append(out.Data, auditEntryOf(&es[i]))
	}
	a.writeJSON(w, r, http.StatusOK, out)
}

// showAuditEntry handles GET /api/audit/{id}.
func (a *App) showAuditEntry(w http.ResponseWriter, r *http.Request) {
	showAs(a, w, r, "audit entry", a.store.GetAuditEntry, auditEntryOf)
}

// auditFilterOf reads the audit log's filters from a query (kind, actor,
// id, before and limit); every bad value is named in one inputError.
func auditFilterOf(q url.Values) (models.AuditFilter, *inputError) {
	f := models.AuditFilter{Kind: q.Get("kind"), Actor: q.Get("actor"), TargetID: strings.TrimSpace(q.Get("id")),
		Limit: auditDefaultLimit}
	p := formParser{}
	if f.Kind != "" && !slices.Contains(models.AuditKinds, f.Kind) {
		p.fail("kind", "must be one of: "+strings.Join(models.AuditKinds, ", "))
	}
	if len(f.Actor) > 200 {
		p.fail("actor", "must be at most 200 characters long")
	}
	if len(f.TargetID) > 500 {
		p.fail("id", "must be at most 500 characters long")
	}
	if v := q.Get("before"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			p.fail("before", "must be a positive integer")
		}
		f.Before = n
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > auditMaxLimit {
			p.fail("limit", "must be an integer from 1 to "+strconv.Itoa(auditMaxLimit))
		}
		f.Limit = n
	}
	return f, p.err
}

// auditEntryOf is an audit entry as the API answers it.
func auditEntryOf(e *models.AuditEntry) auditEntryJSON {
	return auditEntryJSON{ID: e.ID, CreatedAt: e.CreatedAt, Actor: e.Actor, Via: e.Via, Action: e.Action, Kind: e.Kind,
		TargetID: e.TargetID, Name: e.Name, Before: auditObject(e.Before), After: auditObject(e.After)}
}

// auditObject is a stored before or after as raw JSON: null when there is
// none. The store writes them with json.Marshal, so they are valid JSON.
func auditObject(s string) json.RawMessage {
	if s == "" {
		return json.RawMessage("null")
	}
	return json.RawMessage(s)
}
