package handlers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"gateway/models"
	"gateway/proxy/providers"
	"gateway/views"
)

// providersTable is the Providers page; a provider is edited on a page of
// its own.
func (a *App) providersTable() *tablePage[views.ProviderForm, views.ProvidersPage] {
	return &tablePage[views.ProviderForm, views.ProvidersPage]{
		app: a, title: "Providers", list: "providers", what: "provider",
		build: func(r *http.Request, add views.ProviderForm, _ *views.ProviderForm) (views.ProvidersPage, error) {
			return a.providersPage(r, add)
		},
		prepare: func(r *http.Request, f views.ProviderForm, errs map[string]string) (views.ProviderForm, error) {
			f.CSRFToken = sessionFrom(r.Context()).csrfToken()
			if errs != nil {
				f.Errors = errs
				f.SecretsAgain = typedSecrets(r)
			}
			return f, nil
		},
		content: views.ProvidersContent, form: views.ProviderFormPartial, editPage: views.EditProviderContent,
	}
}

// showProviders shows the Providers page.
func (a *App) showProviders(w http.ResponseWriter, r *http.Request) {
	a.providersTable().show(w, r, newProviderForm())
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
	for i := range ps {
		vm.Providers[i] = providerRow(&ps[i], uses[ps[i].ID])
	}
	return vm, nil
}

// readProviderForm reads the provider form: the common fields and those of
// the chosen type, the only ones it shows. A key file chosen in the file
// input stands for credentials_json.
func readProviderForm(r *http.Request) (providerInput, error) {
	in := providerInput{Name: formValue(r, "name"), APIType: formValue(r, "api_type"),
		BaseURL: formValue(r, "base_url"), SupportsResponses: formBool(r, "supports_responses")}
	typ, _ := providers.Lookup(in.APIType)
	if typ == nil {
		return in, nil
	}
	for _, f := range typ.Fields {
		*in.field(f.Name) = formValue(r, f.Name)
	}
	if !hasField(typ, "credentials_json") {
		return in, nil
	}
	file, _, err := r.FormFile("credentials_file")
	if errors.Is(err, http.ErrMissingFile) || errors.Is(err, http.ErrNotMultipart) {
		return in, nil
	}
	if err != nil {
		return in, err
	}
	defer file.Close()
	b, err := io.ReadAll(io.LimitReader(file, maxKeyFileBytes+1))
	if err != nil {
		return in, err
	}
	if len(b) > maxKeyFileBytes {
		return in, badInput("credentials_json", "the key file is larger than %d bytes: is it a service account key?", maxKeyFileBytes)
	}
	in.CredentialsJSON = strings.TrimSpace(string(b))
	return in, nil
}

// maxKeyFileBytes bounds a key file; a service account key is about 2.3 kB.
const maxKeyFileBytes = 64000

// createProviderPage adds a provider from the form.
func (a *App) createProviderPage(w http.ResponseWriter, r *http.Request) {
	in, err := readProviderForm(r)
	if err == nil {
		err = a.validateProvider(&in, in.given(), nil)
	}
	if err == nil {
		var p models.Provider
		in.applyTo(&p)
		err = a.store.CreateProvider(r.Context(), &p, in.secrets())
	}
	a.providersTable().added(w, r, providerForm(in, nil), in.Name, err)
}

// typedSecrets are the labels of the secrets typed into a form, of any
// type: the form may have shown another type's fields than the one chosen.
func typedSecrets(r *http.Request) []string {
	var labels []string
	for _, name := range typeFieldNames {
		if f, ok := anyField(name); ok && f.Secret && formValue(r, name) != "" {
			labels = append(labels, f.Label)
		}
	}
	if file, _, err := r.FormFile("credentials_file"); err == nil {
		file.Close()
		labels = append(labels, "key file")
	}
	return labels
}

// anyField is the field named name of the first type that has it.
func anyField(name string) (providers.Field, bool) {
	for _, t := range providerTypeNames {
		typ, _ := providers.Lookup(t)
		for _, f := range fieldsOf(typ) {
			if f.Name == name {
				return f, true
			}
		}
	}
	return providers.Field{}, false
}

// showEditProvider shows the form that edits one provider.
func (a *App) showEditProvider(w http.ResponseWriter, r *http.Request) {
	p, err := a.pageProvider(r)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	a.providersTable().showEdit(w, r, p.Name, providerForm(providerInputOf(p), p))
}

// updateProviderPage saves the edit form; an empty secret keeps the stored one.
func (a *App) updateProviderPage(w http.ResponseWriter, r *http.Request) {
	p, err := a.pageProvider(r)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	in, err := readProviderForm(r)
	if err == nil {
		_, err = a.store.UpdateProvider(r.Context(), p.ID, in.secrets(), func(p *models.Provider) error {
			if err := a.validateProvider(&in, in.given(), p); err != nil {
				return err
			}
			in.applyTo(p)
			return nil
		})
	}
	a.providersTable().updated(w, r, providerForm(in, p), in.Name, p.Name, err)
}

// showProviderFields answers the base URL and the fields of the api_type a
// provider form chose, for htmx to swap in: the edit form's (with {id})
// shows which secrets are stored. Without htmx, the page with that form.
func (a *App) showProviderFields(w http.ResponseWriter, r *http.Request) {
	var stored *models.Provider
	if r.PathValue("id") != "" {
		p, err := a.pageProvider(r)
		if err != nil {
			a.pageError(w, r, err)
			return
		}
		stored = p
	}
	apiType := r.URL.Query().Get("api_type")
	in := providerInput{APIType: apiType}
	if stored != nil {
		in = providerInputOf(stored)
		if in.APIType != apiType {
			in = providerInput{Name: stored.Name, APIType: apiType}
		}
	}
	in.BaseURL = strings.TrimSpace(r.URL.Query().Get("base_url"))
	form := providerForm(in, stored)
	form.CSRFToken = sessionFrom(r.Context()).csrfToken()
	w.Header().Add("Vary", "HX-Request")
	switch {
	case isHTMX(r):
		a.render(w, r, http.StatusOK, views.ProviderTypeFields(form))
	case stored != nil:
		a.providersTable().showEdit(w, r, stored.Name, form)
	default:
		a.providersTable().show(w, r, form)
	}
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
	a.finishWrite(w, r, err, "/providers")
}

func (a *App) providerInUse(w http.ResponseWriter, r *http.Request, p *models.Provider) {
	a.renderProviders(w, r, http.StatusUnprocessableEntity, func(vm *views.ProvidersPage) {
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
	})
}

// renderProviders answers with the Providers page as set changes it: the
// list alone for htmx, the whole page otherwise.
func (a *App) renderProviders(w http.ResponseWriter, r *http.Request, status int, set func(*views.ProvidersPage)) {
	vm, err := a.providersPage(r, newProviderForm())
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	set(&vm)
	if isHTMX(r) {
		w.Header().Add("Vary", "HX-Request")
		a.render(w, r, status, views.ProvidersList(vm))
		return
	}
	a.renderPage(w, r, status, "Providers", "providers", views.ProvidersContent(vm))
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
	a.renderProviders(w, r, http.StatusOK, func(vm *views.ProvidersPage) { vm.Check = &check })
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
