package proxy

import (
	"encoding/json"

	"gateway/proxy/jsonscan"
	"gateway/proxy/translate"
)

// usage is one answer's token count in OpenAI's meaning: input includes the
// cached tokens (see translate.Usage).
type usage = translate.Usage

// usageFromBody reads the usage of a whole answer in the upstream's protocol.
// The answer goes on as it came; only its top-level "usage" is decoded
// (jsonscan.Valid first makes the scanner safe on whatever the upstream sent):
// decoding the whole answer to find it cost twice as much.
func usageFromBody(body []byte, p protocol) (usage, bool) {
	if !jsonscan.Valid(body) {
		return usage{}, false
	}
	open := jsonscan.SkipSpace(body, 0)
	if body[open] != '{' {
		return usage{}, false
	}
	var found jsonscan.Span
	sc := jsonscan.NewObject(body, open)
	for key, val, ok := sc.Next(); ok; key, val, ok = sc.Next() {
		if jsonscan.KeyIs(key, "usage") {
			found = val // the last one, as a decoder would keep
		}
	}
	if !found.Found() {
		return usage{}, false
	}
	return usageObject(body[found.Start:found.End], p)
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

// account bills the usage at the attempt's prices and writes both onto
// the row (see pricing.Bill.Row), and returns the cost as the
// X-Gateway-Cost-Usd header says it: an exact decimal, or "unknown" when
// some of the tokens had no price.
func (x *exchange) account(u usage) string {
	bill := x.prices.Bill(u)
	bill.Row(u, &x.row)
	if !bill.Known {
		return costUnknown
	}
	return bill.Total().String()
}

// costUnknown is the cost header of a request some of whose tokens had no
// price.
const costUnknown = "unknown"
