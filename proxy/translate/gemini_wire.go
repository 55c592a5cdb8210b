package translate

import "encoding/json"

// Gemini wire types: the Gemini API's generateContent and
// streamGenerateContent (?alt=sse), whose bodies Vertex AI shares. The model
// is named in the URL, never in the body. Requests are written through
// marshal and answers read through decode (encoding/json semantics): no
// benchmark asks for a hand-written path here.

// geminiRequest is a GenerateContentRequest.
type geminiRequest struct {
	Contents          []geminiContent         `json:"contents"`
	SystemInstruction *geminiContent          `json:"systemInstruction,omitempty"`
	Tools             []geminiTool            `json:"tools,omitempty"`
	ToolConfig        *geminiToolConfig       `json:"toolConfig,omitempty"`
	GenerationConfig  *geminiGenerationConfig `json:"generationConfig,omitempty"`
}

// geminiContent is one turn: role user or model (none for the system
// instruction) and its parts.
type geminiContent struct {
	Role  string       `json:"role,omitempty"`
	Parts []geminiPart `json:"parts"`
}

// geminiPart is a union: one of text, inlineData, fileData, functionCall and
// functionResponse is set. thought marks a text as reasoning (in answers);
// thoughtSignature is the base64 signature Gemini 3 wants back on the
// functionCall part it came on.
type geminiPart struct {
	Text             string                  `json:"text,omitempty"`
	Thought          bool                    `json:"thought,omitempty"`
	ThoughtSignature string                  `json:"thoughtSignature,omitempty"`
	InlineData       *geminiBlob             `json:"inlineData,omitempty"`
	FileData         *geminiFileData         `json:"fileData,omitempty"`
	FunctionCall     *geminiFunctionCall     `json:"functionCall,omitempty"`
	FunctionResponse *geminiFunctionResponse `json:"functionResponse,omitempty"`
}

// geminiBlob is inline data: base64 bytes of a MIME type.
type geminiBlob struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"`
}

// geminiFileData is data by URI (a Files API upload, gs:// on Vertex, or
// an http URL). mimeType is optional on the Gemini API, required on Vertex.
type geminiFileData struct {
	MimeType string `json:"mimeType,omitempty"`
	FileURI  string `json:"fileUri"`
}

// geminiFunctionCall is a call the model made: args is a JSON object. Gemini
// gives no id (the Live API's id is not read: see geminiCallID).
type geminiFunctionCall struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// geminiFunctionResponse is a call's result, matched to the call by name;
// response must be a JSON object.
type geminiFunctionResponse struct {
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

type geminiTool struct {
	FunctionDeclarations []geminiFunctionDeclaration `json:"functionDeclarations"`
}

// geminiFunctionDeclaration is a function the model may call; parameters is
// a schema in Gemini's OpenAPI subset (see geminiSchema), left out for a
// function without any.
type geminiFunctionDeclaration struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

type geminiToolConfig struct {
	FunctionCallingConfig geminiFunctionCallingConfig `json:"functionCallingConfig"`
}

// geminiFunctionCallingConfig: mode AUTO, ANY or NONE; with ANY,
// allowedFunctionNames limits the calls to those functions.
type geminiFunctionCallingConfig struct {
	Mode                 string   `json:"mode"`
	AllowedFunctionNames []string `json:"allowedFunctionNames,omitempty"`
}

type geminiGenerationConfig struct {
	StopSequences    []string              `json:"stopSequences,omitempty"`
	ResponseMimeType string                `json:"responseMimeType,omitempty"`
	ResponseSchema   json.RawMessage       `json:"responseSchema,omitempty"`
	MaxOutputTokens  *int64                `json:"maxOutputTokens,omitempty"`
	Temperature      *float64              `json:"temperature,omitempty"`
	TopP             *float64              `json:"topP,omitempty"`
	TopK             *int64                `json:"topK,omitempty"`
	ThinkingConfig   *geminiThinkingConfig `json:"thinkingConfig,omitempty"`
}

type geminiThinkingConfig struct {
	IncludeThoughts bool  `json:"includeThoughts,omitempty"`
	ThinkingBudget  int64 `json:"thinkingBudget"`
}

// geminiResponse is a GenerateContentResponse, and each chunk of a stream
// (whose last carries the finishReason and the final usage). A stream may
// carry an error object instead.
type geminiResponse struct {
	Candidates     []geminiCandidate     `json:"candidates"`
	PromptFeedback *geminiPromptFeedback `json:"promptFeedback"`
	UsageMetadata  *geminiUsage          `json:"usageMetadata"`
	ModelVersion   string                `json:"modelVersion"`
	ResponseID     string                `json:"responseId"`
	CreateTime     string                `json:"createTime"` // Vertex AI's, RFC 3339
	Error          json.RawMessage       `json:"error"`
}

type geminiCandidate struct {
	Content      *geminiContent `json:"content"`
	FinishReason string         `json:"finishReason"`
	Index        int            `json:"index"`
}

// geminiPromptFeedback says why a prompt was blocked (then no candidate
// comes).
type geminiPromptFeedback struct {
	BlockReason        string `json:"blockReason"`
	BlockReasonMessage string `json:"blockReasonMessage"` // Vertex AI's
}
