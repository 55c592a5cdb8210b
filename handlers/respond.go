package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
)

// writeJSON answers v as JSON. API answers are never cached: one of them
// carries a new virtual key.
func (a *App) writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		a.logger(r.Context()).Error("encode JSON answer", "err", err)
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"error":{"message":"internal error"}}` + "\n")
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if _, err := buf.WriteTo(w); err != nil {
		a.logger(r.Context()).Debug("write JSON answer", "err", err)
	}
}

type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Message string `json:"message"`
}

// apiError answers err as {"error":{"message":…}} with its status.
func (a *App) apiError(w http.ResponseWriter, r *http.Request, err error) {
	status, msg := errorStatus(err)
	a.logError(r, status, err)
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="gateway admin"`)
	}
	a.writeJSON(w, r, status, errorBody{Error: errorDetail{Message: msg}})
}

// logError logs server faults with their details; a caller's mistake is only
// worth a debug line.
func (a *App) logError(r *http.Request, status int, err error) {
	if status >= 500 {
		a.logger(r.Context()).Error("admin request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		return
	}
	a.logger(r.Context()).Debug("admin request refused", "method", r.Method, "path", r.URL.Path, "status", status, "err", err)
}

// written finishes a successful API write: it rebuilds the routing table and
// answers v (nothing when v is nil) with status.
//
// The write is committed whatever the rebuild does, so a failed rebuild keeps
// the success status and adds a "warning" to the answer: a 500 would invite a
// retry that writes twice, and would lose a new key's secret, shown only here.
func (a *App) written(w http.ResponseWriter, r *http.Request, status int, v any) {
	if err := a.reload(r.Context()); err != nil {
		a.writtenWithWarning(w, r, status, v)
		return
	}
	a.answer(w, r, status, v)
}

// answer answers v (nothing when v is nil) with status.
func (a *App) answer(w http.ResponseWriter, r *http.Request, status int, v any) {
	if v == nil {
		w.WriteHeader(status)
		return
	}
	a.writeJSON(w, r, status, v)
}

// writtenWithWarning answers v, an object, with a "warning" that the change
// is not live yet. A 204 cannot say so: it becomes a 200 with the warning alone.
func (a *App) writtenWithWarning(w http.ResponseWriter, r *http.Request, status int, v any) {
	body, err := jsonObject(v)
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	if body == nil {
		body, status = map[string]json.RawMessage{}, http.StatusOK
	}
	if body["warning"], err = json.Marshal(errReload.Error()); err != nil {
		a.apiError(w, r, err)
		return
	}
	a.writeJSON(w, r, status, body)
}

func (a *App) apiNotFound(w http.ResponseWriter, r *http.Request) {
	a.writeJSON(w, r, http.StatusNotFound, errorBody{Error: errorDetail{Message: "no API route " + r.Method + " " + r.URL.Path}})
}

// listAs answers a GET of a whole list: every row the store lists, each
// shown as its JSON view.
func listAs[T, J any](a *App, w http.ResponseWriter, r *http.Request, list func(context.Context) ([]T, error), show func(*T) J) {
	rows, err := list(r.Context())
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	out := make([]J, len(rows))
	for i := range rows {
		out[i] = show(&rows[i])
	}
	a.writeJSON(w, r, http.StatusOK, out)
}

// showAs answers the one row of T whose id is the path's {id}, as show
// makes it; what names the kind in a 404.
func showAs[T, J any](a *App, w http.ResponseWriter, r *http.Request, what string, get func(context.Context, int64) (*T, error), show func(*T) J) {
	id, err := pathID(r, what)
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	row, err := get(r.Context(), id)
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	a.writeJSON(w, r, http.StatusOK, show(row))
}

// rowAnswer answers a stored row with a status.
type rowAnswer[T any] func(w http.ResponseWriter, r *http.Request, status int, row *T)

// writtenAs answers a row the routing table reads, as show makes it, once
// the table is rebuilt (see written).
func writtenAs[T, J any](a *App, show func(*T) J) rowAnswer[T] {
	return func(w http.ResponseWriter, r *http.Request, status int, row *T) {
		a.written(w, r, status, show(row))
	}
}

// answerAs answers a row the routing table does not read (an admin
// account), as show makes it.
func answerAs[T, J any](a *App, show func(*T) J) rowAnswer[T] {
	return func(w http.ResponseWriter, r *http.Request, status int, row *T) {
		a.writeJSON(w, r, status, show(row))
	}
}

// createAs handles a POST that creates one row: create reads the body and
// stores the row, and answer answers it with 201.
func createAs[T any](a *App, w http.ResponseWriter, r *http.Request, create func(context.Context, jsonBody) (*T, error), answer rowAnswer[T]) {
	body, err := readBody(w, r)
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	row, err := create(r.Context(), body)
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	answer(w, r, http.StatusCreated, row)
}

// patchAs handles a PATCH of the row whose id is the path's {id}, what
// naming the kind in a 404: update reads the body and stores the change,
// and answer answers the row with 200.
func patchAs[T any](a *App, w http.ResponseWriter, r *http.Request, what string, update func(context.Context, int64, jsonBody) (*T, error), answer rowAnswer[T]) {
	id, err := pathID(r, what)
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	body, err := readBody(w, r)
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	row, err := update(r.Context(), id, body)
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	answer(w, r, http.StatusOK, row)
}

// deleteAs handles a DELETE of the row whose id is the path's {id}, what
// naming the kind in a 404; done answers the 204 (a.written when the
// routing table reads the row).
func deleteAs(a *App, w http.ResponseWriter, r *http.Request, what string, del func(context.Context, int64) error, done func(http.ResponseWriter, *http.Request, int, any)) {
	id, err := pathID(r, what)
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	if err := del(r.Context(), id); err != nil {
		a.apiError(w, r, err)
		return
	}
	done(w, r, http.StatusNoContent, nil)
}

// rowInput is the API input I of a row of T, through a pointer to it: it
// writes itself into the row. An input that has a check method is checked
// after its tags (rules the tags cannot say); one that has a refused method
// words the store's refusal of it (a taken name).
type rowInput[T, I any] interface {
	*I
	applyTo(*T)
}

// newRow is the create of createAs for rows stored from an input I: the
// body is decoded into a zero I, validated and checked, written into a new
// row, and the row stored by create.
func newRow[I any, P rowInput[T, I], T any](a *App, create func(context.Context, *T) error) func(context.Context, jsonBody) (*T, error) {
	return func(ctx context.Context, body jsonBody) (*T, error) {
		var in I
		if err := a.checkedInput(body, &in); err != nil {
			return nil, err
		}
		var row T
		P(&in).applyTo(&row)
		return &row, refusedInput(&in, create(ctx, &row))
	}
}

// overRow is the update of patchAs for rows edited through an input I: in
// update's transaction, inputOf makes the stored row an input, the body
// applies over it (a field it leaves out keeps its value, see applyBody)
// and is validated and checked, and the input is written back into the row.
func overRow[T, I any, P rowInput[T, I]](a *App, update func(context.Context, int64, func(*T) error) (*T, error), inputOf func(*T) I) func(context.Context, int64, jsonBody) (*T, error) {
	return func(ctx context.Context, id int64, body jsonBody) (*T, error) {
		var in I
		row, err := update(ctx, id, func(row *T) error {
			in = inputOf(row)
			if err := a.checkedInput(body, &in); err != nil {
				return err
			}
			P(&in).applyTo(row)
			return nil
		})
		return row, refusedInput(&in, err)
	}
}

// checkedInput applies body to *in (see applyBody) and then the input's
// check method, when it has one.
func (a *App) checkedInput(body jsonBody, in any) error {
	if err := a.applyBody(body, in); err != nil {
		return err
	}
	if c, ok := in.(interface{ check() error }); ok {
		return c.check()
	}
	return nil
}

// refusedInput is err, a store's refusal of in, as in's refused method
// words it when it has one.
func refusedInput(in any, err error) error {
	if c, ok := in.(interface{ refused(error) error }); ok && err != nil {
		return c.refused(err)
	}
	return err
}
