package handlers

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"gateway/models"
	"gateway/proxy/pricing"
)

// pricesAnswerJSON answers GET /api/prices for one model: its effective
// prices on a provider type, or one entry's.
type pricesAnswerJSON struct {
	ProviderType string `json:"provider_type"`
	Model        string `json:"model"`
	EntryID      *int64 `json:"entry_id,omitempty"`
	effectivePricesJSON
}

// catalogJSON answers GET /api/prices without a model: the catalog in
// effect and its rows.
type catalogJSON struct {
	Taken    string         `json:"taken"`
	Imported bool           `json:"imported"`
	Count    int            `json:"count"`
	Models   []*pricing.Row `json:"models"`
}

// showPrices handles GET /api/prices?provider_type=&model= (the catalog's
// prices for a model, each with its source), ?entry_id= (an entry's
// effective prices), and without either the whole catalog.
func (a *App) showPrices(w http.ResponseWriter, r *http.Request) {
	cat, err := a.catalog(r.Context())
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	q := r.URL.Query()
	switch {
	case q.Get("entry_id") != "":
		var id int64
		if err := queryPositive(q, "entry_id", &id); err != nil {
			a.apiError(w, r, err)
			return
		}
		d, err := a.store.GetDeployment(r.Context(), id)
		if err != nil {
			a.apiError(w, r, err)
			return
		}
		p := entryPrices(cat, d)
		a.writeJSON(w, r, http.StatusOK, pricesAnswerJSON{ProviderType: d.Provider.APIType, Model: d.UpstreamModel,
			EntryID: &d.ID, effectivePricesJSON: effectivePricesOf(&p, cat)})
	case q.Get("model") != "" || q.Get("provider_type") != "":
		t, model := q.Get("provider_type"), q.Get("model")
		if !slices.Contains(providerTypes, t) {
			a.apiError(w, r, queryError("provider_type", "one of "+strings.Join(providerTypes, ", ")))
			return
		}
		if model == "" {
			a.apiError(w, r, queryError("model", "a model id"))
			return
		}
		p := pricing.ForEntry(cat, t, &models.Deployment{}, model)
		a.writeJSON(w, r, http.StatusOK, pricesAnswerJSON{ProviderType: t, Model: model, effectivePricesJSON: effectivePricesOf(&p, cat)})
	default:
		rows := cat.Rows()
		a.writeJSON(w, r, http.StatusOK, catalogJSON{Taken: cat.Taken, Imported: cat.Imported, Count: len(rows), Models: rows})
	}
}

var providerTypes = []string{models.APITypeOpenAI, models.APITypeAnthropic, models.APITypeAzure,
	models.APITypeBedrock, models.APITypeGemini, models.APITypeVertex}

// maxCatalogBytes bounds an imported catalog: LiteLLM's whole file is a
// few megabytes.
const maxCatalogBytes = 32 << 20

// importAnswerJSON answers PUT /api/prices/catalog.
type importAnswerJSON struct {
	Taken    string `json:"taken"`
	Imported int    `json:"imported"`
	Skipped  int    `json:"skipped"`
	Count    int    `json:"count"`
}

// importCatalog handles PUT /api/prices/catalog?taken=YYYY-MM-DD: the body
// is a catalog in the gateway's format or LiteLLM's
// model_prices_and_context_window.json (taken, default today, is the day
// its prices are of). Its rows replace the built-in ones of the same
// provider type and model; the rest of the built-in catalog stays.
func (a *App) importCatalog(w http.ResponseWriter, r *http.Request) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxCatalogBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			a.apiError(w, r, badInput("", "the catalog is larger than 32 MB"))
			return
		}
		a.apiError(w, r, err)
		return
	}
	taken := r.URL.Query().Get("taken")
	if taken == "" {
		taken = time.Now().UTC().Format(time.DateOnly)
	}
	f, skipped, err := pricing.ReadFile(data, taken)
	if err != nil {
		a.apiError(w, r, badInput("", "%s", err.Error()))
		return
	}
	stored, err := json.Marshal(f)
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	if err := a.store.PutSetting(r.Context(), models.SettingPriceCatalog, string(stored)); err != nil {
		a.apiError(w, r, err)
		return
	}
	cat, err := a.catalog(r.Context())
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	a.written(w, r, http.StatusOK, importAnswerJSON{Taken: f.Taken, Imported: len(f.Models), Skipped: skipped, Count: cat.Len()})
}

// resetCatalog handles DELETE /api/prices/catalog: back to the built-in
// catalog alone.
func (a *App) resetCatalog(w http.ResponseWriter, r *http.Request) {
	if err := a.store.PutSetting(r.Context(), models.SettingPriceCatalog, ""); err != nil {
		a.apiError(w, r, err)
		return
	}
	a.written(w, r, http.StatusNoContent, nil)
}
