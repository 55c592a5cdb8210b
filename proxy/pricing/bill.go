package pricing

import (
	"gateway/models"
	"gateway/proxy/translate"
)

// Usage is an answer's token count in the gateway's one meaning, which each
// protocol's reader gives whatever its vendor counts (see translate.Usage).
type Usage = translate.Usage

// Counts are a usage's tokens by class: what each vendor bills apart.
// Upstreams that report more cached tokens than prompt tokens get no
// negative input.
func Counts(u Usage) [numClasses]int64 {
	write1h := min(max(u.CacheWrite1hTokens, 0), max(u.CacheWriteTokens, 0))
	return [numClasses]int64{
		Input:        max(u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens, 0),
		CacheRead:    max(u.CacheReadTokens, 0),
		CacheWrite:   max(u.CacheWriteTokens, 0) - write1h,
		CacheWrite1h: write1h,
		Output:       max(u.OutputTokens, 0),
	}
}

// Bill is what a request cost, by part.
type Bill struct {
	Input, CacheRead, CacheWrite, Output Cost
	// Known: every token had a price; the cost is unknown otherwise, and
	// the parts are what the priced tokens cost.
	Known bool
	// Long: the input was past the long-context threshold, and every token
	// took the long prices.
	Long bool
	// Source is where the prices billed came from (see
	// models.RequestLog.PriceSource).
	Source string
}

// Total is the whole cost.
func (b *Bill) Total() Cost { return b.Input + b.CacheRead + b.CacheWrite + b.Output }

// Bill prices a usage. Past the long-context threshold (the whole input,
// cached tokens included) every token takes the long prices, output too.
func (p *Prices) Bill(u Usage) Bill {
	n := Counts(u)
	tier := &p.Base
	b := Bill{Known: true}
	if p.LongThreshold > 0 && u.InputTokens > p.LongThreshold {
		tier, b.Long = &p.Long, true
	}
	var parts [numClasses]Cost
	var fromEntry, fromCatalog bool
	for c, tokens := range n {
		if tokens == 0 {
			continue
		}
		price := tier[c]
		if !price.Known() {
			b.Known = false
			continue
		}
		parts[c] = price.Rate.times(tokens)
		fromEntry = fromEntry || price.origin == models.PriceSourceEntry
		fromCatalog = fromCatalog || price.origin == models.PriceSourceCatalog
	}
	b.Input, b.CacheRead, b.Output = parts[Input], parts[CacheRead], parts[Output]
	b.CacheWrite = parts[CacheWrite] + parts[CacheWrite1h]
	switch {
	case !b.Known:
		b.Source = models.PriceSourceNone
	case fromEntry && fromCatalog:
		b.Source = models.PriceSourceEntry + "+" + models.PriceSourceCatalog
	case fromEntry:
		b.Source = models.PriceSourceEntry
	case fromCatalog:
		b.Source = models.PriceSourceCatalog
	}
	return b
}

// Row writes the bill and the usage onto a request-log row. InputTokens
// keeps every prompt token (cached included); the cache columns say how
// many of them were read from or written to the cache.
func (b *Bill) Row(u Usage, row *models.RequestLog) {
	row.InputTokens, row.OutputTokens = u.InputTokens, u.OutputTokens
	row.CacheReadTokens, row.CacheWriteTokens = u.CacheReadTokens, u.CacheWriteTokens
	row.CacheWrite1hTokens, row.ReasoningTokens = u.CacheWrite1hTokens, u.ReasoningTokens
	// An unknown cost is 0 in CostUSD, which budgets and spend add up, and
	// PriceSource none says it is unknown; the parts keep what the priced
	// tokens cost.
	row.CostUSD = 0
	if b.Known {
		row.CostUSD = b.Total().USD()
	}
	row.CostInputUSD, row.CostCacheReadUSD = b.Input.USD(), b.CacheRead.USD()
	row.CostCacheWriteUSD, row.CostOutputUSD = b.CacheWrite.USD(), b.Output.USD()
	row.PriceSource, row.LongContext = b.Source, b.Long
}
