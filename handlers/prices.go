package handlers

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"gateway/models"
	"gateway/proxy/pricing"
)

// priceFields are a model entry's own prices as the API and the Models
// page's form take them: USD per million tokens, each optional (nil takes
// the catalog's), and the long-context tier past LongContextThreshold
// input tokens.
type priceFields struct {
	InputPrice            *float64 `json:"input_price" validate:"omitnil,gte=0,lte=1000000"`
	OutputPrice           *float64 `json:"output_price" validate:"omitnil,gte=0,lte=1000000"`
	CacheReadPrice        *float64 `json:"cache_read_price" validate:"omitnil,gte=0,lte=1000000"`
	CacheWritePrice       *float64 `json:"cache_write_price" validate:"omitnil,gte=0,lte=1000000"`
	CacheWrite1hPrice     *float64 `json:"cache_write_1h_price" validate:"omitnil,gte=0,lte=1000000"`
	LongContextThreshold  *int64   `json:"long_context_threshold" validate:"omitnil,gt=0"`
	LongInputPrice        *float64 `json:"long_input_price" validate:"omitnil,gte=0,lte=1000000"`
	LongOutputPrice       *float64 `json:"long_output_price" validate:"omitnil,gte=0,lte=1000000"`
	LongCacheReadPrice    *float64 `json:"long_cache_read_price" validate:"omitnil,gte=0,lte=1000000"`
	LongCacheWritePrice   *float64 `json:"long_cache_write_price" validate:"omitnil,gte=0,lte=1000000"`
	LongCacheWrite1hPrice *float64 `json:"long_cache_write_1h_price" validate:"omitnil,gte=0,lte=1000000"`
}

func priceFieldsOf(p models.Prices) priceFields { return priceFields(p) }

func (f priceFields) prices() models.Prices { return models.Prices(f) }

// effectivePricesJSON is what an entry's tokens cost and where each price
// comes from: "entry", "catalog", "derived" (from the input price by the
// vendor's rule; derived_from says whose) or "none" (then null, and a
// request using that class has an unknown cost).
type effectivePricesJSON struct {
	Priced bool `json:"priced"`
	// CatalogModel is the catalog row that filled in, "" when none did.
	CatalogModel string        `json:"catalog_model"`
	CatalogTaken string        `json:"catalog_taken"`
	Prices       tierJSON      `json:"prices"`
	LongContext  *longTierJSON `json:"long_context"`
}

type longTierJSON struct {
	Threshold int64    `json:"threshold"`
	Source    string   `json:"source"`
	Prices    tierJSON `json:"prices"`
}

type tierJSON struct {
	Input        priceJSON `json:"input"`
	CacheRead    priceJSON `json:"cache_read"`
	CacheWrite   priceJSON `json:"cache_write"`
	CacheWrite1h priceJSON `json:"cache_write_1h"`
	Output       priceJSON `json:"output"`
}

type priceJSON struct {
	USDPerMillion *usdJSON `json:"usd_per_million"`
	Source        string   `json:"source"`
	DerivedFrom   string   `json:"derived_from,omitempty"`
}

func tierJSONOf(t *pricing.Tier) tierJSON {
	var out tierJSON
	for i, dst := range []*priceJSON{&out.Input, &out.CacheRead, &out.CacheWrite, &out.CacheWrite1h, &out.Output} {
		p := t.Of(pricing.Classes[i])
		*dst = priceJSON{Source: p.Source}
		if p.Known() {
			v := usdJSON(p.Rate.PerMillion())
			dst.USDPerMillion = &v
		}
		if p.Source == pricing.SourceDerived {
			dst.DerivedFrom = p.Origin()
		}
	}
	return out
}

func effectivePricesOf(p *pricing.Prices, cat *pricing.Catalog) effectivePricesJSON {
	out := effectivePricesJSON{Priced: p.Priced(), CatalogTaken: cat.Taken, Prices: tierJSONOf(&p.Base)}
	if p.Catalog != nil {
		out.CatalogModel = p.Catalog.Model
	}
	if p.LongThreshold > 0 {
		out.LongContext = &longTierJSON{Threshold: p.LongThreshold, Source: p.ThresholdSource, Prices: tierJSONOf(&p.Long)}
	}
	return out
}

