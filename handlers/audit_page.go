package handlers

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"gateway/models"
	"gateway/views"
)

// showAudit shows the Audit page: changes, newest first, filtered by the
// query (actor, kind, id: the changed thing's) and paged by before, the id
// the page starts below. Bad filters are shown on the form, 422, without
// rows.
func (a *App) showAudit(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	values := views.AuditFilterValues{Actor: q.Get("actor"), Kind: q.Get("kind"), ID: q.Get("id")}
	vm := views.AuditPage{Filter: views.AuditFilterForm{Values: values, Kinds: models.AuditKinds}}
	actors, err := a.store.AuditActors(r.Context())
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	// An actor whose changes were all pruned stays selectable while filtered on.
	if values.Actor != "" && !slices.Contains(actors, values.Actor) {
		actors = append(actors, values.Actor)
	}
	vm.Filter.Actors = actors
	q.Del("limit") // the page's size is its own
	filter, input := auditFilterOf(q)
	if input != nil {
		vm.Filter.Errors = pageAuditErrors(input)
		a.renderPage(w, r, http.StatusUnprocessableEntity, "Audit", "audit", views.AuditContent(vm))
		return
	}
	values.ID = filter.TargetID
	vm.Filter.Values = values
	if values.ID != "" {
		vm.History = values.Kind + " " + values.ID
	}
	filter.Limit = pageFetch
	es, err := a.store.ListAudit(r.Context(), filter)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	es, vm.OlderURL, vm.NewestURL = newestFirst(es, filter.Before, func(e *models.AuditEntry) int64 { return e.ID },
		func(before int64) string { return auditURL(values, before) })
	for i := range es {
		vm.Rows = append(vm.Rows, auditRow(&es[i]))
	}
	a.renderPage(w, r, http.StatusOK, "Audit", "audit", views.AuditContent(vm))
}

// showAuditDetail shows one change with every field of the thing before
// and after it.
func (a *App) showAuditDetail(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "audit entry")
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	e, err := a.store.GetAuditEntry(r.Context(), id)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	vm := views.AuditDetailPage{Row: auditRow(e), Fields: auditFields(e)}
	a.renderPage(w, r, http.StatusOK, "Change "+strconv.FormatInt(e.ID, 10), "audit", views.AuditDetailContent(vm))
}

// pageAuditErrors places the filter's errors on the form: before is no
// field of it, but a page link.
func pageAuditErrors(in *inputError) map[string]string {
	errs := in.byField()
	if _, ok := errs["before"]; ok {
		delete(errs, "before")
		errs[""] = "the page link is broken: start again from the newest changes"
	}
	return errs
}

// auditURL is the Audit page with these filters, starting below before (0:
// the newest).
func auditURL(v views.AuditFilterValues, before int64) string {
	q := url.Values{}
	for k, s := range map[string]string{"actor": v.Actor, "kind": v.Kind, "id": v.ID} {
		if s != "" {
			q.Set(k, s)
		}
	}
	if before != 0 {
		q.Set("before", strconv.FormatInt(before, 10))
	}
	if len(q) == 0 {
		return "/audit"
	}
	return "/audit?" + q.Encode()
}

func auditRow(e *models.AuditEntry) views.AuditRow {
	at := e.CreatedAt.UTC()
	history := views.AuditFilterValues{Kind: e.Kind, ID: e.TargetID}
	return views.AuditRow{
		ID:         e.ID,
		Date:       at.Format("2006-01-02"),
		Time:       at.Format("15:04:05"),
		Actor:      e.Actor,
		Via:        e.Via,
		Action:     e.Action,
		Kind:       e.Kind,
		TargetID:   e.TargetID,
		Name:       e.Name,
		HistoryURL: auditURL(history, 0),
		URL:        "/audit/" + strconv.FormatInt(e.ID, 10),
		Changes:    auditChanges(e),
	}
}
