package pricing

import (
	"strings"

	"gateway/models"
)

// Class is a kind of token that vendors bill at a price of its own.
type Class int

// The token classes. Input is input that was neither read from nor written
// to the prompt cache; CacheWrite is a write the cache keeps for 5 minutes,
// CacheWrite1h one it keeps for an hour. Reasoning is output.
const (
	Input Class = iota
	CacheRead
	CacheWrite
	CacheWrite1h
	Output
	numClasses
)

// Classes are the token classes in the order pages and answers list them.
var Classes = [numClasses]Class{Input, CacheRead, CacheWrite, CacheWrite1h, Output}

var classNames = [numClasses]string{"input", "cache_read", "cache_write", "cache_write_1h", "output"}

// String is the class's name in answers: the entry field's name without
// "_price".
func (c Class) String() string { return classNames[c] }

// SourceDerived marks a price that neither the entry nor the catalog has,
// worked out from the input price by the vendor's rule (see derive).
const SourceDerived = "derived"

// Price is one class's price and where it comes from: models.PriceSourceEntry,
// models.PriceSourceCatalog, SourceDerived, or models.PriceSourceNone (then
// Rate is 0 and the class cannot be billed).
type Price struct {
	Rate   Rate
	Source string
	// origin is where a derived price's base came from (entry or catalog);
	// the source itself otherwise.
	origin string
}

// Known reports whether the class has a price.
func (p Price) Known() bool { return p.Source != models.PriceSourceNone && p.Source != "" }

// Tier is a price for each class.
type Tier [numClasses]Price

// Of is the price of class c.
func (t *Tier) Of(c Class) Price { return t[c] }

// Prices are what a member's tokens cost: the entry's own prices where it
// has them, the catalog's where it has not, and the cache prices a vendor
// derives from the input price where neither has them.
type Prices struct {
	Base Tier
	// Long applies to every token of a request whose input (cached tokens
	// included) is more than LongThreshold tokens; 0 is no long tier.
	Long            Tier
	LongThreshold   int64
	ThresholdSource string
	// Catalog is the catalog row that filled in, nil when none did.
	Catalog *Row
}

// Priced reports whether the member's tokens can be billed: it has an
// input and an output price (the cache prices derive from the input's).
func (p *Prices) Priced() bool { return p.Base[Input].Known() && p.Base[Output].Known() }

// Family is how a model's vendor prices its cache.
type Family int

const (
	// FamilyOther bills cache reads and writes at their own prices where a
	// list says, and as plain input where none does: OpenAI-compatible
	// servers without a cache price bill cached tokens as input.
	FamilyOther Family = iota
	// FamilyClaude is Anthropic's models wherever they are served
	// (Anthropic, Bedrock, Vertex AI), whose cache prices are fixed
	// multiples of the input price: a 5-minute write 1.25 times it, a
	// 1-hour write 2 times, a read a tenth.
	FamilyClaude
)

// FamilyOf is the family of a model as a provider type serves it.
func FamilyOf(providerType, model string) Family {
	switch providerType {
	case models.APITypeAnthropic:
		return FamilyClaude
	case models.APITypeBedrock, models.APITypeVertex:
		if strings.Contains(model, "claude") || strings.Contains(model, "anthropic.") {
			return FamilyClaude
		}
	}
	return FamilyOther
}

// Effective is the prices of an entry's model: each of the entry's own
// prices, else the catalog row's (row may be nil), else derived or none.
func Effective(entry models.Prices, row *Row, f Family) Prices {
	var p Prices
	own := entryTiers(entry)
	var listed [2][numClasses]*float64
	var threshold *int64
	if row != nil {
		listed, threshold = row.tiers(), row.LongContextThreshold
		p.Catalog = row
	}
	for t, tier := range []*Tier{&p.Base, &p.Long} {
		for c := range numClasses {
			tier[c] = pick(own[t][c], listed[t][c])
		}
	}
	switch {
	case entry.LongContextThreshold != nil && *entry.LongContextThreshold > 0:
		p.LongThreshold, p.ThresholdSource = *entry.LongContextThreshold, models.PriceSourceEntry
	case threshold != nil && *threshold > 0:
		p.LongThreshold, p.ThresholdSource = *threshold, models.PriceSourceCatalog
	default:
		p.ThresholdSource = models.PriceSourceNone
	}
	derive(&p.Base, nil, f)
	if p.LongThreshold > 0 {
		derive(&p.Long, &p.Base, f)
	} else {
		p.Long = Tier{}
	}
	return p
}

