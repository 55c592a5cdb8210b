package proxy

import (
	"encoding/json"
	"strconv"

	"gateway/proxy/translate"
)

// usage is one answer's token count in OpenAI's meaning: input includes the
// cached tokens (see translate.Usage).
type usage = translate.Usage

// usageFromBody reads the usage of a whole answer in the upstream's protocol.
// The answer goes on as it came; only its top-level "usage" is decoded
// (validJSON first makes the scanner safe on whatever the upstream sent):
// decoding the whole answer to find it cost twice as much.
func usageFromBody(body []byte, p protocol) (usage, bool) {
	if !validJSON(body) {
		return usage{}, false
	}
	open := skipSpace(body, 0)
	if body[open] != '{' {
		return usage{}, false
	}
	var found span
	sc := newObjectScanner(body, open)
	for key, val, ok := sc.next(); ok; key, val, ok = sc.next() {
		if keyIs(key, "usage") {
			found = val // the last one, as a decoder would keep
		}
	}
	if !found.found() {
		return usage{}, false
	}
	return usageObject(body[found.start:found.end], p)
}

// usageObject reads a usage object in protocol p.
func usageObject(raw json.RawMessage, p protocol) (usage, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return usage{}, false
	}
	switch p {
	case protoAnthropic:
		return translate.MessagesUsage(raw)
	case protoResponses:
		return translate.ResponsesUsage(raw)
	}
	return translate.ChatUsage(raw)
}

// cost is the price of u at the member's prices (USD per million tokens).
// Cached input is priced at the cache-read price when the entry has one, and
// as ordinary input otherwise.
func (m *member) cost(u usage) float64 {
	input := float64(u.InputTokens) * m.inputPrice
	if m.hasCacheRead {
		cached := min(max(u.CacheReadTokens, 0), u.InputTokens)
		input = float64(u.InputTokens-cached)*m.inputPrice + float64(cached)*m.cacheReadPrice
	}
	return (input + float64(u.OutputTokens)*m.outputPrice) / 1e6
}

// account records the usage and its cost. InputTokens keeps OpenAI's meaning
// (cached tokens included); the cache columns say how many of them were
// read from or written to the cache.
func (x *exchange) account(u usage) {
	x.row.InputTokens = u.InputTokens
	x.row.OutputTokens = u.OutputTokens
	x.row.CacheReadTokens = u.CacheReadTokens
	x.row.CacheWriteTokens = u.CacheWriteTokens
	x.row.CostUSD = x.member.cost(u)
}

func formatCost(usd float64) string {
	return strconv.FormatFloat(usd, 'f', -1, 64)
}
