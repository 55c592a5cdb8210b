package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"gateway/models"
	"gateway/models/dbtest"
)

// effective is the effective_prices of an answer: each class's price and source.
type effective struct {
	Priced       bool   `json:"priced"`
	CatalogModel string `json:"catalog_model"`
	CatalogTaken string `json:"catalog_taken"`
	Prices       map[string]struct {
		USDPerMillion *json.Number `json:"usd_per_million"`
		Source        string       `json:"source"`
		DerivedFrom   string       `json:"derived_from"`
	} `json:"prices"`
	LongContext *struct {
		Threshold int64  `json:"threshold"`
		Source    string `json:"source"`
	} `json:"long_context"`
}

// of is "price source" of a class ("none" when unpriced).
func (e effective) of(class string) string {
	p := e.Prices[class]
	if p.USDPerMillion == nil {
		return p.Source
	}
	return p.USDPerMillion.String() + " " + p.Source
}

// TestEntryPrices: every price field goes through POST and PATCH (null
// unsets one), bad prices are refused and change nothing, and each entry
// answers its effective prices with their sources.
func TestEntryPrices(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		p := decodeJSON[map[string]any](t, ta.api(t, "POST", "/api/providers",
			`{"name":"anthropic-main","api_type":"anthropic","base_url":"https://api.anthropic.com/v1","api_key":"sk-ant-provider-key"}`))
		rec := ta.api(t, "POST", "/api/models", fmt.Sprintf(`{"public_name":"claude","provider_id":%v,"upstream_model":"claude-sonnet-4-5"}`, p["id"]))
		if rec.Code != http.StatusCreated {
			t.Fatalf("create: %d %s", rec.Code, rec.Body)
		}
		entry := decodeJSON[struct {
			ID              int64     `json:"id"`
			InputPrice      *float64  `json:"input_price"`
			EffectivePrices effective `json:"effective_prices"`
		}](t, rec)
		ep := entry.EffectivePrices
		if entry.InputPrice != nil || !ep.Priced || ep.CatalogModel != "claude-sonnet-4-5" || ep.CatalogTaken != "2026-07-09" ||
			ep.of("input") != "3 catalog" || ep.of("cache_write_1h") != "6 catalog" || ep.of("output") != "15 catalog" ||
			ep.LongContext == nil || ep.LongContext.Threshold != 200000 {
			t.Fatalf("an entry with no price typed: %s", rec.Body)
		}
		path := fmt.Sprintf("/api/models/%d", entry.ID)
		all := `{"input_price":2,"output_price":10,"cache_read_price":0.2,"cache_write_price":2.5,"cache_write_1h_price":4,
			"long_context_threshold":100000,"long_input_price":4,"long_output_price":15,"long_cache_read_price":0.4,
			"long_cache_write_price":5,"long_cache_write_1h_price":8,"base_model":"claude-sonnet-4-5"}`
		rec = ta.api(t, "PATCH", path, all)
		got := decodeJSON[map[string]any](t, rec)
		var sent map[string]any
		if err := json.Unmarshal([]byte(all), &sent); err != nil {
			t.Fatal(err)
		}
		for k, v := range sent {
			if got[k] != v {
				t.Errorf("PATCH %s: %v, want %v", k, got[k], v)
			}
		}
		ep = decodeJSON[struct {
			E effective `json:"effective_prices"`
		}](t, rec).E
		if ep.of("input") != "2 entry" || ep.of("cache_read") != "0.2 entry" || ep.LongContext.Threshold != 100000 || ep.LongContext.Source != "entry" {
			t.Errorf("effective after PATCH: %s", rec.Body)
		}
		// null unsets: the catalog's price again.
		rec = ta.api(t, "PATCH", path, `{"input_price":null,"cache_read_price":null}`)
		ep = decodeJSON[struct {
			E effective `json:"effective_prices"`
		}](t, rec).E
		if got := decodeJSON[map[string]any](t, rec); got["input_price"] != nil || ep.of("input") != "3 catalog" || ep.of("cache_read") != "0.3 catalog" {
			t.Errorf("after null: %s", rec.Body)
		}
		before, _ := s.GetDeployment(t.Context(), entry.ID)
		for _, bad := range []string{`{"cache_write_price":-1}`, `{"long_context_threshold":0}`, `{"output_price":"cheap"}`, `{"input_price":2000000}`} {
			if rec := ta.api(t, "PATCH", path, bad); rec.Code != http.StatusBadRequest && rec.Code != http.StatusUnprocessableEntity {
				t.Errorf("%s: %d %s", bad, rec.Code, rec.Body)
			}
		}
		after, _ := s.GetDeployment(t.Context(), entry.ID)
		if b, a := jsonOf(t, before.Prices), jsonOf(t, after.Prices); a != b {
			t.Errorf("a refused PATCH changed the prices: %s → %s", b, a)
		}
		// An unpriced model is said to be so.
		rec = ta.api(t, "POST", "/api/models", fmt.Sprintf(`{"public_name":"private","provider_id":%v,"upstream_model":"claude-private-1"}`, p["id"]))
		if ep := decodeJSON[struct {
			E effective `json:"effective_prices"`
		}](t, rec).E; ep.Priced || ep.of("input") != "none" || ep.of("cache_read") != "none" {
			t.Errorf("an unpriced entry: %s", rec.Body)
		}
	})
}

