package translate

import "encoding/json"

// OpenAI Chat Completions wire types. Input types decode only what is
// translated; everything else in a request is dropped (see droppedFields).

// chatRequest is the part of an OpenAI chat request that readChatRequest reads.
type chatRequest struct {
	Messages            []chatMessage       `json:"messages"`
	MaxTokens           *int64              `json:"max_tokens"`
	MaxCompletionTokens *int64              `json:"max_completion_tokens"`
	Temperature         *float64            `json:"temperature"`
	TopP                *float64            `json:"top_p"`
	Stop                json.RawMessage     `json:"stop"`
	Stream              bool                `json:"stream"`
	N                   *int64              `json:"n"`
	Tools               []chatTool          `json:"tools"`
	ToolChoice          json.RawMessage     `json:"tool_choice"`
	ParallelToolCalls   *bool               `json:"parallel_tool_calls"`
	User                string              `json:"user"`
	SafetyIdentifier    string              `json:"safety_identifier"`
	ResponseFormat      *chatResponseFormat `json:"response_format"`
	Functions           json.RawMessage     `json:"functions"`
	FunctionCall        json.RawMessage     `json:"function_call"`
	ReasoningEffort     string              `json:"reasoning_effort"`
	TopK                *int64              `json:"top_k"` // not OpenAI's: compatible servers (vLLM) take it
}

// chatMessage is one entry of messages, in a request or in a response.
// Content is a string, null, or an array of parts.
type chatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []chatToolCall  `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
}

// chatPart is one content part. image_url is an object {url, detail} in the
// spec; some clients send the URL as a bare string, which is accepted too.
type chatPart struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Refusal  string          `json:"refusal"`
	ImageURL json.RawMessage `json:"image_url"`
	File     *chatFile       `json:"file"`
}

type chatFile struct {
	FileData string `json:"file_data,omitempty"`
	FileID   string `json:"file_id,omitempty"`
	Filename string `json:"filename,omitempty"`
}

type chatTool struct {
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Strict      *bool           `json:"strict,omitempty"`
}

type chatToolCall struct {
	ID       string           `json:"id"`
	Type     string           `json:"type"`
	Function chatFunctionCall `json:"function"`
}

type chatFunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chatResponseFormat struct {
	Type       string          `json:"type"`
	JSONSchema *chatJSONSchema `json:"json_schema,omitempty"`
}

type chatJSONSchema struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema,omitempty"`
	Strict      *bool           `json:"strict,omitempty"`
}

// chatRequestOut is the OpenAI request Request(Messages, Chat) writes, by hand
// (appendChatRequest) as marshal would. encoding/json writes the members of
// the embedded halves in place, as if declared here.
type chatRequestOut struct {
	chatRequestHead
	Tools []chatTool `json:"tools,omitempty"`
	chatRequestTail
}

type chatRequestHead struct {
	Model               string             `json:"model"`
	Messages            []chatMessageOut   `json:"messages"`
	MaxCompletionTokens *int64             `json:"max_completion_tokens,omitempty"`
	Temperature         *float64           `json:"temperature,omitempty"`
	TopP                *float64           `json:"top_p,omitempty"`
	Stop                []string           `json:"stop,omitempty"`
	Stream              bool               `json:"stream,omitempty"`
	StreamOptions       *chatStreamOptions `json:"stream_options,omitempty"`
}

type chatRequestTail struct {
	ToolChoice        any                 `json:"tool_choice,omitempty"`
	ParallelToolCalls *bool               `json:"parallel_tool_calls,omitempty"`
	ReasoningEffort   string              `json:"reasoning_effort,omitempty"`
	ResponseFormat    *chatResponseFormat `json:"response_format,omitempty"`
	User              string              `json:"user,omitempty"`
}

type chatStreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// chatMessageOut is a message Request(Messages, Chat) writes. Content is a string,
// a []chatPartOut, or nil (written as null, for an assistant turn that only
// calls tools).
type chatMessageOut struct {
	Role       string         `json:"role"`
	Content    any            `json:"content"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type chatPartOut struct {
	Type     string        `json:"type"`
	Text     string        `json:"text,omitempty"`
	ImageURL *chatImageURL `json:"image_url,omitempty"`
	File     *chatFile     `json:"file,omitempty"`
}

type chatImageURL struct {
	URL string `json:"url"`
}

type chatToolChoiceFunction struct {
	Type     string `json:"type"`
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

// chatResponse is an OpenAI non-streaming answer, as readChatAnswer reads
// it.
type chatResponse struct {
	ID      string               `json:"id"`
	Created int64                `json:"created"`
	Model   string               `json:"model"`
	Choices []chatResponseChoice `json:"choices"`
	Usage   *chatUsage           `json:"usage"`
}

type chatResponseChoice struct {
	Message      chatAnswerMessage `json:"message"`
	FinishReason string            `json:"finish_reason"`
}

type chatAnswerMessage struct {
	Content          json.RawMessage `json:"content"`
	Refusal          string          `json:"refusal"`
	ReasoningContent string          `json:"reasoning_content"` // reasoning, as compatible servers send it
	Reasoning        json.RawMessage `json:"reasoning"`         // or so
	ToolCalls        []chatToolCall  `json:"tool_calls"`
}

// chatResponseOut is the OpenAI answer Answer(Messages, Chat) writes.
type chatResponseOut struct {
	ID      string          `json:"id"`
	Object  string          `json:"object"`
	Created int64           `json:"created"`
	Model   string          `json:"model"`
	Choices []chatChoiceOut `json:"choices"`
	Usage   chatUsage       `json:"usage"`
}

type chatChoiceOut struct {
	Index        int                 `json:"index"`
	Message      chatResponseMessage `json:"message"`
	Logprobs     *struct{}           `json:"logprobs"`
	FinishReason string              `json:"finish_reason"`
}

// chatResponseMessage carries reasoning_content, the field OpenAI-compatible
// servers (DeepSeek, vLLM, LiteLLM) use for a model's reasoning; OpenAI's own
// SDKs ignore it.
type chatResponseMessage struct {
	Role             string         `json:"role"`
	Content          *string        `json:"content"`
	ReasoningContent string         `json:"reasoning_content,omitempty"`
	ToolCalls        []chatToolCall `json:"tool_calls,omitempty"`
	Refusal          *string        `json:"refusal"`
}

// chatChunk is one chat.completion.chunk, read and written.
type chatChunk struct {
	ID      string            `json:"id"`
	Object  string            `json:"object"`
	Created int64             `json:"created"`
	Model   string            `json:"model"`
	Choices []chatChunkChoice `json:"choices"`
	Usage   *chatUsage        `json:"usage,omitempty"`
}

type chatChunkChoice struct {
	Index        int       `json:"index"`
	Delta        chatDelta `json:"delta"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

type chatDelta struct {
	Role             string          `json:"role,omitempty"`
	Content          *string         `json:"content,omitempty"`
	ReasoningContent string          `json:"reasoning_content,omitempty"`
	ToolCalls        []chatToolDelta `json:"tool_calls,omitempty"`
}

// outputBytes is how much output the delta carries: its text, reasoning
// and tool-call arguments.
func (d *chatDelta) outputBytes() int64 {
	n := len(d.ReasoningContent)
	if d.Content != nil {
		n += len(*d.Content)
	}
	for i := range d.ToolCalls {
		n += len(d.ToolCalls[i].Function.Arguments)
	}
	return int64(n)
}

type chatToolDelta struct {
	Index    int               `json:"index"`
	ID       string            `json:"id,omitempty"`
	Type     string            `json:"type,omitempty"`
	Function chatFunctionDelta `json:"function"`
}

type chatFunctionDelta struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}
