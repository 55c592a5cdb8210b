package handlers

import (
	"bytes"
	"net/http"

	"github.com/a-h/templ"

	"gateway/views"
)

// render writes c with status. It renders into a buffer first, so that a
// failing component is a clean 500 rather than half a page.
func (a *App) render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	var buf bytes.Buffer
	if err := c.Render(r.Context(), &buf); err != nil {
		a.logger(r.Context()).Error("render page", "path", r.URL.Path, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if _, err := buf.WriteTo(w); err != nil {
		a.logger(r.Context()).Debug("write page", "err", err)
	}
}

// renderPage writes content alone for htmx requests, and inside the layout
// otherwise.
func (a *App) renderPage(w http.ResponseWriter, r *http.Request, status int, title, active string, content templ.Component) {
	w.Header().Add("Vary", "HX-Request")
	if isHTMX(r) {
		a.render(w, r, status, content)
		return
	}
	a.render(w, r, status, views.Layout(a.page(r, title, active), content))
}

// rerenderForm answers a form that was refused with 422: the form alone for
// htmx, which swaps it in place (see views.HTMXConfig), and otherwise the
// whole page that page builds, with the form and its errors inside.
func (a *App) rerenderForm(w http.ResponseWriter, r *http.Request, title, active string, form templ.Component, page func() (templ.Component, error)) {
	if isHTMX(r) {
		w.Header().Add("Vary", "HX-Request")
		a.render(w, r, http.StatusUnprocessableEntity, form)
		return
	}
	content, err := page()
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	a.renderPage(w, r, http.StatusUnprocessableEntity, title, active, content)
}

// page is what the layout needs from the request's session.
func (a *App) page(r *http.Request, title, active string) views.Page {
	s := sessionFrom(r.Context())
	role := ""
	if u := adminFrom(r.Context()); u != nil {
		role = u.Role
	}
	return views.Page{
		Title:        title,
		Active:       active,
		Username:     s.username(),
		Role:         role,
		CSRFToken:    s.csrfToken(),
		AssetVersion: a.assetVersion,
	}
}

// pageError answers err on a page request: its status, with a message page.
func (a *App) pageError(w http.ResponseWriter, r *http.Request, err error) {
	status, msg := errorStatus(err)
	a.logError(r, status, err)
	a.renderPage(w, r, status, http.StatusText(status), "",
		views.MessageContent(views.Message{Heading: http.StatusText(status), Text: msg, TestID: "error-message"}))
}

// seeOther redirects after a successful form post; htmx gets HX-Redirect,
// which makes it load the page instead of swapping it into the form.
func seeOther(w http.ResponseWriter, r *http.Request, url string) {
	if isHTMX(r) {
		w.Header().Set("HX-Redirect", url)
		w.WriteHeader(http.StatusOK)
		return
	}
	http.Redirect(w, r, url, http.StatusSeeOther)
}
