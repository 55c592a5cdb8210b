package handlers

import (
	"net/http"

	"github.com/a-h/templ"
)

// tablePage is one of the pages that list the rows of one kind above the
// form that adds one (Teams, Users, Providers, Keys). Each page says how its
// view model is built and which views show it; how a request goes (show,
// refuse a form, save, answer with the list) is written here once.
//
// A row is edited in one of three ways: on a page of its own (editPage set,
// table nil: Providers), in the row for htmx requests that target the list
// and on its own page otherwise (both set: Teams, Users), or in the row only
// (editPage nil: Keys, whose list is the whole page without htmx).
type tablePage[F, P any] struct {
	app *App
	// title is the page's title; list names its nav entry, the list's
	// element id and the page's path ("teams": /teams).
	title, list string
	// what names a row in errors ("team").
	what string
	// build is the page around the add form, with edit's row (nil: none)
	// shown as its form.
	build func(r *http.Request, add F, edit *F) (P, error)
	// prepare gives a form its token and its choices, and errs when it was
	// refused.
	prepare func(r *http.Request, f F, errs map[string]string) (F, error)
	// content is the page's content; table the list alone (nil: rows have
	// no in-place edit); form the add or edit form alone; editPage the
	// content of a row's edit page (nil: rows have none).
	content  func(P) templ.Component
	table    func(P) templ.Component
	form     func(F) templ.Component
	editPage func(name string, f F) templ.Component
}

// inPlace: the request edits a row in the list and wants the list back.
func (p *tablePage[F, P]) inPlace(r *http.Request) bool {
	return p.table != nil && (p.editPage == nil || inPlace(r, p.list))
}

// show answers the page with add as its add form.
func (p *tablePage[F, P]) show(w http.ResponseWriter, r *http.Request, add F) {
	vm, err := p.build(r, add, nil)
	if err != nil {
		p.app.pageError(w, r, err)
		return
	}
	p.app.renderPage(w, r, http.StatusOK, p.title, p.list, p.content(vm))
}

// showEdit answers the form that edits the row named name: the list with
// the row as its form, or the form on a page of its own.
func (p *tablePage[F, P]) showEdit(w http.ResponseWriter, r *http.Request, name string, form F) {
	form, err := p.prepare(r, form, nil)
	if err != nil {
		p.app.pageError(w, r, err)
		return
	}
	if p.inPlace(r) {
		p.renderTable(w, r, http.StatusOK, &form)
		return
	}
	p.app.renderPage(w, r, http.StatusOK, "Edit "+name, p.list, p.editPage(name, form))
}

// added finishes an add whose write returned err: the form again with its
// errors, or a reload and back to the list.
func (p *tablePage[F, P]) added(w http.ResponseWriter, r *http.Request, form F, name string, err error) {
	p.saved(w, r, form, name, nil, err)
}

// updated finishes an edit of the row named current, like added.
func (p *tablePage[F, P]) updated(w http.ResponseWriter, r *http.Request, form F, name, current string, err error) {
	p.saved(w, r, form, name, &current, err)
}

// saved finishes an add (current nil) or an edit. name is the name the
// form asked for, which a taken-name error repeats.
func (p *tablePage[F, P]) saved(w http.ResponseWriter, r *http.Request, form F, name string, current *string, err error) {
	input, ok := formInputError(err, p.what, name)
	if current != nil && p.inPlace(r) {
		p.savedInPlace(w, r, form, input, err)
		return
	}
	if !ok {
		p.app.finishWrite(w, r, err, "/"+p.list)
		return
	}
	form, err = p.prepare(r, form, input.byField())
	if err != nil {
		p.app.pageError(w, r, err)
		return
	}
	p.app.rerenderForm(w, r, p.title, p.list, p.form(form), func() (templ.Component, error) {
		if current != nil {
			return p.editPage(*current, form), nil
		}
		vm, err := p.build(r, form, nil)
		return p.content(vm), err
	})
}

// savedInPlace finishes an edit made in the row: the list with the row's
// form and its errors (422), or a reload and the list (a browser without
// htmx is sent back to the page).
func (p *tablePage[F, P]) savedInPlace(w http.ResponseWriter, r *http.Request, form F, input *inputError, err error) {
	if input != nil {
		form, err := p.prepare(r, form, input.byField())
		if err != nil {
			p.app.pageError(w, r, err)
			return
		}
		p.renderTable(w, r, http.StatusUnprocessableEntity, &form)
		return
	}
	if !p.app.reloaded(w, r, err) {
		return
	}
	if !isHTMX(r) {
		seeOther(w, r, "/"+p.list)
		return
	}
	p.renderTable(w, r, http.StatusOK, nil)
}

// renderTable answers with the list, edit's row (already prepared) as its
// form when set: the list alone for htmx, the whole page otherwise. Where a
// row also has an edit page, the answer depends on what htmx targets.
func (p *tablePage[F, P]) renderTable(w http.ResponseWriter, r *http.Request, status int, edit *F) {
	var blank F
	add, err := p.prepare(r, blank, nil)
	if err != nil {
		p.app.pageError(w, r, err)
		return
	}
	vm, err := p.build(r, add, edit)
	if err != nil {
		p.app.pageError(w, r, err)
		return
	}
	if !isHTMX(r) {
		p.app.renderPage(w, r, status, p.title, p.list, p.content(vm))
		return
	}
	w.Header().Add("Vary", "HX-Request")
	if p.editPage != nil {
		w.Header().Add("Vary", "HX-Target")
	}
	p.app.render(w, r, status, p.table(vm))
}
