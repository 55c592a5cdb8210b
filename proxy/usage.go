package proxy

import (
	"encoding/json"
	"strconv"
)

// usage is OpenAI's token count. prompt_tokens includes the cached ones.
type usage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	PromptTokensDetails struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

// usageFromBody reads the usage of a non-streaming answer, if it has one.
func usageFromBody(body []byte) (usage, bool) {
	var v struct {
		Usage *usage `json:"usage"`
	}
	if json.Unmarshal(body, &v) != nil || v.Usage == nil {
		return usage{}, false
	}
	return *v.Usage, true
}

// cost is the price of u at the member's prices (USD per million tokens).
// Cached input is priced at the cache-read price when the entry has one, and
// as ordinary input otherwise.
func (m *member) cost(u usage) float64 {
	input := float64(u.PromptTokens) * m.inputPrice
	if m.hasCacheRead {
		cached := min(max(u.PromptTokensDetails.CachedTokens, 0), u.PromptTokens)
		input = float64(u.PromptTokens-cached)*m.inputPrice + float64(cached)*m.cacheReadPrice
	}
	return (input + float64(u.CompletionTokens)*m.outputPrice) / 1e6
}

// account records the usage and its cost. InputTokens keeps OpenAI's meaning
// (cached tokens included); CacheReadTokens says how many of them were cached.
func (x *exchange) account(u usage) {
	x.row.InputTokens = u.PromptTokens
	x.row.OutputTokens = u.CompletionTokens
	x.row.CacheReadTokens = u.PromptTokensDetails.CachedTokens
	x.row.CostUSD = x.member.cost(u)
}

func formatCost(usd float64) string {
	return strconv.FormatFloat(usd, 'f', -1, 64)
}
