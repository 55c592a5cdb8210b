package translate

import "encoding/json"

// Usage is the token count of one answer in OpenAI's meaning: InputTokens
// counts every prompt token, cached or not, and CacheReadTokens and
// CacheWriteTokens say how many of those were read from or written to the
// prompt cache (both are parts of InputTokens, never added to it).
//
// Anthropic counts differently: its input_tokens excludes both cache reads
// and cache writes, so InputTokens = input_tokens + cache_read_input_tokens +
// cache_creation_input_tokens. OpenAI's prompt_tokens already includes
// prompt_tokens_details.cached_tokens.
type Usage struct {
	InputTokens      int64
	OutputTokens     int64
	CacheReadTokens  int64
	CacheWriteTokens int64
}

// anthropicUsage is Anthropic's usage object.
type anthropicUsage struct {
	InputTokens              int64 `json:"input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
}

// chatUsage is OpenAI's usage object.
type chatUsage struct {
	PromptTokens        int64              `json:"prompt_tokens"`
	CompletionTokens    int64              `json:"completion_tokens"`
	TotalTokens         int64              `json:"total_tokens"`
	PromptTokensDetails *chatPromptDetails `json:"prompt_tokens_details,omitempty"`
}

// chatPromptDetails splits prompt_tokens. cache_write_tokens is recent in
// OpenAI's API (openai-go v3 knows it); it is written only when non-zero.
type chatPromptDetails struct {
	CachedTokens     int64 `json:"cached_tokens"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
}

func (u anthropicUsage) usage() Usage {
	return Usage{
		InputTokens:      u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens,
		OutputTokens:     u.OutputTokens,
		CacheReadTokens:  u.CacheReadInputTokens,
		CacheWriteTokens: u.CacheCreationInputTokens,
	}
}

func (u chatUsage) usage() Usage {
	out := Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
	if d := u.PromptTokensDetails; d != nil {
		out.CacheReadTokens = d.CachedTokens
		out.CacheWriteTokens = d.CacheWriteTokens
	}
	return out
}

// anthropic gives u in Anthropic's meaning. Input that the cache counts do
// not fit in (an upstream that reports more cached than prompt tokens) is
// clamped at zero rather than going negative.
func (u Usage) anthropic() anthropicUsage {
	return anthropicUsage{
		InputTokens:              max(u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens, 0),
		CacheCreationInputTokens: u.CacheWriteTokens,
		CacheReadInputTokens:     u.CacheReadTokens,
		OutputTokens:             u.OutputTokens,
	}
}

func (u Usage) chat() chatUsage {
	return chatUsage{
		PromptTokens:     u.InputTokens,
		CompletionTokens: u.OutputTokens,
		TotalTokens:      u.InputTokens + u.OutputTokens,
		PromptTokensDetails: &chatPromptDetails{
			CachedTokens:     u.CacheReadTokens,
			CacheWriteTokens: u.CacheWriteTokens,
		},
	}
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
// Its meaning is already OpenAI's (see Usage).
func ResponsesUsage(raw []byte) (Usage, bool) {
	var u responsesUsage
	if len(raw) == 0 || json.Unmarshal(raw, &u) != nil {
		return Usage{}, false
	}
	return u.usage(), true
}