// pick is the entry's price, else the catalog's, else none.
func pick(own, listed *float64) Price {
	for _, v := range []struct {
		p      *float64
		source string
	}{{own, models.PriceSourceEntry}, {listed, models.PriceSourceCatalog}} {
		if v.p == nil {
			continue
		}
		if r, ok := RateOf(*v.p); ok {
			return Price{Rate: r, Source: v.source, origin: v.source}
		}
	}
	return Price{Source: models.PriceSourceNone}
}

// derive fills in the prices a tier lacks. In the base tier cache prices
// come from the input price: for Claude by Anthropic's multiples, for the
// others as input (a 1-hour write at the 5-minute write's price). A long
// tier's missing input and output prices are the base tier's; its cache
// prices come from its input price for Claude, and are the base tier's for
// the others.
func derive(t *Tier, base *Tier, f Family) {
	if base != nil {
		for _, c := range []Class{Input, Output} {
			fill(t, c, derived(base[c], 1, 1))
		}
	}
	in := t[Input]
	switch {
	case f == FamilyClaude:
		fill(t, CacheRead, derived(in, 1, 10))
		fill(t, CacheWrite, derived(in, 5, 4))
		fill(t, CacheWrite1h, derived(in, 2, 1))
	case base != nil:
		for _, c := range []Class{CacheRead, CacheWrite, CacheWrite1h} {
			fill(t, c, derived(base[c], 1, 1))
		}
	default:
		fill(t, CacheRead, derived(in, 1, 1))
		fill(t, CacheWrite, derived(in, 1, 1))
		fill(t, CacheWrite1h, derived(t[CacheWrite], 1, 1))
	}
}

func fill(t *Tier, c Class, p Price) {
	if !t[c].Known() {
		t[c] = p
	}
}

// derived is p times num/den, marked as derived from p's origin.
func derived(p Price, num, den int64) Price {
	if !p.Known() {
		return Price{Source: models.PriceSourceNone}
	}
	return Price{Rate: p.Rate.scaled(num, den), Source: SourceDerived, origin: p.origin}
}

// entryTiers are an entry's prices by tier and class.
func entryTiers(e models.Prices) [2][numClasses]*float64 {
	return [2][numClasses]*float64{
		{e.InputPrice, e.CacheReadPrice, e.CacheWritePrice, e.CacheWrite1hPrice, e.OutputPrice},
		{e.LongInputPrice, e.LongCacheReadPrice, e.LongCacheWritePrice, e.LongCacheWrite1hPrice, e.LongOutputPrice},
	}
}

// ListPrice is the input and output prices added, per million tokens, and
// whether both are known: what a cost-based pool compares.
func (p *Prices) ListPrice() (float64, bool) {
	return p.Base[Input].Rate.PerMillion() + p.Base[Output].Rate.PerMillion(), p.Priced()
}

// WorstRates are the dearest rates a request of about promptTokens input
// tokens may be billed at: for input the dearest of plain input and cache
// writes, for output the output's, in the long tier when the prompt may be
// past its threshold. Unknown prices count as 0.
func (p *Prices) WorstRates(promptTokens int64) (in, out Rate) {
	tier := &p.Base
	if p.LongThreshold > 0 && promptTokens > p.LongThreshold {
		tier = &p.Long
	}
	for _, c := range []Class{Input, CacheWrite, CacheWrite1h} {
		in = max(in, tier[c].Rate)
	}
	return in, tier[Output].Rate
}

// Origin is where a derived price's base came from (entry or catalog); a
// price's own source otherwise.
func (p Price) Origin() string { return p.origin }
