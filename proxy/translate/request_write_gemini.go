package translate

import (
	"encoding/json"
	"slices"
	"strings"
)

// writeGeminiBody writes req as a Gemini GenerateContentRequest (see
// writeGeminiRequest); a reasoning effort turns on Gemini's thoughts, and
// top_k goes as topK. The body names no model and does not say whether to
// stream: Gemini takes both in the URL (generateContent, or
// streamGenerateContent?alt=sse).
func writeGeminiBody(req request, _ string, _ Options) ([]byte, error) {
	out, err := writeGeminiRequest(&req)
	if err != nil {
		return nil, err
	}
	return marshal(&out)
}

// maxGeminiStops is how many stop sequences Gemini takes.
const maxGeminiStops = 5

// writeGeminiRequest writes req as a Gemini GenerateContentRequest.
//
// System prompts, wherever they stand, become systemInstruction's text
// parts, in order. User turns are role user and assistant turns role model,
// and consecutive turns of one role merge into one content, as Gemini wants
// the roles to alternate; tool results (a user turn's, or OpenAI's tool
// messages) become functionResponse parts first in the user content, named
// after the earlier call of the same id (Gemini matches results to calls by
// name), their response an object: a result that is a JSON object as it is,
// another JSON value as {"result": …}, text as {"content": "…"}. A tool
// result's images and files follow the responses in the same content.
// Images and files given as base64 data URLs become inlineData, images by
// URL fileData (with the MIME type their extension tells, when it does).
// Calls become functionCall parts (arguments that are not a JSON object
// become {}, see toolInput), each with the thoughtSignature its id carries
// (see geminiCallID); the first call of a model turn that carries none (a
// call another model made) gets geminiSkipSignature. Thinking blocks are
// dropped: Gemini takes back no one else's reasoning.
//
// Tools become one tool's functionDeclarations, their parameters written by
// geminiSchema (and left out for a function that takes none, which Gemini
// wants); tool_choice auto, none, required and a named function become
// functionCallingConfig AUTO, NONE, ANY, and ANY with allowedFunctionNames.
// max tokens becomes maxOutputTokens (which bounds thoughts and answer
// together, as OpenAI's max_completion_tokens does); temperature, top_p, top
// k and stop go into generationConfig; a json_object response format
// becomes responseMimeType application/json, a json_schema one that and
// responseSchema. A reasoning effort turns on thoughts (includeThoughts)
// with a thinkingBudget (see geminiThinking).
//
// Dropped, having no Gemini counterpart: the end user, parallel_tool_calls,
// tools' strict, a response format's name, description and strict, images'
// detail. Refused with a *RequestError: more than five stop sequences, a
// tool result whose call is not in the conversation, a file that is not a
// data URL, a schema that Gemini's cannot express (a recursive $ref), and a
// request with no user or model turn at all.
func writeGeminiRequest(req *request) (geminiRequest, error) {
	b := geminiBuilder{names: map[string]string{}}
	for i := range req.messages {
		if err := b.add(&req.messages[i], req.partsOf(&req.messages[i])); err != nil {
			return geminiRequest{}, err
		}
	}
	if len(b.contents) == 0 {
		return geminiRequest{}, invalid("", "the request holds no user or assistant turn, and Gemini needs one")
	}
	b.finish()
	out := geminiRequest{Contents: b.contents}
	if len(b.system) > 0 {
		out.SystemInstruction = &geminiContent{Parts: b.system}
	}
	var err error
	if out.Tools, out.ToolConfig, err = geminiTools(req); err != nil {
		return geminiRequest{}, err
	}
	if out.GenerationConfig, err = geminiGeneration(req); err != nil {
		return geminiRequest{}, err
	}
	return out, nil
}

// geminiBuilder gathers the system instruction and the contents.
type geminiBuilder struct {
	system   []geminiPart
	contents []geminiContent
	names    map[string]string // the functions of the calls so far, by call id
}

func (b *geminiBuilder) add(m *message, parts []part) error {
	switch m.role {
	case roleSystem:
		for _, t := range texts(parts) {
			b.system = append(b.system, geminiPart{Text: t})
		}
	case roleUser:
		return b.user(parts)
	case roleAssistant:
		b.model(parts)
	case roleTool:
		out, err := b.response(m.callID, parts, nil)
		if err != nil {
			return err
		}
		b.append("user", out)
	}
	return nil
}

// user adds a user turn: its tool results as functionResponse parts, its
// text, images and files as parts of their own.
func (b *geminiBuilder) user(parts []part) error {
	out := make([]geminiPart, 0, len(parts))
	for i := 0; i < len(parts); {
		p, content, after := next(parts, i)
		i = after
		var err error
		if p.kind == partToolResult {
			out, err = b.response(p.id, content, out)
		} else {
			out, err = appendGeminiPart(out, p)
		}
		if err != nil {
			return err
		}
	}
	b.append("user", out)
	return nil
}