// TestPricesAPI: GET /api/prices for a model and an entry, the catalog,
// and an import that changes what a model costs, then its reset.
func TestPricesAPI(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		rec := ta.api(t, "GET", "/api/prices?provider_type=bedrock&model=us.anthropic.claude-sonnet-4-5-20250929-v1:0", "")
		ep := decodeJSON[effective](t, rec)
		if rec.Code != 200 || ep.of("input") != "3.3 catalog" || ep.of("cache_read") != "0.33 catalog" {
			t.Errorf("bedrock regional sonnet: %d %s", rec.Code, rec.Body)
		}
		rec = ta.api(t, "GET", "/api/prices?provider_type=openai&model=llama-private", "")
		if ep := decodeJSON[effective](t, rec); ep.Priced || ep.of("input") != "none" {
			t.Errorf("a model the catalog does not have: %s", rec.Body)
		}
		for _, bad := range []string{"?provider_type=cohere&model=x", "?provider_type=openai", "?entry_id=x", "?entry_id=999"} {
			if rec := ta.api(t, "GET", "/api/prices"+bad, ""); rec.Code != 400 && rec.Code != 404 {
				t.Errorf("%s: %d", bad, rec.Code)
			}
		}
		cat := decodeJSON[struct {
			Taken    string `json:"taken"`
			Imported bool   `json:"imported"`
			Count    int    `json:"count"`
			Models   []any  `json:"models"`
		}](t, ta.api(t, "GET", "/api/prices", ""))
		if cat.Taken != "2026-07-09" || cat.Imported || cat.Count < 100 || len(cat.Models) != cat.Count {
			t.Fatalf("the catalog: taken %s, imported %v, %d rows (%d listed)", cat.Taken, cat.Imported, cat.Count, len(cat.Models))
		}
		// LiteLLM's file says gpt-4o costs more now.
		file := `{"gpt-4o": {"litellm_provider": "openai", "mode": "chat", "input_cost_per_token": 3e-06, "output_cost_per_token": 1.2e-05}}`
		rec = ta.api(t, "PUT", "/api/prices/catalog?taken=2026-12-01", file)
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"imported":1`) {
			t.Fatalf("import: %d %s", rec.Code, rec.Body)
		}
		ep = decodeJSON[effective](t, ta.api(t, "GET", "/api/prices?provider_type=openai&model=gpt-4o", ""))
		if ep.of("input") != "3 catalog" || ep.CatalogTaken != "2026-12-01" || ep.of("cache_read") != "3 derived" {
			t.Errorf("after the import: %+v", ep)
		}
		if rec := ta.api(t, "PUT", "/api/prices/catalog", `{"x": 1}`); rec.Code != 400 {
			t.Errorf("a file with no model: %d %s", rec.Code, rec.Body)
		}
		if rec := ta.api(t, "DELETE", "/api/prices/catalog", ""); rec.Code != 204 {
			t.Fatalf("reset: %d", rec.Code)
		}
		if ep := decodeJSON[effective](t, ta.api(t, "GET", "/api/prices?provider_type=openai&model=gpt-4o", "")); ep.of("input") != "2.5 catalog" {
			t.Errorf("after the reset: %+v", ep)
		}
	})
}
