package translate

import "encoding/json"

// Usage is the token count of one answer in one meaning, whatever the
// vendor counted: InputTokens counts every prompt token, cached or not;
// CacheReadTokens and CacheWriteTokens say how many of those were read from
// or written to the prompt cache (both are parts of InputTokens, never
// added to it), and CacheWrite1hTokens how many of the writes the cache
// keeps for an hour (the rest for 5 minutes). OutputTokens counts every
// output token, ReasoningTokens (a model's thinking) among them.
//
// What each vendor's counts include, which the readers below turn into it
// (and which the bill depends on):
//   - Anthropic (and Claude on Vertex AI): input_tokens leaves out both
//     cache_read_input_tokens and cache_creation_input_tokens; the
//     cache_creation object splits the writes into ephemeral_5m and
//     ephemeral_1h (all 5-minute without it); output_tokens includes
//     thinking. In a stream message_start carries the split and
//     message_delta the final counts, which replace the start's.
//   - OpenAI and Azure (Chat Completions and Responses): prompt_tokens
//     (input_tokens) includes cached_tokens and cache_write_tokens;
//     completion_tokens (output_tokens) includes reasoning_tokens.
//     DeepSeek reports its cache hits as prompt_cache_hit_tokens.
//   - Gemini (and on Vertex AI): promptTokenCount includes
//     cachedContentTokenCount; toolUsePromptTokenCount is input beside it;
//     thoughtsTokenCount is output beside candidatesTokenCount.
//   - Bedrock Converse: inputTokens leaves out cacheReadInputTokens and
//     cacheWriteInputTokens; cacheDetails splits the writes by ttl.
type Usage struct {
	InputTokens        int64
	OutputTokens       int64
	CacheReadTokens    int64
	CacheWriteTokens   int64
	CacheWrite1hTokens int64
	ReasoningTokens    int64
}

// AnthropicUsage is the usage of Anthropic's counts: input (uncached),
// cache reads, cache writes (of both lengths), the 1-hour writes among
// them, and output.
func AnthropicUsage(input, cacheRead, cacheWrite, cacheWrite1h, output int64) Usage {
	return Usage{
		InputTokens:        input + cacheRead + cacheWrite,
		OutputTokens:       output,
		CacheReadTokens:    cacheRead,
		CacheWriteTokens:   cacheWrite,
		CacheWrite1hTokens: cacheWrite1h,
	}
}

// anthropicUsage is Anthropic's usage object.
type anthropicUsage struct {
	InputTokens              int64 `json:"input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	// CacheCreation splits CacheCreationInputTokens by how long the cache
	// keeps them; written only when some are kept for an hour.
	CacheCreation anthropicCacheCreation `json:"cache_creation,omitzero"`
}

type anthropicCacheCreation struct {
	Ephemeral5m int64 `json:"ephemeral_5m_input_tokens"`
	Ephemeral1h int64 `json:"ephemeral_1h_input_tokens"`
}

func (u anthropicUsage) usage() Usage {
	return AnthropicUsage(u.InputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens,
		u.CacheCreation.Ephemeral1h, u.OutputTokens)
}

// anthropic gives u in Anthropic's meaning. Input that the cache counts do
// not fit in (an upstream that reports more cached than prompt tokens) is
// clamped at zero rather than going negative.
func (u Usage) anthropic() anthropicUsage {
	a := anthropicUsage{
		InputTokens:              max(u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens, 0),
		CacheCreationInputTokens: u.CacheWriteTokens,
		CacheReadInputTokens:     u.CacheReadTokens,
		OutputTokens:             u.OutputTokens,
	}
	if u.CacheWrite1hTokens > 0 {
		a.CacheCreation = anthropicCacheCreation{Ephemeral5m: max(u.CacheWriteTokens-u.CacheWrite1hTokens, 0),
			Ephemeral1h: u.CacheWrite1hTokens}
	}
	return a
}

// chatUsage is OpenAI's usage object.
type chatUsage struct {
	PromptTokens            int64                  `json:"prompt_tokens"`
	CompletionTokens        int64                  `json:"completion_tokens"`
	TotalTokens             int64                  `json:"total_tokens"`
	PromptTokensDetails     *chatPromptDetails     `json:"prompt_tokens_details,omitempty"`
	CompletionTokensDetails *chatCompletionDetails `json:"completion_tokens_details,omitempty"`
	// PromptCacheHitTokens is DeepSeek's count of cached prompt tokens.
	PromptCacheHitTokens int64 `json:"prompt_cache_hit_tokens,omitempty"`
}

// chatPromptDetails splits prompt_tokens. cache_write_tokens is recent in
// OpenAI's API (openai-go v3 knows it); it is written only when non-zero.
type chatPromptDetails struct {
	CachedTokens     int64 `json:"cached_tokens"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
}

// chatCompletionDetails splits completion_tokens.
type chatCompletionDetails struct {
	ReasoningTokens int64 `json:"reasoning_tokens"`
}

func (u chatUsage) usage() Usage {
	out := Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
	if d := u.PromptTokensDetails; d != nil {
		out.CacheReadTokens = d.CachedTokens
		out.CacheWriteTokens = d.CacheWriteTokens
	}
	if out.CacheReadTokens == 0 {
		out.CacheReadTokens = u.PromptCacheHitTokens
	}
	if d := u.CompletionTokensDetails; d != nil {
		out.ReasoningTokens = d.ReasoningTokens
	}
	return out
}

