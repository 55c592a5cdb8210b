package pricing

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gateway/models"
)

// ReadFile reads a catalog to import: the gateway's own format (an object
// with "taken" and "models"), or the widely used
// model_prices_and_context_window.json (model name → prices per token),
// whose rows are taken to be of the day taken (YYYY-MM-DD). It also returns
// how many of the file's models it left out (not a chat or embedding model
// of a provider type the gateway has, or without an input price).
func ReadFile(data []byte, taken string) (*File, int, error) {
	var probe struct {
		Taken  *string          `json:"taken"`
		Models *json.RawMessage `json:"models"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, 0, fmt.Errorf("pricing: catalog: %w", err)
	}
	if probe.Taken != nil && probe.Models != nil {
		f, err := Parse(data)
		return f, 0, err
	}
	return fromLiteLLM(data, taken)
}

// litellmRow is the part of a model_prices_and_context_window.json entry
// the gateway reads. Prices are USD per token; the long-context prices are
// the keys named "…_above_<N>k_tokens".
type litellmRow struct {
	Provider string `json:"litellm_provider"`
	Mode     string `json:"mode"`
	prices   map[string]float64
}

func (r *litellmRow) UnmarshalJSON(b []byte) error {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	r.prices = make(map[string]float64)
	for k, v := range all {
		switch k {
		case "litellm_provider":
			_ = json.Unmarshal(v, &r.Provider)
		case "mode":
			_ = json.Unmarshal(v, &r.Mode)
		default:
			var f float64
			if strings.Contains(k, "cost") && json.Unmarshal(v, &f) == nil {
				r.prices[k] = f
			}
		}
	}
	return nil
}

// litellmTypes map LiteLLM's provider names to the gateway's provider
// types, with the prefix LiteLLM writes before the model id.
var litellmTypes = map[string]struct{ providerType, prefix string }{
	"anthropic":                  {models.APITypeAnthropic, ""},
	"openai":                     {models.APITypeOpenAI, ""},
	"azure":                      {models.APITypeAzure, "azure/"},
	"gemini":                     {models.APITypeGemini, "gemini/"},
	"vertex_ai-language-models":  {models.APITypeVertex, "vertex_ai/"},
	"vertex_ai-anthropic_models": {models.APITypeVertex, "vertex_ai/"},
	"vertex_ai":                  {models.APITypeVertex, "vertex_ai/"},
	"bedrock":                    {models.APITypeBedrock, ""},
	"bedrock_converse":           {models.APITypeBedrock, ""},
}

var longKey = regexp.MustCompile(`^(input_cost_per_token|output_cost_per_token|cache_read_input_token_cost|cache_creation_input_token_cost|cache_creation_input_token_cost_above_1hr)_above_(\d+)k_tokens$`)

func fromLiteLLM(data []byte, taken string) (*File, int, error) {
	var all map[string]litellmRow
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, 0, fmt.Errorf("pricing: catalog: not the gateway's catalog nor model_prices_and_context_window.json: %w", err)
	}
	f := &File{Taken: taken, Note: "imported from model_prices_and_context_window.json"}
	skipped := 0
	for _, name := range slices.Sorted(maps.Keys(all)) {
		row, ok := litellmCatalogRow(name, all[name])
		if !ok {
			skipped++
			continue
		}
		f.Models = append(f.Models, row)
	}
	if len(f.Models) == 0 {
		return nil, skipped, fmt.Errorf("pricing: catalog: none of the file's %d models is a chat or embedding model of a provider type the gateway has", len(all))
	}
	raw, err := json.Marshal(f)
	if err != nil {
		return nil, skipped, err
	}
	checked, err := Parse(raw) // the same checks as any catalog
	return checked, skipped, err
}

// litellmCatalogRow is one LiteLLM entry as a catalog row.
func litellmCatalogRow(name string, r litellmRow) (Row, bool) {
	t, ok := litellmTypes[r.Provider]
	if !ok || (r.Mode != "" && r.Mode != "chat" && r.Mode != "completion" && r.Mode != "responses" && r.Mode != "embedding") {
		return Row{}, false
	}
	model := strings.TrimPrefix(name, t.prefix)
	if strings.Contains(model, "/") || model == "" {
		return Row{}, false // a region's or a fine-tune's own price, a path: not a model id
	}
	in, ok := r.prices["input_cost_per_token"]
	if !ok {
		return Row{}, false
	}
	row := Row{ProviderType: t.providerType, Model: model, Input: perMillion(in)}
	if out, ok := r.prices["output_cost_per_token"]; ok {
		row.Output = perMillion(out)
	} else if r.Mode == "embedding" {
		row.Output = perMillion(0) // embeddings have no output to price
	}
	for key, dst := range map[string]**float64{"cache_read_input_token_cost": &row.CacheRead,
		"cache_creation_input_token_cost": &row.CacheWrite, "cache_creation_input_token_cost_above_1hr": &row.CacheWrite1h} {
		if v, ok := r.prices[key]; ok {
			*dst = perMillion(v)
		}
	}
	long := map[string]**float64{"input_cost_per_token": &row.LongInput, "output_cost_per_token": &row.LongOutput,
		"cache_read_input_token_cost": &row.LongCacheRead, "cache_creation_input_token_cost": &row.LongCacheWrite,
		"cache_creation_input_token_cost_above_1hr": &row.LongCacheWrite1h}
	// The gateway prices one long-context tier: the lowest the file names.
	var threshold int64
	for key := range r.prices {
		if m := longKey.FindStringSubmatch(key); m != nil {
			k, _ := strconv.ParseInt(m[2], 10, 64)
			if threshold == 0 || k*1000 < threshold {
				threshold = k * 1000
			}
		}
	}
	if threshold == 0 {
		return row, true
	}
	row.LongContextThreshold = &threshold
	for key, v := range r.prices {
		if m := longKey.FindStringSubmatch(key); m != nil && m[2] == strconv.FormatInt(threshold/1000, 10) {
			*long[m[1]] = perMillion(v)
		}
	}
	return row, true
}

// perMillion is a price per token as USD per million tokens, without the
// noise of the multiplication (3e-06 is 3, not 2.9999999999999996).
func perMillion(perToken float64) *float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(perToken*1e6, 'g', 12, 64), 64)
	return &v
}