// model adds an assistant turn: its texts and its calls, in order.
func (b *geminiBuilder) model(parts []part) {
	out := make([]geminiPart, 0, len(parts))
	for i := range parts {
		switch p := &parts[i]; {
		case p.kind == partText && p.text != "":
			out = append(out, geminiPart{Text: p.text})
		case p.kind == partCall:
			b.names[p.id] = p.name
			out = append(out, geminiPart{ThoughtSignature: geminiSignature(p.id),
				FunctionCall: &geminiFunctionCall{Name: p.name, Args: toolInput(p.text)}})
		}
	}
	b.append("model", out)
}

// response appends the functionResponse of call id, whose result is
// content, and the result's images and files.
func (b *geminiBuilder) response(id string, content []part, out []geminiPart) ([]geminiPart, error) {
	name, ok := b.names[id]
	if !ok {
		return nil, invalid("", "the tool result for call %q follows no call of that id in the conversation, "+
			"and Gemini needs the function's name with a result", id)
	}
	result, err := functionResult(strings.Join(texts(content), "\n"))
	if err != nil {
		return nil, err
	}
	out = append(out, geminiPart{FunctionResponse: &geminiFunctionResponse{Name: name, Response: result}})
	for i := range content {
		if content[i].kind != partText {
			if out, err = appendGeminiPart(out, &content[i]); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// functionResult gives a tool's result as the object Gemini wants: a JSON
// object as it is, another JSON value as {"result": …}, text as
// {"content": "…"}.
func functionResult(text string) (json.RawMessage, error) {
	trimmed := strings.TrimSpace(text)
	switch {
	case trimmed != "" && json.Valid([]byte(trimmed)) && trimmed[0] == '{':
		return json.RawMessage(trimmed), nil
	case trimmed != "" && json.Valid([]byte(trimmed)):
		return marshal(map[string]json.RawMessage{"result": json.RawMessage(trimmed)})
	}
	return marshal(map[string]string{"content": text})
}

// appendGeminiPart appends a user part: text (empty texts are skipped),
// a plain-text document, an image or a file.
func appendGeminiPart(out []geminiPart, p *part) ([]geminiPart, error) {
	switch p.kind {
	case partText, partDocumentText:
		if p.text != "" {
			out = append(out, geminiPart{Text: p.text})
		}
	case partImage:
		if blob, ok := inlineData(p.text); ok {
			return append(out, geminiPart{InlineData: blob}), nil
		}
		if p.text == "" || strings.HasPrefix(p.text, "data:") {
			return nil, invalid(p.param, "an image must be an http(s) URL or a base64 data URL")
		}
		out = append(out, geminiPart{FileData: &geminiFileData{MimeType: mediaTypeOfURL(p.text), FileURI: p.text}})
	case partFile:
		blob, ok := inlineData(p.text)
		if !ok {
			return nil, invalid(p.param, "a file must be sent inline as a base64 data URL")
		}
		out = append(out, geminiPart{InlineData: blob})
	}
	return out, nil
}

// inlineData reads a base64 data URL as inline data.
func inlineData(url string) (*geminiBlob, bool) {
	rest, ok := strings.CutPrefix(url, "data:")
	if !ok {
		return nil, false
	}
	mediaType, data, ok := parseDataURL(rest)
	return &geminiBlob{MimeType: mediaType, Data: data}, ok
}

// mediaTypeOfURL gives the MIME type an image URL's extension tells; ""
// when it tells none (the Gemini API then looks for itself; Vertex AI
// requires one).
func mediaTypeOfURL(url string) string {
	path, _, _ := strings.Cut(url, "?")
	path, _, _ = strings.Cut(path, "#")
	dot := strings.LastIndexByte(path, '.')
	if dot < 0 || strings.Contains(path[dot:], "/") {
		return ""
	}
	switch strings.ToLower(path[dot+1:]) {
	case "png":
		return "image/png"
	case "jpg", "jpeg":
		return "image/jpeg"
	case "gif":
		return "image/gif"
	case "webp":
		return "image/webp"
	case "heic":
		return "image/heic"
	case "heif":
		return "image/heif"
	case "pdf":
		return "application/pdf"
	}
	return ""
}

// append adds a content, merging it into the previous one of the same role;
// a content without parts is left out (Gemini refuses one).
func (b *geminiBuilder) append(role string, parts []geminiPart) {
	if len(parts) == 0 {
		return
	}
	if n := len(b.contents); n > 0 && b.contents[n-1].Role == role {
		b.contents[n-1].Parts = append(b.contents[n-1].Parts, parts...)
		return
	}
	b.contents = append(b.contents, geminiContent{Role: role, Parts: parts})
}

// finish puts the function responses first in their user contents (merged
// tool messages may have left a result's images between them), and gives
// the first call of every model content a thoughtSignature: Gemini 3
// refuses a step whose first call has none.
func (b *geminiBuilder) finish() {
	for i := range b.contents {
		c := &b.contents[i]
		if c.Role == "user" {
			slices.SortStableFunc(c.Parts, func(x, y geminiPart) int { return responseRank(x) - responseRank(y) })
			continue
		}
		for j := range c.Parts {
			if p := &c.Parts[j]; p.FunctionCall != nil {
				if p.ThoughtSignature == "" {
					p.ThoughtSignature = geminiSkipSignature
				}
				break
			}
		}
	}
}

func responseRank(p geminiPart) int {
	if p.FunctionResponse != nil {
		return 0
	}
	return 1
}

// geminiTools writes the tools and the tool choice; without tools, a tool
// choice means nothing and is left out.
func geminiTools(req *request) ([]geminiTool, *geminiToolConfig, error) {
	if len(req.tools) == 0 {
		return nil, nil, nil
	}
	decls := make([]geminiFunctionDeclaration, len(req.tools))
	for i, t := range req.tools {
		params, err := geminiParameters(t.parameters)
		if err != nil {
			return nil, nil, invalid("tools", "the parameters of tool %q cannot be sent to Gemini: %v", t.name, err)
		}
		decls[i] = geminiFunctionDeclaration{Name: t.name, Description: t.description, Parameters: params}
	}
	return []geminiTool{{FunctionDeclarations: decls}}, geminiToolChoice(req.toolChoice), nil
}

// geminiParameters writes a tool's parameters; nil for a function that
// takes none, as Gemini refuses an object schema without properties there.
func geminiParameters(raw json.RawMessage) (json.RawMessage, error) {
	if isNull(raw) {
		return nil, nil
	}
	schema, err := geminiSchema(raw, false)
	if err != nil {
		return nil, err
	}
	if props, _ := schema["properties"].(map[string]any); len(props) == 0 {
		return nil, nil
	}
	return marshal(schema)
}

func geminiToolChoice(c toolChoice) *geminiToolConfig {
	var f geminiFunctionCallingConfig
	switch c.mode {
	case "auto":
		f.Mode = "AUTO"
	case "none":
		f.Mode = "NONE"
	case "required":
		f.Mode = "ANY"
	case "function":
		f.Mode, f.AllowedFunctionNames = "ANY", []string{c.name}
	default:
		return nil
	}
	return &geminiToolConfig{FunctionCallingConfig: f}
}

// geminiGeneration writes generationConfig; nil when nothing goes in it.
func geminiGeneration(req *request) (*geminiGenerationConfig, error) {
	if len(req.stop) > maxGeminiStops {
		return nil, invalid("stop", "Gemini takes at most %d stop sequences, not %d", maxGeminiStops, len(req.stop))
	}
	g := geminiGenerationConfig{StopSequences: req.stop, MaxOutputTokens: positive(req.maxTokens),
		Temperature: req.temperature, TopP: req.topP, TopK: req.topK}
	var err error
	if g.ResponseMimeType, g.ResponseSchema, err = geminiResponseFormat(req.format); err != nil {
		return nil, err
	}
	if g.ThinkingConfig, err = geminiThinking(req.effort, g.MaxOutputTokens); err != nil {
		return nil, err
	}
	if g.StopSequences == nil && g.MaxOutputTokens == nil && g.Temperature == nil && g.TopP == nil && g.TopK == nil &&
		g.ResponseMimeType == "" && g.ThinkingConfig == nil {
		return nil, nil
	}
	return &g, nil
}

// geminiResponseFormat gives the MIME type and the schema of a JSON
// response format (see geminiSchema, which keeps the properties' order).
func geminiResponseFormat(f *chatResponseFormat) (string, json.RawMessage, error) {
	switch {
	case f == nil || f.Type != "json_object" && f.Type != "json_schema":
		return "", nil, nil
	case f.JSONSchema == nil || isNull(f.JSONSchema.Schema):
		return "application/json", nil, nil
	}
	schema, err := geminiSchema(f.JSONSchema.Schema, true)
	if err != nil {
		return "", nil, invalid("response_format", "its schema cannot be sent to Gemini: %v", err)
	}
	if len(schema) == 0 {
		return "application/json", nil, nil
	}
	b, err := marshal(schema)
	return "application/json", b, err
}

// minGeminiBudget is the smallest thinking budget every thinking Gemini
// model takes (Gemini 2.5 Pro's minimum).
const minGeminiBudget = 128

// geminiThinking gives the thinking config for a reasoning effort: the
// thoughts themselves (includeThoughts) and the budgets thinkingBudget
// gives Anthropic (minimal 1024 … high and xhigh 24576, Gemini 2.5 Flash's
// maximum), at most half of maxTokens: thoughts count against
// maxOutputTokens, and a budget as large would leave the answer no room.
// none, like no effort, leaves the model's default: Gemini 2.5 Pro and
// Gemini 3 Pro refuse a budget of 0, as they cannot stop thinking.
func geminiThinking(effort string, maxTokens *int64) (*geminiThinkingConfig, error) {
	budget, err := effortBudget(effort)
	if budget == 0 || err != nil {
		return nil, err
	}
	if maxTokens != nil {
		budget = max(min(budget, *maxTokens/2), minGeminiBudget)
	}
	return &geminiThinkingConfig{IncludeThoughts: true, ThinkingBudget: budget}, nil
}