// usdJSON is an amount of USD written as a plain decimal without float
// noise (pricing.Decimal).
type usdJSON float64

func (u usdJSON) MarshalJSON() ([]byte, error) { return []byte(pricing.Decimal(float64(u))), nil }

// catalog is the price catalog in effect: the built-in one with what an
// admin imported over it.
func (a *App) catalog(ctx context.Context) (*pricing.Catalog, error) {
	return a.prices.Load(ctx, a.store)
}

// entryPrices are an entry's effective prices when it calls its own
// upstream model (a wildcard entry's model pattern prices nothing).
func entryPrices(cat *pricing.Catalog, d *models.Deployment) pricing.Prices {
	return pricing.ForEntry(cat, d.Provider.APIType, d, d.UpstreamModel)
}

// priceFormNames are the price fields' form names, long_context_threshold
// (a whole number of tokens) included.
var priceFormNames = []string{"input_price", "output_price", "cache_read_price", "cache_write_price",
	"cache_write_1h_price", "long_context_threshold", "long_input_price", "long_output_price",
	"long_cache_read_price", "long_cache_write_price", "long_cache_write_1h_price"}

// byName is where each USD price field is, by its form name.
func (f *priceFields) byName() map[string]**float64 {
	return map[string]**float64{
		"input_price": &f.InputPrice, "output_price": &f.OutputPrice, "cache_read_price": &f.CacheReadPrice,
		"cache_write_price": &f.CacheWritePrice, "cache_write_1h_price": &f.CacheWrite1hPrice,
		"long_input_price": &f.LongInputPrice, "long_output_price": &f.LongOutputPrice,
		"long_cache_read_price": &f.LongCacheReadPrice, "long_cache_write_price": &f.LongCacheWritePrice,
		"long_cache_write_1h_price": &f.LongCacheWrite1hPrice,
	}
}

// priceForm reads the price fields of a form: their text as typed, and
// the prices (blank is unset; what does not parse is a field error).
func priceForm(r *http.Request, p *formParser) (map[string]string, priceFields) {
	values := make(map[string]string, len(priceFormNames))
	for _, name := range priceFormNames {
		values[name] = formValue(r, name)
	}
	var f priceFields
	for name, dst := range f.byName() {
		*dst = p.float(name, values[name])
	}
	if n := p.int("long_context_threshold", values["long_context_threshold"]); n != nil {
		t := int64(*n)
		f.LongContextThreshold = &t
	}
	return values, f
}

// priceFormValues are an entry's own prices as its edit form shows them;
// unset ones are blank.
func priceFormValues(p models.Prices) map[string]string {
	f := priceFieldsOf(p)
	values := make(map[string]string, len(priceFormNames))
	for name, src := range f.byName() {
		if *src != nil {
			values[name] = pricing.Decimal(**src)
		}
	}
	if f.LongContextThreshold != nil {
		values["long_context_threshold"] = strconv.FormatInt(*f.LongContextThreshold, 10)
	}
	return values
}

// priceNote is what each class of an entry costs and where the price comes
// from, for the Models page's title: "input 3 (catalog) · cache read 0.3
// (derived) · …".
func priceNote(p *pricing.Prices) string {
	var b strings.Builder
	for i, c := range pricing.Classes {
		if i > 0 {
			b.WriteString(" · ")
		}
		price := p.Base.Of(c)
		b.WriteString(strings.ReplaceAll(c.String(), "_", " "))
		if price.Known() {
			b.WriteString(" " + price.Rate.String() + " (" + price.Source + ")")
		} else {
			b.WriteString(" unpriced")
		}
	}
	if p.LongThreshold > 0 {
		fmt.Fprintf(&b, " · past %d input tokens: input %s, output %s", p.LongThreshold,
			p.Long.Of(pricing.Input).Rate, p.Long.Of(pricing.Output).Rate)
	}
	return b.String()
}
