package pricing

import (
	"cmp"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"gateway/models"
)

// The built-in catalog: vendors' list prices, taken on the date it names.
//
//go:embed catalog.json
var builtinJSON []byte

// Row is one model's list prices on one provider type, USD per million
// tokens; an absent price is one the vendor does not charge or list.
type Row struct {
	ProviderType         string   `json:"provider_type"`
	Model                string   `json:"model"`
	Aliases              []string `json:"aliases,omitempty"`
	Input                *float64 `json:"input,omitempty"`
	Output               *float64 `json:"output,omitempty"`
	CacheRead            *float64 `json:"cache_read,omitempty"`
	CacheWrite           *float64 `json:"cache_write,omitempty"`
	CacheWrite1h         *float64 `json:"cache_write_1h,omitempty"`
	LongContextThreshold *int64   `json:"long_context_threshold,omitempty"`
	LongInput            *float64 `json:"long_input,omitempty"`
	LongOutput           *float64 `json:"long_output,omitempty"`
	LongCacheRead        *float64 `json:"long_cache_read,omitempty"`
	LongCacheWrite       *float64 `json:"long_cache_write,omitempty"`
	LongCacheWrite1h     *float64 `json:"long_cache_write_1h,omitempty"`
}

func (r *Row) tiers() [2][numClasses]*float64 {
	return [2][numClasses]*float64{
		{r.Input, r.CacheRead, r.CacheWrite, r.CacheWrite1h, r.Output},
		{r.LongInput, r.LongCacheRead, r.LongCacheWrite, r.LongCacheWrite1h, r.LongOutput},
	}
}

// check refuses a row that would price nothing or price wrongly.
func (r *Row) check() error {
	if !slices.Contains(catalogTypes, r.ProviderType) {
		return fmt.Errorf("%q: provider_type %q is not one of %s", r.Model, r.ProviderType, strings.Join(catalogTypes, ", "))
	}
	if strings.TrimSpace(r.Model) == "" {
		return fmt.Errorf("a %s row has no model", r.ProviderType)
	}
	for _, tier := range r.tiers() {
		for c, p := range tier {
			if p != nil {
				if _, ok := RateOf(*p); !ok {
					return fmt.Errorf("%s %q: %s price %v is not a price in USD per million tokens", r.ProviderType, r.Model, Class(c), *p)
				}
			}
		}
	}
	if r.LongContextThreshold != nil && *r.LongContextThreshold <= 0 {
		return fmt.Errorf("%s %q: long_context_threshold must be a positive number of tokens", r.ProviderType, r.Model)
	}
	return nil
}

// catalogTypes are the provider types a catalog has rows for: an Azure
// entry is priced as its base model on OpenAI.
var catalogTypes = []string{models.APITypeOpenAI, models.APITypeAnthropic, models.APITypeGemini,
	models.APITypeBedrock, models.APITypeVertex, models.APITypeAzure}

// File is a catalog as JSON: the built-in one, or one imported.
type File struct {
	// Taken is the day the prices were taken (YYYY-MM-DD).
	Taken  string `json:"taken"`
	Note   string `json:"note,omitempty"`
	Models []Row  `json:"models"`
}

// Catalog finds list prices by provider type and model. It is never
// changed once built.
type Catalog struct {
	// Taken is when the prices were taken: the built-in catalog's date,
	// or an imported one's.
	Taken string
	// Imported says whether rows were imported over the built-in ones.
	Imported bool
	rows     map[rowKey]*Row
	count    int
}

type rowKey struct{ providerType, model string }

// Len is how many models the catalog prices.
func (c *Catalog) Len() int { return c.count }

// Parse reads a catalog file and checks every row.
func Parse(data []byte) (*File, error) {
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("pricing: catalog: %w", err)
	}
	if _, err := time.Parse(time.DateOnly, f.Taken); err != nil {
		return nil, fmt.Errorf("pricing: catalog: taken %q is not a date (YYYY-MM-DD)", f.Taken)
	}
	for i := range f.Models {
		if err := f.Models[i].check(); err != nil {
			return nil, fmt.Errorf("pricing: catalog: %w", err)
		}
	}
	return &f, nil
}

// Builtin is the catalog shipped in the binary.
var Builtin = sync.OnceValue(func() *Catalog {
	f, err := Parse(builtinJSON)
	if err != nil {
		panic(err) // the embedded file is checked by the package's tests
	}
	return New(f, nil)
})

// New is the catalog of f's rows over base's (base may be nil): a row of f
// replaces base's row of the same provider type and model or alias.
func New(f *File, base *Catalog) *Catalog {
	c := &Catalog{Taken: f.Taken, rows: make(map[rowKey]*Row)}
	if base != nil {
		maps.Copy(c.rows, base.rows)
		c.Imported = true
	}
	for i := range f.Models {
		r := &f.Models[i]
		for _, model := range append([]string{r.Model}, r.Aliases...) {
			c.rows[rowKey{r.ProviderType, model}] = r
		}
	}
	distinct := make(map[*Row]bool, len(c.rows))
	for _, r := range c.rows {
		distinct[r] = true
	}
	c.count = len(distinct)
	return c
}

// Lookup finds the row of model on a provider type, or nil. Besides the
// model as given it tries the ids vendors write differently for the same
// model: Bedrock's inference profiles (us.…, eu.…, global.…, and their
// ARNs), a Vertex AI version (@20250929), Gemini's "models/" prefix; an
// Azure deployment is looked up as OpenAI's model of its base model.
func (c *Catalog) Lookup(providerType, model string) *Row {
	if c == nil || model == "" {
		return nil
	}
	for _, t := range lookupTypes(providerType) {
		if r := c.rows[rowKey{t, model}]; r != nil {
			return r
		}
		if alt := altModel(t, model); alt != model {
			if r := c.rows[rowKey{t, alt}]; r != nil {
				return r
			}
		}
	}
	return nil
}

func lookupTypes(providerType string) []string {
	if providerType == models.APITypeAzure {
		return azureTypes
	}
	return []string{providerType}
}

var azureTypes = []string{models.APITypeAzure, models.APITypeOpenAI}

// altModel is the plain model id of a vendor's other spellings.
func altModel(providerType, model string) string {
	switch providerType {
	case models.APITypeBedrock:
		if i := strings.LastIndexByte(model, '/'); strings.HasPrefix(model, "arn:") && i >= 0 {
			model = model[i+1:]
		}
		if prefix, rest, ok := strings.Cut(model, "."); ok && slices.Contains(bedrockProfiles, prefix) {
			return rest
		}
	case models.APITypeVertex:
		if i := strings.IndexByte(model, '@'); i > 0 {
			return model[:i]
		}
	case models.APITypeGemini:
		return strings.TrimPrefix(model, "models/")
	}
	return model
}

// bedrockProfiles are the prefixes of Bedrock's cross-region inference
// profiles, which serve the model after the dot.
var bedrockProfiles = []string{"us", "eu", "apac", "global", "jp", "au", "ca", "us-gov"}

// Rows are the catalog's rows by provider type and model.
func (c *Catalog) Rows() []*Row {
	seen := make(map[*Row]bool, c.count)
	out := make([]*Row, 0, c.count)
	for _, r := range c.rows {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *Row) int {
		return cmp.Or(cmp.Compare(a.ProviderType, b.ProviderType), cmp.Compare(a.Model, b.Model))
	})
	return out
}
