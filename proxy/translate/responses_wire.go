package translate

import "encoding/json"

// OpenAI Responses API wire types. Input types decode only what is
// translated; everything else in a request is dropped (see droppedFields).

// responsesRequest is the part of a Responses request that Request(Responses, Chat)
// and Request(Responses, Messages) read. The stateful members are read only to be
// refused.
type responsesRequest struct {
	Instructions      json.RawMessage     `json:"instructions"`
	Input             json.RawMessage     `json:"input"`
	Tools             []responsesTool     `json:"tools"`
	ToolChoice        json.RawMessage     `json:"tool_choice"`
	ParallelToolCalls *bool               `json:"parallel_tool_calls"`
	MaxOutputTokens   *int64              `json:"max_output_tokens"`
	Temperature       *float64            `json:"temperature"`
	TopP              *float64            `json:"top_p"`
	Reasoning         *responsesReasoning `json:"reasoning"`
	Text              *responsesText      `json:"text"`
	Stream            bool                `json:"stream"`
	User              string              `json:"user"`
	SafetyIdentifier  string              `json:"safety_identifier"`

	Store              *bool           `json:"store"`
	PreviousResponseID *string         `json:"previous_response_id"`
	Conversation       json.RawMessage `json:"conversation"`
	Background         *bool           `json:"background"`
	Prompt             json.RawMessage `json:"prompt"`
}

// responsesTool is one entry of tools. Only type function is translated;
// Parameters stays raw (a JSON schema), Strict is a pointer because the
// Responses API makes an absent strict mean true.
type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      *bool           `json:"strict"`
}

type responsesReasoning struct {
	Effort string `json:"effort"`
}

type responsesText struct {
	Format *responsesTextFormat `json:"format"`
}

// responsesTextFormat is text.format: {type: text}, {type: json_object} or
// {type: json_schema, name, schema, description, strict} (flat, unlike chat's
// response_format.json_schema).
type responsesTextFormat struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Strict      *bool           `json:"strict"`
}

// responsesItem is any input item, decoded into one union: a message (type
// "message" or none, with role and content), function_call,
// function_call_output, custom_tool_call(_output), reasoning, and the types
// that are dropped or refused.
type responsesItem struct {
	Type             string          `json:"type"`
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	ID               string          `json:"id"`
	CallID           string          `json:"call_id"`
	Name             string          `json:"name"`
	Arguments        string          `json:"arguments"`
	Input            string          `json:"input"`
	Output           json.RawMessage `json:"output"`
	EncryptedContent string          `json:"encrypted_content"`
}

// responsesPart is one content part of a message or of a tool output.
// image_url is a string in the spec; an object {url} is accepted too.
type responsesPart struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Refusal  string          `json:"refusal"`
	ImageURL json.RawMessage `json:"image_url"`
	FileID   string          `json:"file_id"`
	FileData string          `json:"file_data"`
	FileURL  string          `json:"file_url"`
	Filename string          `json:"filename"`
}

// responsesObject is the Responses "response" object, in an answer and in
// the stream's response.* lifecycle events. Members that only echo the
// request (tools, instructions, temperature, …) are left out: the
// converters do not see the request, and clients do not need them.
type responsesObject struct {
	ID                string               `json:"id"`
	Object            string               `json:"object"`
	CreatedAt         int64                `json:"created_at"`
	Status            string               `json:"status"`
	Error             *responsesFailure    `json:"error"`
	IncompleteDetails *responsesIncomplete `json:"incomplete_details"`
	Model             string               `json:"model"`
	Output            []any                `json:"output"`
	Usage             *responsesUsage      `json:"usage"`
}

// responsesFailure is a failed response's error. Codex reads code:
// context_length_exceeded, insufficient_quota and rate_limit_exceeded (with
// "try again in Ns" in the message) get their own handling, anything else
// is retried.
type responsesFailure struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type responsesIncomplete struct {
	Reason string `json:"reason"`
}

// Output items, one type each so that every item has exactly its fields.

type messageItem struct {
	Type    string `json:"type"`
	ID      string `json:"id"`
	Status  string `json:"status"`
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

// outputTextPart is an output_text content part; annotations and logprobs
// are always empty lists, as OpenAI writes them.
type outputTextPart struct {
	Type        string     `json:"type"`
	Text        string     `json:"text"`
	Annotations []struct{} `json:"annotations"`
	Logprobs    []struct{} `json:"logprobs"`
}

type refusalPart struct {
	Type    string `json:"type"`
	Refusal string `json:"refusal"`
}

type functionCallItem struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Status    string `json:"status"`
}

