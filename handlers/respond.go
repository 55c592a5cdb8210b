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
