package translate

import "encoding/json"

// Anthropic Messages wire types. Input types decode only what is translated;
// everything else in a request is dropped (see droppedFields).

// messagesRequest is the part of an Anthropic request that readMessagesRequest
// reads.
type messagesRequest struct {
	System        json.RawMessage        `json:"system"`
	Messages      []anthropicMessage     `json:"messages"`
	MaxTokens     *int64                 `json:"max_tokens"`
	Temperature   *float64               `json:"temperature"`
	TopP          *float64               `json:"top_p"`
	TopK          *int64                 `json:"top_k"`
	StopSequences []string               `json:"stop_sequences"`
	Stream        bool                   `json:"stream"`
	Tools         []anthropicTool        `json:"tools"`
	ToolChoice    *anthropicToolChoice   `json:"tool_choice"`
	Metadata      *anthropicMetadata     `json:"metadata"`
	Thinking      *anthropicThinking     `json:"thinking"`
	OutputConfig  *anthropicOutputConfig `json:"output_config"`
}

// anthropicMessage is one entry of messages. Content is a string or an
// array of blocks; role is user, assistant, or (Claude Code) system.
type anthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// anthropicBlock is any content block, decoded into one union. Source is
// kept raw: its shape depends on the block type (search_result has a string).
type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Source    json.RawMessage `json:"source"`
	Title     string          `json:"title"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"` // a thinking block's
	Data      string          `json:"data"`      // a redacted_thinking block's
	// CacheControl is a request block's prompt-cache breakpoint, kept raw:
	// only whether it is there (and not null) matters.
	CacheControl json.RawMessage `json:"cache_control"`
}

// cached reports whether the block is a prompt-cache breakpoint.
func (b *anthropicBlock) cached() bool { return !isNull(b.CacheControl) }

// source decodes the source of an image or a document block; nil if it
// has none or it is not an object.
func (b *anthropicBlock) source() *anthropicSource {
	var src anthropicSource
	if isNull(b.Source) || json.Unmarshal(b.Source, &src) != nil {
		return nil
	}
	return &src
}

// anthropicSource is the source of an image or a document block.
type anthropicSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
}

type anthropicTool struct {
	Type         string          `json:"type"`
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl json.RawMessage `json:"cache_control"` // as a block's
}

type anthropicToolChoice struct {
	Type                   string `json:"type"`
	Name                   string `json:"name,omitempty"`
	DisableParallelToolUse bool   `json:"disable_parallel_tool_use,omitempty"`
}

type anthropicMetadata struct {
	UserID string `json:"user_id,omitempty"`
}

type anthropicThinking struct {
	Type         string `json:"type"`
	BudgetTokens int64  `json:"budget_tokens"`
}

type anthropicOutputConfig struct {
	Format *anthropicOutputFormat `json:"format,omitempty"`
}

type anthropicOutputFormat struct {
	Type   string          `json:"type"`
	Schema json.RawMessage `json:"schema,omitempty"`
}

// messagesRequestOut is the Anthropic request Request(Chat, Messages) writes.
type messagesRequestOut struct {
	Model         string                 `json:"model"`
	System        any                    `json:"system,omitempty"`
	Messages      []anthropicMessageOut  `json:"messages"`
	MaxTokens     int64                  `json:"max_tokens"`
	Temperature   *float64               `json:"temperature,omitempty"`
	TopP          *float64               `json:"top_p,omitempty"`
	StopSequences []string               `json:"stop_sequences,omitempty"`
	Stream        bool                   `json:"stream,omitempty"`
	Tools         []anthropicToolOut     `json:"tools,omitempty"`
	ToolChoice    *anthropicToolChoice   `json:"tool_choice,omitempty"`
	Metadata      *anthropicMetadata     `json:"metadata,omitempty"`
	OutputConfig  *anthropicOutputConfig `json:"output_config,omitempty"`
	Thinking      *anthropicThinking     `json:"thinking,omitempty"`
}

// anthropicMessageOut holds Content as a string or a []any of blocks.
type anthropicMessageOut struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

type anthropicToolOut struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Output blocks, one type each so that every block has exactly its fields.

type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type sourceBlock struct { // image or document
	Type   string          `json:"type"`
	Source anthropicSource `json:"source"`
	Title  string          `json:"title,omitempty"`
}

type toolUseBlock struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type toolResultBlock struct {
	Type      string `json:"type"`
	ToolUseID string `json:"tool_use_id"`
	Content   any    `json:"content"`
}

// messagesResponse is an Anthropic non-streaming answer, and the message of
// a message_start event.
type messagesResponse struct {
	ID         string           `json:"id"`
	Type       string           `json:"type"`
	Model      string           `json:"model"`
	Content    []anthropicBlock `json:"content"`
	StopReason string           `json:"stop_reason"`
	Usage      anthropicUsage   `json:"usage"`
}

// messagesResponseOut is the Anthropic answer Answer(Chat, Messages) writes.
type messagesResponseOut struct {
	ID           string         `json:"id"`
	Type         string         `json:"type"`
	Role         string         `json:"role"`
	Model        string         `json:"model"`
	Content      []any          `json:"content"`
	StopReason   *string        `json:"stop_reason"`
	StopSequence *string        `json:"stop_sequence"`
	Usage        anthropicUsage `json:"usage"`
}

// anthropicEvent is any streaming event, decoded into one union.
type anthropicEvent struct {
	Type         string                `json:"type"`
	Message      *messagesResponse     `json:"message"`
	Index        int                   `json:"index"`
	ContentBlock *anthropicBlock       `json:"content_block"`
	Delta        *anthropicDelta       `json:"delta"`
	Usage        *anthropicDeltaUsage  `json:"usage"`
	Error        *anthropicErrorDetail `json:"error"`
}

type anthropicDelta struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	PartialJSON string `json:"partial_json"`
	Thinking    string `json:"thinking"`
	Signature   string `json:"signature"` // a signature_delta's
	StopReason  string `json:"stop_reason"`
}

// anthropicDeltaUsage is message_delta's usage: cumulative counts, each of
// which may be absent or null (then the earlier value stands).
type anthropicDeltaUsage struct {
	InputTokens              *int64 `json:"input_tokens"`
	CacheCreationInputTokens *int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int64 `json:"cache_read_input_tokens"`
	OutputTokens             *int64 `json:"output_tokens"`
}

type anthropicErrorDetail struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}