// reasoningItem carries a model's reasoning as a summary, and, for
// Anthropic thinking, the signed block in encrypted_content (see
// encodeThinking) so that it can be sent back.
type reasoningItem struct {
	Type             string        `json:"type"`
	ID               string        `json:"id"`
	Summary          []summaryPart `json:"summary"`
	EncryptedContent string        `json:"encrypted_content,omitempty"`
}

type summaryPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// Stream events. Every event starts with its type and sequence_number.

type eventHeader struct {
	Type           string `json:"type"`
	SequenceNumber int64  `json:"sequence_number"`
}

type responseEvent struct {
	eventHeader
	Response responsesObject `json:"response"`
}

type itemEvent struct {
	eventHeader
	OutputIndex int `json:"output_index"`
	Item        any `json:"item"`
}

type partEvent struct {
	eventHeader
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	ContentIndex int    `json:"content_index"`
	Part         any    `json:"part"`
}

type textDeltaEvent struct {
	eventHeader
	ItemID       string     `json:"item_id"`
	OutputIndex  int        `json:"output_index"`
	ContentIndex int        `json:"content_index"`
	Delta        string     `json:"delta"`
	Logprobs     []struct{} `json:"logprobs"`
}

type textDoneEvent struct {
	eventHeader
	ItemID       string     `json:"item_id"`
	OutputIndex  int        `json:"output_index"`
	ContentIndex int        `json:"content_index"`
	Text         string     `json:"text"`
	Logprobs     []struct{} `json:"logprobs"`
}

type refusalDeltaEvent struct {
	eventHeader
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	ContentIndex int    `json:"content_index"`
	Delta        string `json:"delta"`
}

type refusalDoneEvent struct {
	eventHeader
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	ContentIndex int    `json:"content_index"`
	Refusal      string `json:"refusal"`
}

type argumentsDeltaEvent struct {
	eventHeader
	ItemID      string `json:"item_id"`
	OutputIndex int    `json:"output_index"`
	Delta       string `json:"delta"`
}

type argumentsDoneEvent struct {
	eventHeader
	ItemID      string `json:"item_id"`
	OutputIndex int    `json:"output_index"`
	Arguments   string `json:"arguments"`
}

type summaryPartEvent struct {
	eventHeader
	ItemID       string      `json:"item_id"`
	OutputIndex  int         `json:"output_index"`
	SummaryIndex int         `json:"summary_index"`
	Part         summaryPart `json:"part"`
}

type summaryDeltaEvent struct {
	eventHeader
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	SummaryIndex int    `json:"summary_index"`
	Delta        string `json:"delta"`
}

type summaryDoneEvent struct {
	eventHeader
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	SummaryIndex int    `json:"summary_index"`
	Text         string `json:"text"`
}

// chatStreamChunk is a chunk as an upstream sends it, read by
// chatReader.
type chatStreamChunk struct {
	ID      string             `json:"id"`
	Model   string             `json:"model"`
	Choices []chatStreamChoice `json:"choices"`
	Usage   *chatUsage         `json:"usage"`
	Error   json.RawMessage    `json:"error"`
}

type chatStreamChoice struct {
	Index int `json:"index"`
	Delta struct {
		Content          string          `json:"content"`
		Refusal          string          `json:"refusal"`
		ReasoningContent string          `json:"reasoning_content"`
		Reasoning        json.RawMessage `json:"reasoning"`
		ToolCalls        []chatToolDelta `json:"tool_calls"`
	} `json:"delta"`
	FinishReason string `json:"finish_reason"`
}

// reasoningText gives the reasoning a compatible server sent, in
// reasoning_content (DeepSeek, vLLM) or reasoning (OpenRouter, newer vLLM).
func reasoningText(content string, alt json.RawMessage) string {
	if content != "" {
		return content
	}
	if len(alt) == 0 || alt[0] != '"' {
		return ""
	}
	var s string // declared here, not above: it escapes, and most chunks have no reasoning
	if json.Unmarshal(alt, &s) != nil {
		return ""
	}
	return s
}
