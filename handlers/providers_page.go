package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/a-h/templ"

	"gateway/models"
	"gateway/views"
)

// showProviders shows the Providers page.
func (a *App) showProviders(w http.ResponseWriter, r *http.Request) {
	vm, err := a.providersPage(r, views.ProviderForm{})
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	a.renderPage(w, r, http.StatusOK, "Providers", "providers", views.ProvidersContent(vm))
}

// providersPage builds the Providers page around the add form.
func (a *App) providersPage(r *http.Request, form views.ProviderForm) (views.ProvidersPage, error) {
	ctx := r.Context()
	ps, err := a.store.ListProviders(ctx)
	if err != nil {
		return views.ProvidersPage{}, err
	}
	ds, err := a.store.ListDeployments(ctx)
	if err != nil {
		return views.ProvidersPage{}, err
	}
	uses := map[int64]int{}
	for _, d := range ds {
		uses[d.ProviderID]++
	}
	form.CSRFToken = sessionFrom(ctx).csrfToken()
	vm := views.ProvidersPage{Form: form, Providers: make([]views.ProviderRow, len(ps))}
	for i, p := range ps {
		vm.Providers[i] = views.ProviderRow{ID: p.ID, Name: p.Name, APIType: p.APIType, BaseURL: p.BaseURL,
			KeyHint: keyHint(&p), SupportsResponses: p.SupportsResponses, Entries: uses[p.ID]}
	}
	return vm, nil
}

// keyHint is all the admin ever sees of a provider's key.
func keyHint(p *models.Provider) string {
	if p.APIKeyLast4 == "" {
		return ""
	}
	return "…" + p.APIKeyLast4
}

// readProviderForm reads the provider form; the key is returned apart so
// that it never reaches the values a page shows.
func (a *App) readProviderForm(r *http.Request, creating bool) (providerFields, string, views.ProviderValues, error) {
	v := views.ProviderValues{
		Name:              formValue(r, "name"),
		APIType:           formValue(r, "api_type"),
		BaseURL:           formValue(r, "base_url"),
		SupportsResponses: formBool(r, "supports_responses"),
	}
	f := providerFields{Name: v.Name, APIType: v.APIType, BaseURL: v.BaseURL, SupportsResponses: v.SupportsResponses}
	key := formValue(r, "api_key")
	var err error
	if creating {
		err = a.validateStruct(&newProviderInput{providerFields: f, APIKey: key})
	} else {
		err = a.validateStruct(&providerPatchInput{providerFields: f, APIKey: key})
	}
	return f, key, v, err
}

// createProviderPage adds a provider from the form.
func (a *App) createProviderPage(w http.ResponseWriter, r *http.Request) {
	f, key, values, err := a.readProviderForm(r, true)
	if err == nil {
		var p models.Provider
		f.applyTo(&p)
		err = a.store.CreateProvider(r.Context(), &p, models.ProviderSecrets{APIKey: key})
	}
	a.providerSaved(w, r, views.ProviderForm{Values: values, KeyNotKept: key != ""}, f.Name, "", err)
}

// providerSaved finishes an add (current "") or an edit of the provider
// named current: the form again with its errors, or a reload and back to the
// list.
func (a *App) providerSaved(w http.ResponseWriter, r *http.Request, form views.ProviderForm, name, current string, err error) {
	if input, ok := formInputError(err, "provider", name); ok {
		form.Errors = input.byField()
		form.CSRFToken = sessionFrom(r.Context()).csrfToken()
		a.rerenderForm(w, r, "Providers", "providers", views.ProviderFormPartial(form), func() (templ.Component, error) {
			if form.ID != 0 {
				return views.EditProviderContent(current, form), nil
			}
			vm, err := a.providersPage(r, form)
			return views.ProvidersContent(vm), err
		})
		return
	}
	if err == nil {
		err = a.reload(r.Context())
	}
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	seeOther(w, r, "/providers")
}