// chat gives u as OpenAI's usage object; the reasoning tokens are written
// only when there are some.
func (u Usage) chat() chatUsage {
	c := chatUsage{
		PromptTokens:     u.InputTokens,
		CompletionTokens: u.OutputTokens,
		TotalTokens:      u.InputTokens + u.OutputTokens,
		PromptTokensDetails: &chatPromptDetails{
			CachedTokens:     u.CacheReadTokens,
			CacheWriteTokens: u.CacheWriteTokens,
		},
	}
	if u.ReasoningTokens > 0 {
		c.CompletionTokensDetails = &chatCompletionDetails{ReasoningTokens: u.ReasoningTokens}
	}
	return c
}

// responsesUsage is the Responses usage object; input_tokens counts cached
// tokens too, as OpenAI's prompt_tokens does.
type responsesUsage struct {
	InputTokens         int64                  `json:"input_tokens"`
	InputTokensDetails  responsesInputDetails  `json:"input_tokens_details"`
	OutputTokens        int64                  `json:"output_tokens"`
	OutputTokensDetails responsesOutputDetails `json:"output_tokens_details"`
	TotalTokens         int64                  `json:"total_tokens"`
}

// responsesInputDetails: cache_write_tokens is written only when non-zero,
// as in chatPromptDetails.
type responsesInputDetails struct {
	CachedTokens     int64 `json:"cached_tokens"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
}

type responsesOutputDetails struct {
	ReasoningTokens int64 `json:"reasoning_tokens"`
}

func (u responsesUsage) usage() Usage {
	return Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheReadTokens: u.InputTokensDetails.CachedTokens, CacheWriteTokens: u.InputTokensDetails.CacheWriteTokens,
		ReasoningTokens: u.OutputTokensDetails.ReasoningTokens}
}

// responses gives u as a Responses usage object.
func (u Usage) responses() responsesUsage {
	return responsesUsage{
		InputTokens:         u.InputTokens,
		InputTokensDetails:  responsesInputDetails{CachedTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens},
		OutputTokens:        u.OutputTokens,
		OutputTokensDetails: responsesOutputDetails{ReasoningTokens: u.ReasoningTokens},
		TotalTokens:         u.InputTokens + u.OutputTokens,
	}
}

// geminiUsage is usageMetadata.
type geminiUsage struct {
	PromptTokenCount        int64 `json:"promptTokenCount"`
	CandidatesTokenCount    int64 `json:"candidatesTokenCount"`
	ThoughtsTokenCount      int64 `json:"thoughtsTokenCount"`
	CachedContentTokenCount int64 `json:"cachedContentTokenCount"`
	ToolUsePromptTokenCount int64 `json:"toolUsePromptTokenCount"`
	TotalTokenCount         int64 `json:"totalTokenCount"`
}

func (u *geminiUsage) usage() Usage {
	if u == nil {
		return Usage{}
	}
	return Usage{
		InputTokens:     u.PromptTokenCount + u.ToolUsePromptTokenCount,
		OutputTokens:    u.CandidatesTokenCount + u.ThoughtsTokenCount,
		CacheReadTokens: u.CachedContentTokenCount,
		ReasoningTokens: u.ThoughtsTokenCount,
	}
}

// converseUsage is Converse's TokenUsage; totalTokens is the sum of the
// other four.
type converseUsage struct {
	InputTokens           int64                 `json:"inputTokens"`
	OutputTokens          int64                 `json:"outputTokens"`
	TotalTokens           int64                 `json:"totalTokens"`
	CacheReadInputTokens  int64                 `json:"cacheReadInputTokens"`
	CacheWriteInputTokens int64                 `json:"cacheWriteInputTokens"`
	CacheDetails          []converseCacheDetail `json:"cacheDetails"`
}

// converseCacheDetail is the cache writes of one TTL ("5m" or "1h").
type converseCacheDetail struct {
	InputTokens int64  `json:"inputTokens"`
	TTL         string `json:"ttl"`
}

func (u converseUsage) usage() Usage {
	var write1h int64
	for _, d := range u.CacheDetails {
		if d.TTL == "1h" {
			write1h += d.InputTokens
		}
	}
	return AnthropicUsage(u.InputTokens, u.CacheReadInputTokens, u.CacheWriteInputTokens, write1h, u.OutputTokens)
}

// ChatUsage reads an OpenAI usage object ({"prompt_tokens",…}).
func ChatUsage(raw []byte) (Usage, bool) {
	var u chatUsage
	if len(raw) == 0 || json.Unmarshal(raw, &u) != nil {
		return Usage{}, false
	}
	return u.usage(), true
}

// MessagesUsage reads an Anthropic usage object ({"input_tokens",…}), as
// found in an answer, a message_start's message or a message_delta.
func MessagesUsage(raw []byte) (Usage, bool) {
	var u anthropicUsage
	if len(raw) == 0 || json.Unmarshal(raw, &u) != nil {
		return Usage{}, false
	}
	return u.usage(), true
}

// ResponsesUsage reads a Responses usage object ({"input_tokens",…}), as
// found in a response and in a response.completed event's response: for
// requests passed through to an upstream that speaks the Responses API.
func ResponsesUsage(raw []byte) (Usage, bool) {
	var u responsesUsage
	if len(raw) == 0 || json.Unmarshal(raw, &u) != nil {
		return Usage{}, false
	}
	return u.usage(), true
}
