package pricing_test

import (
	"testing"

	"gateway/models"
	"gateway/proxy/pricing"
)

// listPrice is a vendor's list price of one model, USD per million tokens,
// as its pricing page gave it on the catalog's date (0: not listed).
type listPrice struct {
	providerType, model                        string
	input, output, cacheRead, write5m, write1h float64
}

// TestCatalogRowsAreListPrices checks rows of the built-in catalog against
// the vendors' pricing pages, under each id a vendor gives the same model.
func TestCatalogRowsAreListPrices(t *testing.T) {
	for _, lp := range []listPrice{
		// anthropic.com/pricing: write 5 m = 1.25 × input, 1 h = 2 ×, read 0.1 ×.
		{models.APITypeAnthropic, "claude-sonnet-4-5", 3, 15, 0.3, 3.75, 6},
		{models.APITypeAnthropic, "claude-sonnet-4-5-20250929", 3, 15, 0.3, 3.75, 6},
		{models.APITypeAnthropic, "claude-opus-4-1", 15, 75, 1.5, 18.75, 30},
		{models.APITypeAnthropic, "claude-haiku-4-5", 1, 5, 0.1, 1.25, 2},
		// Haiku 3's cache prices are not the multiples: Anthropic lists them.
		{models.APITypeAnthropic, "claude-3-haiku-20240307", 0.25, 1.25, 0.03, 0.3, 0.5},
		// Bedrock and Vertex AI: the same model at Anthropic's prices; a
		// Bedrock regional profile 10 % more, a global one not.
		{models.APITypeBedrock, "anthropic.claude-sonnet-4-5-20250929-v1:0", 3, 15, 0.3, 3.75, 6},
		{models.APITypeBedrock, "global.anthropic.claude-sonnet-4-5-20250929-v1:0", 3, 15, 0.3, 3.75, 6},
		{models.APITypeBedrock, "us.anthropic.claude-sonnet-4-5-20250929-v1:0", 3.3, 16.5, 0.33, 4.125, 6.6},
		{models.APITypeBedrock, "arn:aws:bedrock:us-east-1:123456789012:inference-profile/global.anthropic.claude-sonnet-4-5-20250929-v1:0", 3, 15, 0.3, 3.75, 6},
		{models.APITypeVertex, "claude-sonnet-4-5@20250929", 3, 15, 0.3, 3.75, 6},
		// openai.com/api/pricing: cached input at the cache-read price.
		{models.APITypeOpenAI, "gpt-4o", 2.5, 10, 1.25, 0, 0},
		{models.APITypeOpenAI, "gpt-4o-2024-08-06", 2.5, 10, 1.25, 0, 0},
		{models.APITypeOpenAI, "gpt-5", 1.25, 10, 0.125, 0, 0},
		{models.APITypeAzure, "gpt-4o", 2.5, 10, 1.25, 0, 0}, // an Azure deployment of gpt-4o, by its base model
		// ai.google.dev/pricing: context caching at its own price.
		{models.APITypeGemini, "gemini-2.5-flash", 0.3, 2.5, 0.03, 0, 0},
		{models.APITypeGemini, "models/gemini-2.5-flash", 0.3, 2.5, 0.03, 0, 0},
		{models.APITypeVertex, "gemini-2.5-flash", 0.3, 2.5, 0.03, 0, 0},
	} {
		r := pricing.Builtin().Lookup(lp.providerType, lp.model)
		if r == nil {
			t.Errorf("%s %s: not in the catalog", lp.providerType, lp.model)
			continue
		}
		for _, c := range []struct {
			name string
			got  *float64
			want float64
		}{{"input", r.Input, lp.input}, {"output", r.Output, lp.output}, {"cache_read", r.CacheRead, lp.cacheRead},
			{"cache_write", r.CacheWrite, lp.write5m}, {"cache_write_1h", r.CacheWrite1h, lp.write1h}} {
			if c.want == 0 {
				continue
			}
			if c.got == nil || *c.got != c.want {
				t.Errorf("%s %s: %s %v, want %v", lp.providerType, lp.model, c.name, deref(c.got), c.want)
			}
		}
	}
	if pricing.Builtin().Taken != "2026-07-09" {
		t.Errorf("the catalog was taken on %s; the README says 2026-07-09", pricing.Builtin().Taken)
	}
	if r := pricing.Builtin().Lookup(models.APITypeOpenAI, "claude-sonnet-4-5"); r != nil {
		t.Errorf("an OpenAI-compatible member of a Claude name found %s's row: a provider type prices only its own ids", r.ProviderType)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestEveryCatalogRowBills: every built-in row prices input and output,
// and a Claude row's cache prices are those Anthropic's multiples give or
// (older models) the ones it lists, never more than double the input.
func TestEveryCatalogRowBills(t *testing.T) {
	rows := pricing.Builtin().Rows()
	if len(rows) < 100 {
		t.Fatalf("the catalog has %d rows", len(rows))
	}
	for _, r := range rows {
		p := pricing.ForEntry(pricing.Builtin(), r.ProviderType, &models.Deployment{}, r.Model)
		if !p.Priced() {
			t.Errorf("%s %s: not priced", r.ProviderType, r.Model)
		}
		if pricing.FamilyOf(r.ProviderType, r.Model) == pricing.FamilyClaude && r.Input != nil && r.CacheWrite1h != nil &&
			*r.CacheWrite1h > 2**r.Input+1e-9 {
			t.Errorf("%s %s: 1-hour write %v more than twice the input %v", r.ProviderType, r.Model, *r.CacheWrite1h, *r.Input)
		}
	}
}

func TestDecimalHasNoFloatNoise(t *testing.T) {
	for in, want := range map[float64]string{
		2.8000000000000003: "2.8", 0.000008700000000000001: "0.0000087", 0.1 + 0.2: "0.3", 1e-7: "0.0000001",
		1234.5: "1234.5", 0: "0", 15: "15", -0.25: "-0.25", 0.031509: "0.031509",
	} {
		if got := pricing.Decimal(in); got != want {
			t.Errorf("Decimal(%v) = %q, want %q", in, got, want)
		}
	}
}

// usage is a request's tokens in the gateway's meaning: input counts every
// prompt token, cached ones included.
func usage(input, read, write, write1h, output int64) pricing.Usage {
	return pricing.Usage{InputTokens: input, CacheReadTokens: read, CacheWriteTokens: write, CacheWrite1hTokens: write1h, OutputTokens: output}
}

// TestBillsByVendorRules: each token class at its price, hand-computed.
func TestBillsByVendorRules(t *testing.T) {
	cat := pricing.Builtin()
	for _, tc := range []struct {
		name, providerType, model string
		entry                     models.Prices
		u                         pricing.Usage
		want                      string // USD
		source                    string
		long                      bool
	}{
		// 3×3 + 40,000×0.3 + 2,000×6 + 500×15 micro-dollars.
		{"Claude Code turn", models.APITypeAnthropic, "claude-sonnet-4-5", models.Prices{}, usage(42003, 40000, 2000, 2000, 500), "0.031509", "catalog", false},
		// The same writes kept 5 minutes: 2,000 × 3.75.
		{"5-minute writes", models.APITypeAnthropic, "claude-sonnet-4-5", models.Prices{}, usage(42003, 40000, 2000, 0, 500), "0.027009", "catalog", false},
		// OpenAI: 1,000 of the 1,200 prompt tokens cached at 1.25, 200 at
		// 2.5, 300 output (200 of them reasoning) at 10.
		{"OpenAI cached prompt", models.APITypeOpenAI, "gpt-4o", models.Prices{}, pricing.Usage{InputTokens: 1200, CacheReadTokens: 1000, OutputTokens: 300, ReasoningTokens: 200}, "0.00475", "catalog", false},
		// Gemini: 1,000 of 1,200 prompt tokens from the context cache at
		// 0.03, 200 at 0.3; output 200 candidates + 100 thoughts at 2.5.
		{"Gemini cached content", models.APITypeGemini, "gemini-2.5-flash", models.Prices{}, usage(1200, 1000, 0, 0, 300), "0.00084", "catalog", false},
		// Past 200k input tokens every token takes the long prices:
		// 150,000×6 + 60,000×0.6 + 1,000×22.5.
		{"long context", models.APITypeAnthropic, "claude-sonnet-4-5", models.Prices{}, usage(210000, 60000, 0, 0, 1000), "0.9585", "catalog", true},
		// At the threshold exactly: base prices. 200,000×3 + 1,000×15.
		{"at the threshold", models.APITypeAnthropic, "claude-sonnet-4-5", models.Prices{}, usage(200000, 0, 0, 0, 1000), "0.615", "catalog", false},
		// The entry's input price wins; Claude's cache prices follow from
		// it (read 0.2, 1 h write 4) where the entry has none... but the
		// catalog's own cache prices come first.
		{"entry input over catalog", models.APITypeAnthropic, "claude-sonnet-4-5", models.Prices{InputPrice: ptr(2)}, usage(42003, 40000, 2000, 2000, 500), "0.031506", "entry+catalog", false},
		// No row: the entry's input and output, Claude's multiples for the
		// cache: 3×2 + 40,000×0.2 + 2,000×4 + 500×10.
		{"Claude multiples", models.APITypeAnthropic, "claude-private-1", models.PricesOf(2, 10), usage(42003, 40000, 2000, 2000, 500), "0.021006", "entry", false},
		// No row, not Claude: cached tokens are input. 1,200×1 + 300×2.
		{"others bill the cache as input", models.APITypeOpenAI, "local-llama", models.PricesOf(1, 2), pricing.Usage{InputTokens: 1200, CacheReadTokens: 1000, OutputTokens: 300}, "0.0018", "entry", false},
		// A free model is priced: 0.
		{"free", models.APITypeOpenAI, "local-llama", models.PricesOf(0, 0), usage(1200, 0, 0, 0, 300), "0", "entry", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := pricing.ForEntry(cat, tc.providerType, &models.Deployment{Prices: tc.entry}, tc.model)
			b := p.Bill(tc.u)
			if got := b.Total().String(); got != tc.want || !b.Known || b.Source != tc.source || b.Long != tc.long {
				t.Errorf("bill %s (known %v, source %q, long %v), want %s (known, %q, long %v)", got, b.Known, b.Source, b.Long, tc.want, tc.source, tc.long)
			}
		})
	}
}

func ptr(f float64) *float64 { return &f }

// TestUnpricedIsUnknown: a model priced nowhere bills nothing as known,
// and says so; an entry with an output price only is not priced either.
func TestUnpricedIsUnknown(t *testing.T) {
	p := pricing.ForEntry(pricing.Builtin(), models.APITypeOpenAI, &models.Deployment{}, "llama-3.3-70b")
	if p.Priced() {
		t.Fatal("a model in no catalog row is priced")
	}
	if b := p.Bill(usage(100, 0, 0, 0, 10)); b.Known || b.Source != models.PriceSourceNone || b.Total() != 0 {
		t.Errorf("bill %+v, want unknown from none", b)
	}
	out := models.Prices{OutputPrice: ptr(2)}
	half := pricing.ForEntry(pricing.Builtin(), models.APITypeOpenAI, &models.Deployment{Prices: out}, "llama-3.3-70b")
	if half.Priced() {
		t.Error("an output price alone prices the model")
	}
	// The row: no cost for budgets and spend to add, the priced part kept.
	var row models.RequestLog
	u := usage(100, 0, 0, 0, 10)
	b := half.Bill(u)
	b.Row(u, &row)
	if row.CostUSD != 0 || row.CostKnown() || row.CostOutputUSD != 0.00002 || row.InputTokens != 100 {
		t.Errorf("row of an unknown cost: cost %v known %v output part %v", row.CostUSD, row.CostKnown(), row.CostOutputUSD)
	}
	// Nothing to bill (a request that failed everywhere) is known: 0.
	if b := p.Bill(pricing.Usage{}); !b.Known || b.Total() != 0 {
		t.Errorf("an empty usage: %+v", b)
	}
}

// TestEffectivePriceSources: each class says where its price comes from.
func TestEffectivePriceSources(t *testing.T) {
	e := &models.Deployment{Prices: models.Prices{OutputPrice: ptr(12)}}
	p := pricing.ForEntry(pricing.Builtin(), models.APITypeAnthropic, e, "claude-sonnet-4-5")
	want := map[pricing.Class][2]string{pricing.Input: {"3", "catalog"}, pricing.Output: {"12", "entry"},
		pricing.CacheRead: {"0.3", "catalog"}, pricing.CacheWrite: {"3.75", "catalog"}, pricing.CacheWrite1h: {"6", "catalog"}}
	for c, w := range want {
		if got := p.Base.Of(c); got.Rate.String() != w[0] || got.Source != w[1] {
			t.Errorf("%s: %s from %s, want %s from %s", c, got.Rate, got.Source, w[0], w[1])
		}
	}
	// Without a row, Claude's cache prices are derived from the entry's input.
	p = pricing.ForEntry(pricing.Builtin(), models.APITypeBedrock, &models.Deployment{Prices: models.PricesOf(4, 20)}, "anthropic.claude-private-v1:0")
	if got := p.Base.Of(pricing.CacheWrite1h); got.Rate.String() != "8" || got.Source != pricing.SourceDerived || got.Origin() != "entry" {
		t.Errorf("derived 1-hour write: %s from %s (%s), want 8 derived from the entry", got.Rate, got.Source, got.Origin())
	}
	// An Azure deployment named by the admin is priced by its base model.
	az := &models.Deployment{BaseModel: "gpt-4o"}
	if p := pricing.ForEntry(pricing.Builtin(), models.APITypeAzure, az, "prod-chat-2"); !p.Priced() || p.Base.Of(pricing.Input).Rate.String() != "2.5" {
		t.Errorf("azure base_model gpt-4o: input %s", p.Base.Of(pricing.Input).Rate)
	}
}

// TestReadLiteLLMPrices: LiteLLM's file maps onto catalog rows per provider
// type, per-token prices become exact prices per million, the long tier
// and the 1-hour writes come along, and what the gateway cannot serve is
// left out.
func TestReadLiteLLMPrices(t *testing.T) {
	const file = `{
	"sample_spec": {"input_cost_per_token": 0, "litellm_provider": "one of https://docs.litellm.ai/docs/providers", "mode": "chat"},
	"claude-sonnet-4-5": {"litellm_provider": "anthropic", "mode": "chat", "input_cost_per_token": 3e-06, "output_cost_per_token": 1.5e-05,
		"cache_read_input_token_cost": 3e-07, "cache_creation_input_token_cost": 3.75e-06, "cache_creation_input_token_cost_above_1hr": 6e-06,
		"input_cost_per_token_above_200k_tokens": 6e-06, "output_cost_per_token_above_200k_tokens": 2.25e-05,
		"cache_creation_input_token_cost_above_1hr_above_200k_tokens": 1.2e-05, "max_input_tokens": 200000},
	"gemini/gemini-2.5-pro": {"litellm_provider": "gemini", "mode": "chat", "input_cost_per_token": 1.25e-06, "output_cost_per_token": 1e-05,
		"input_cost_per_token_above_200k_tokens": 2.5e-06},
	"vertex_ai/claude-opus-4-1@20250805": {"litellm_provider": "vertex_ai-anthropic_models", "mode": "chat", "input_cost_per_token": 1.5e-05, "output_cost_per_token": 7.5e-05},
	"bedrock/us-gov-west-1/anthropic.claude-3-haiku-20240307-v1:0": {"litellm_provider": "bedrock", "mode": "chat", "input_cost_per_token": 3e-07, "output_cost_per_token": 1.5e-06},
	"text-embedding-3-small": {"litellm_provider": "openai", "mode": "embedding", "input_cost_per_token": 2e-08},
	"dall-e-3": {"litellm_provider": "openai", "mode": "image_generation", "input_cost_per_pixel": 1e-08},
	"command-r": {"litellm_provider": "cohere_chat", "mode": "chat", "input_cost_per_token": 1.5e-07, "output_cost_per_token": 6e-07}
}`
	f, skipped, err := pricing.ReadFile([]byte(file), "2026-12-01")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Models) != 4 || skipped != 4 || f.Taken != "2026-12-01" {
		t.Fatalf("%d rows, %d left out, taken %s; want 4, 4 (sample_spec, a region's row, an image model, cohere), 2026-12-01", len(f.Models), skipped, f.Taken)
	}
	cat := pricing.New(f, pricing.Builtin())
	sonnet := cat.Lookup(models.APITypeAnthropic, "claude-sonnet-4-5")
	if sonnet == nil || *sonnet.Input != 3 || *sonnet.Output != 15 || *sonnet.CacheWrite1h != 6 || *sonnet.LongContextThreshold != 200000 ||
		*sonnet.LongOutput != 22.5 || *sonnet.LongCacheWrite1h != 12 || sonnet.LongCacheRead != nil {
		t.Errorf("claude-sonnet-4-5: %+v", sonnet)
	}
	if r := cat.Lookup(models.APITypeGemini, "gemini-2.5-pro"); r == nil || *r.Input != 1.25 || *r.LongInput != 2.5 {
		t.Errorf("gemini-2.5-pro: %+v", r)
	}
	if r := cat.Lookup(models.APITypeVertex, "claude-opus-4-1@20250805"); r == nil || *r.Output != 75 {
		t.Errorf("vertex claude-opus-4-1: %+v", r)
	}
	emb := pricing.ForEntry(cat, models.APITypeOpenAI, &models.Deployment{}, "text-embedding-3-small")
	if !emb.Priced() || emb.Base.Of(pricing.Input).Rate.String() != "0.02" {
		t.Errorf("an embedding model is priced by its input alone: %+v", emb.Base)
	}
	// The built-in rows the file did not name stay.
	if cat.Lookup(models.APITypeOpenAI, "gpt-4o") == nil || !cat.Imported {
		t.Error("the import replaced the whole built-in catalog")
	}
	for _, bad := range []string{`[]`, `{"x": {"litellm_provider": "cohere", "input_cost_per_token": 1}}`, `{"taken": "soon", "models": []}`} {
		if _, _, err := pricing.ReadFile([]byte(bad), "2026-12-01"); err == nil {
			t.Errorf("%s: read without an error", bad)
		}
	}
}

func TestCostAndRateStrings(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{pricing.Cost(31509000000000).String(), "0.031509"},
		{pricing.Cost(0).String(), "0"},
		{pricing.Cost(1).String(), "0.000000000000001"},
		{pricing.Cost(3_000_000_000_000_000).String(), "3"},
		{pricing.Cost(-250_000_000_000_000).String(), "-0.25"},
		{pricing.Cost(1_234_500_000_000_000_000).String(), "1234.5"},
		{pricing.Rate(3_750_000_000).String(), "3.75"},
		{pricing.Rate(1).String(), "0.000000001"},
	} {
		if tc.got != tc.want {
			t.Errorf("%q, want %q", tc.got, tc.want)
		}
	}
}