// showEditProvider shows the form that edits one provider.
func (a *App) showEditProvider(w http.ResponseWriter, r *http.Request) {
	p, err := a.pageProvider(r)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	form := views.ProviderForm{
		CSRFToken: sessionFrom(r.Context()).csrfToken(),
		ID:        p.ID,
		KeyHint:   keyHint(p),
		Values:    views.ProviderValues{Name: p.Name, APIType: p.APIType, BaseURL: p.BaseURL, SupportsResponses: p.SupportsResponses},
	}
	a.renderPage(w, r, http.StatusOK, "Edit "+p.Name, "providers", views.EditProviderContent(p.Name, form))
}

// updateProviderPage saves the edit form; an empty key keeps the stored one.
func (a *App) updateProviderPage(w http.ResponseWriter, r *http.Request) {
	p, err := a.pageProvider(r)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	f, key, values, err := a.readProviderForm(r, false)
	if err == nil {
		_, err = a.store.UpdateProvider(r.Context(), p.ID, models.ProviderSecrets{APIKey: key}, func(p *models.Provider) error {
			f.applyTo(p)
			return nil
		})
	}
	a.providerSaved(w, r, views.ProviderForm{ID: p.ID, KeyHint: keyHint(p), Values: values, KeyNotKept: key != ""}, f.Name, p.Name, err)
}

// deleteProviderPage deletes a provider. While model entries use it the list
// comes back with the reason on its row, 422 so that htmx swaps it in.
func (a *App) deleteProviderPage(w http.ResponseWriter, r *http.Request) {
	p, err := a.pageProvider(r)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	err = a.store.DeleteProvider(r.Context(), p.ID)
	if errors.Is(err, models.ErrInUse) {
		a.providerInUse(w, r, p)
		return
	}
	if err == nil {
		err = a.reload(r.Context())
	}
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	seeOther(w, r, "/providers")
}

func (a *App) providerInUse(w http.ResponseWriter, r *http.Request, p *models.Provider) {
	vm, err := a.providersPage(r, views.ProviderForm{})
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	n := 0
	for _, row := range vm.Providers {
		if row.ID == p.ID {
			n = row.Entries
		}
	}
	vm.DeleteErrorID = p.ID
	uses := plural(n, "model entry", "model entries") + " use it"
	if n == 1 {
		uses = "1 model entry uses it"
	}
	vm.DeleteError = fmt.Sprintf("%s cannot be deleted: %s. Delete those entries or move them to another provider first (Models page).",
		p.Name, uses)
	if isHTMX(r) {
		w.Header().Add("Vary", "HX-Request")
		a.render(w, r, http.StatusUnprocessableEntity, views.ProvidersList(vm))
		return
	}
	a.renderPage(w, r, http.StatusUnprocessableEntity, "Providers", "providers", views.ProvidersContent(vm))
}

// testProviderPage makes a cheap authenticated call to the provider and
// shows how it went: the result alone for htmx, the page otherwise.
func (a *App) testProviderPage(w http.ResponseWriter, r *http.Request) {
	p, err := a.pageProvider(r)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	check := a.checkProvider(r.Context(), p)
	if isHTMX(r) {
		w.Header().Add("Vary", "HX-Request")
		a.render(w, r, http.StatusOK, views.ProviderCheckResult(check))
		return
	}
	vm, err := a.providersPage(r, views.ProviderForm{})
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	vm.Check = &check
	a.renderPage(w, r, http.StatusOK, "Providers", "providers", views.ProvidersContent(vm))
}

// pageProvider loads the provider of the URL's {id}.
func (a *App) pageProvider(r *http.Request) (*models.Provider, error) {
	id, err := pathID(r, "provider")
	if err != nil {
		return nil, err
	}
	return getForPage(r.Context(), "provider", id, a.store.GetProvider)
}

// getForPage loads one row, wording a missing one for a page.
func getForPage[T any](ctx context.Context, what string, id int64, get func(context.Context, int64) (*T, error)) (*T, error) {
	v, err := get(ctx, id)
	if errors.Is(err, models.ErrNotFound) {
		return nil, pageNotFound(what, id)
	}
	return v, err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
