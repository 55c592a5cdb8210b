package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"gateway/models"
	"gateway/proxy/pricing"
	"gateway/views"
)

// showModels shows the Models page.
// ?add=<public name> fills in the add form's public name (a pool card's
// "Add member").
func (a *App) showModels(w http.ResponseWriter, r *http.Request) {
	form := views.ModelEntryForm{Values: views.ModelEntryValues{PublicName: r.URL.Query().Get("add")}}
	vm, err := a.modelsView(r, form, nil)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	a.renderPage(w, r, http.StatusOK, "Models", "models", views.ModelsContent(vm))
}

// createModelEntry adds a model entry from the form. Bad input re-renders the
// form with its errors in place, 422: the form alone for htmx (which swaps
// 422, see views.HTMXConfig), the whole page otherwise.
func (a *App) createModelEntry(w http.ResponseWriter, r *http.Request) {
	in, values, err := a.readModelEntryForm(r)
	if err == nil {
		_, err = a.storeModelEntry(r.Context(), &in)
		if storeErr, ok := storeInputError(err); ok {
			err = storeErr
		}
	}
	var input *inputError
	if errors.As(err, &input) {
		a.rerenderModelEntryForm(w, r, values, input)
		return
	}
	a.finishWrite(w, r, err, "/models")
}

// readModelEntryForm parses and validates the form with the API's rules.
func (a *App) readModelEntryForm(r *http.Request) (modelEntryInput, views.ModelEntryValues, error) {
	in, values, parseErr := parseModelEntryForm(r)
	return in, values, joinInputErrors(parseErr, a.validateStruct(&in))
}

func (a *App) rerenderModelEntryForm(w http.ResponseWriter, r *http.Request, values views.ModelEntryValues, input *inputError) {
	form := views.ModelEntryForm{Values: values, Errors: input.byField()}
	if isHTMX(r) {
		providers, err := a.store.ListProviders(r.Context())
		if err != nil {
			a.pageError(w, r, err)
			return
		}
		form.CSRFToken = sessionFrom(r.Context()).csrfToken()
		form.Providers = providerOptions(providers)
		w.Header().Add("Vary", "HX-Request")
		a.render(w, r, http.StatusUnprocessableEntity, views.ModelEntryFormPartial(form))
		return
	}
	vm, err := a.modelsView(r, form, nil)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	a.renderPage(w, r, http.StatusUnprocessableEntity, "Models", "models", views.ModelsContent(vm))
}

// modelsView builds the Models page's view model around form; edit, when
// set, is an inline form that comes back with its error.
func (a *App) modelsView(r *http.Request, form views.ModelEntryForm, edit *inlineEdit) (views.ModelsView, error) {
	providers, err := a.store.ListProviders(r.Context())
	if err != nil {
		return views.ModelsView{}, err
	}
	groups, err := a.poolGroups(r, edit)
	if err != nil {
		return views.ModelsView{}, err
	}
	form.CSRFToken = sessionFrom(r.Context()).csrfToken()
	form.Providers = providerOptions(providers)
	vm := views.ModelsView{Groups: groups, Form: form}
	if len(providers) == 0 {
		vm.ProviderHint = addProviderHint(r)
	}
	return vm, nil
}

func modelEntryRow(d *models.Deployment, cat *pricing.Catalog) views.ModelEntry {
	prices := entryPrices(cat, d)
	e := views.ModelEntry{
		ID:            d.ID,
		Provider:      d.Provider.Name,
		UpstreamModel: d.UpstreamModel,
		Weight:        "unset",
		WeightUnset:   d.Weight == nil,
		Cooldown:      "default",
		InputPrice:    priceText(prices.Base.Of(pricing.Input)),
		OutputPrice:   priceText(prices.Base.Of(pricing.Output)),
		PriceNote:     priceNote(&prices),
		Unpriced:      !prices.Priced() && !d.IsWildcard(),
		Enabled:       d.Enabled,
		Reserve:       d.Weight != nil && *d.Weight == 0,
		Tier:          tierText(d.Priority),
		Limits:        limitsText(d.RPMLimit, d.TPMLimit),
	}
	if d.IsWildcard() && !prices.Priced() {
		// A wildcard route's model is the caller's: each is priced by the
		// catalog's row for it when it is served.
		e.InputPrice, e.OutputPrice, e.PriceNote = "catalog", "catalog", "each model at the catalog's list price"
	}
	if d.Weight != nil {
		e.Weight = formatNumber(*d.Weight)
	}
	switch {
	case d.CooldownSeconds == nil:
	case *d.CooldownSeconds == 0:
		e.Cooldown = "off"
	default:
		e.Cooldown = strconv.Itoa(*d.CooldownSeconds) + " s"
	}
	return e
}

func providerOptions(ps []models.Provider) []views.Option {
	opts := make([]views.Option, len(ps))
	for i, p := range ps {
		opts[i] = views.Option{Value: strconv.FormatInt(p.ID, 10), Label: fmt.Sprintf("%s (%s)", p.Name, p.APIType)}
	}
	return opts
}

// addProviderHint is the curl command that adds a first provider.
func addProviderHint(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return "curl -X POST " + scheme + "://" + r.Host + "/api/providers \\\n" +
		"  -H \"Authorization: Bearer $GATEWAY_MASTER_KEY\" \\\n" +
		"  -H \"Content-Type: application/json\" \\\n" +
		`  -d '{"name": "openai", "api_type": "openai", "base_url": "https://api.openai.com/v1", "api_key": "sk-..."}'`
}
