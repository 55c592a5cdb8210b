package translate

import "encoding/json"

// Bedrock Converse wire types (POST /model/{modelId}/converse and
// /converse-stream). Converse's unions (a content block, a tool, a tool
// choice, a delta) are objects with exactly one member set: one struct
// each, every member omitempty, of which a writer sets one. They are read
// and written with encoding/json: Converse is not on a path where a
// benchmark asked for hand-written code.

// converseRequest is a Converse request body. The model is not in it (it
// is the URL's {modelId}), nor is stream (/converse-stream is another
// path).
type converseRequest struct {
	Messages                     []converseMessage          `json:"messages"`
	System                       []converseBlock            `json:"system,omitempty"`
	InferenceConfig              *converseInferenceConfig   `json:"inferenceConfig,omitempty"`
	ToolConfig                   *converseToolConfig        `json:"toolConfig,omitempty"`
	OutputConfig                 *converseOutputConfig      `json:"outputConfig,omitempty"`
	AdditionalModelRequestFields *converseAdditionalRequest `json:"additionalModelRequestFields,omitempty"`
}

// converseMessage is a turn: role user or assistant, which must alternate.
type converseMessage struct {
	Role    string          `json:"role"`
	Content []converseBlock `json:"content"`
}

// converseBlock is one member of the ContentBlock union (a message's
// content), and also of SystemContentBlock (text, cachePoint) and of
// ToolResultContentBlock (text, image, document). Converse refuses a blank
// text, so a Text written is never empty.
type converseBlock struct {
	Text             string              `json:"text,omitempty"`
	Image            *converseImage      `json:"image,omitempty"`
	Document         *converseDocument   `json:"document,omitempty"`
	ToolUse          *converseToolUse    `json:"toolUse,omitempty"`
	ToolResult       *converseToolResult `json:"toolResult,omitempty"`
	ReasoningContent *converseReasoning  `json:"reasoningContent,omitempty"`
	CachePoint       *converseCachePoint `json:"cachePoint,omitempty"`
}

// converseImage is an image given by its bytes: format png, jpeg, gif or
// webp; the bytes base64 in JSON, as a data URL holds them.
type converseImage struct {
	Format string         `json:"format"`
	Source converseSource `json:"source"`
}

// converseDocument is a document given by its bytes (format pdf here).
// Its name may hold only letters, digits, single spaces, hyphens,
// parentheses and square brackets.
type converseDocument struct {
	Format string         `json:"format"`
	Name   string         `json:"name"`
	Source converseSource `json:"source"`
}

type converseSource struct {
	Bytes string `json:"bytes"`
}

// converseToolUse is a tool call: input is a JSON object.
type converseToolUse struct {
	ToolUseID string          `json:"toolUseId"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
}

// converseToolResult answers the toolUse of toolUseId. Its status
// (success or error) is never written: no reader keeps Anthropic's
// is_error.
type converseToolResult struct {
	ToolUseID string          `json:"toolUseId"`
	Content   []converseBlock `json:"content"`
}

// converseReasoning is a ReasoningContentBlock: signed reasoning text, or
// redacted content (base64 bytes, kept as the string they come in).
type converseReasoning struct {
	ReasoningText   *converseReasoningText `json:"reasoningText,omitempty"`
	RedactedContent string                 `json:"redactedContent,omitempty"`
}

type converseReasoningText struct {
	Text      string `json:"text"`
	Signature string `json:"signature,omitempty"`
}

// converseCachePoint marks the end of a prefix to cache: type default is
// the only one.
type converseCachePoint struct {
	Type string `json:"type"`
}

func cachePoint() converseBlock {
	return converseBlock{CachePoint: &converseCachePoint{Type: "default"}}
}

type converseInferenceConfig struct {
	MaxTokens     *int64   `json:"maxTokens,omitempty"`
	Temperature   *float64 `json:"temperature,omitempty"`
	TopP          *float64 `json:"topP,omitempty"`
	StopSequences []string `json:"stopSequences,omitempty"`
}

type converseToolConfig struct {
	Tools      []converseTool      `json:"tools"`
	ToolChoice *converseToolChoice `json:"toolChoice,omitempty"`
}

// converseTool is a Tool: a toolSpec, or a cachePoint after the tools
// before it.
type converseTool struct {
	ToolSpec   *converseToolSpec   `json:"toolSpec,omitempty"`
	CachePoint *converseCachePoint `json:"cachePoint,omitempty"`
}

type converseToolSpec struct {
	Name        string              `json:"name"`
	Description string              `json:"description,omitempty"`
	InputSchema converseInputSchema `json:"inputSchema"`
}

type converseInputSchema struct {
	JSON json.RawMessage `json:"json"`
}

// converseToolChoice is auto, any (some tool) or tool (that one). Converse
// has no none: see converseTools.
type converseToolChoice struct {
	Auto *struct{}         `json:"auto,omitempty"`
	Any  *struct{}         `json:"any,omitempty"`
	Tool *converseToolName `json:"tool,omitempty"`
}

type converseToolName struct {
	Name string `json:"name"`
}

// converseOutputConfig asks for output that holds to a JSON schema, given
// as a string of JSON.
type converseOutputConfig struct {
	TextFormat converseTextFormat `json:"textFormat"`
}

type converseTextFormat struct {
	Type      string                  `json:"type"` // json_schema
	Structure converseFormatStructure `json:"structure"`
}

type converseFormatStructure struct {
	JSONSchema converseJSONSchema `json:"jsonSchema"`
}

type converseJSONSchema struct {
	Schema      string `json:"schema"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
}

// converseAdditionalRequest is additionalModelRequestFields, passed to the
// model as is: the fields of Claude's own request that Converse has no
// place for, as Bedrock documents them for Claude.
type converseAdditionalRequest struct {
	Thinking *anthropicThinking `json:"thinking,omitempty"`
	TopK     *int64             `json:"top_k,omitempty"`
}

// converseAnswer is a Converse answer. It has no id and no model.
type converseAnswer struct {
	Output struct {
		Message *converseMessage `json:"message"`
	} `json:"output"`
	StopReason string        `json:"stopReason"`
	Usage      converseUsage `json:"usage"`
}

// converseEvent is the payload of any ConverseStream event, decoded into
// one union: the event's name (its :event-type) says which members it has.
// messageStart has role; contentBlockStart, contentBlockDelta and
// contentBlockStop contentBlockIndex, with start or delta; messageStop
// stopReason; metadata usage; an exception message.
type converseEvent struct {
	ContentBlockIndex int            `json:"contentBlockIndex"`
	Start             *converseStart `json:"start"`
	Delta             *converseDelta `json:"delta"`
	StopReason        string         `json:"stopReason"`
	Usage             *converseUsage `json:"usage"`
	Message           string         `json:"message"`
}

// converseStart is a ContentBlockStart: only a toolUse block has one.
type converseStart struct {
	ToolUse *struct {
		ToolUseID string `json:"toolUseId"`
		Name      string `json:"name"`
	} `json:"toolUse"`
}

// converseDelta is a ContentBlockDelta: text, a fragment of a tool call's
// input (JSON text), or reasoning (its text, its signature, or redacted
// content).
type converseDelta struct {
	Text    *string `json:"text"`
	ToolUse *struct {
		Input string `json:"input"`
	} `json:"toolUse"`
	ReasoningContent *struct {
		Text            string `json:"text"`
		Signature       string `json:"signature"`
		RedactedContent string `json:"redactedContent"`
	} `json:"reasoningContent"`
}
