package translate

import (
	"encoding/json"
	"fmt"
	"strings"
)

// DefaultMaxTokens is the max_tokens sent to Anthropic, which requires one,
// when an OpenAI caller gave neither max_tokens nor max_completion_tokens.
// 4096 is the largest value every Claude model accepts (it is Claude 3
// Haiku's output limit); a longer answer ends with finish_reason "length".
const DefaultMaxTokens = 4096

// ChatToMessages translates an OpenAI chat completions request into an
// Anthropic messages request for upstreamModel.
//
// System and developer messages, wherever they stand, are gathered in order
// into Anthropic's top-level system (a string for one, text blocks for
// several): Anthropic accepts system text inside messages only under a beta.
// Consecutive tool messages, and a user message after them, merge into one
// Anthropic user turn with the tool_result blocks first, as Anthropic
// requires; any other consecutive turns of one role merge too. Tool call ids
// are kept exactly. temperature is clamped to Anthropic's 0..1; a top_p of 1
// or more (no truncation) is left out, because newer Claude models refuse
// temperature and top_p together. user (or safety_identifier) becomes
// metadata.user_id, and a json_schema response_format becomes
// output_config.format. What is dropped is listed in droppedFields; what
// cannot be translated is refused with a *RequestError.
func ChatToMessages(body []byte, upstreamModel string) ([]byte, error) {
	var req chatRequest
	if err := decodeChatRequest(body, &req); err != nil {
		return nil, decodeError("the request", err)
	}
	out, err := messagesRequestFromChat(&req, upstreamModel)
	if err != nil {
		return nil, err
	}
	return marshalMessagesRequest(&out)
}

// messagesRequestFromChat is the translation of a decoded request.
func messagesRequestFromChat(req *chatRequest, upstreamModel string) (messagesRequestOut, error) {
	if err := refuseChatRequest(req); err != nil {
		return messagesRequestOut{}, err
	}
	out := messagesRequestOut{
		Model:        upstreamModel,
		MaxTokens:    chatMaxTokens(req),
		Temperature:  clampTemperature(req.Temperature),
		TopP:         usefulTopP(req.TopP),
		Stream:       req.Stream,
		Metadata:     userMetadata(firstNonEmpty(req.User, req.SafetyIdentifier)),
		OutputConfig: outputConfig(req.ResponseFormat),
	}
	var err error
	if out.System, out.Messages, err = messagesFromChat(req.Messages); err != nil {
		return messagesRequestOut{}, err
	}
	if out.StopSequences, err = stopSequences(req.Stop); err != nil {
		return messagesRequestOut{}, err
	}
	if out.Tools, out.ToolChoice, err = toolsFromChat(req.Tools, req.ToolChoice, req.ParallelToolCalls); err != nil {
		return messagesRequestOut{}, err
	}
	return out, nil
}

// refuseChatRequest rejects what would change the shape of the answer.
func refuseChatRequest(req *chatRequest) error {
	switch {
	case req.N != nil && *req.N > 1:
		return invalid("n", "n > 1 is not supported by Anthropic models: send one request per choice")
	case !isNull(req.Functions):
		return invalid("functions", "legacy functions are not supported: use tools")
	case !isNull(req.FunctionCall):
		return invalid("function_call", "legacy function_call is not supported: use tool_choice")
	}
	return nil
}

func chatMaxTokens(req *chatRequest) int64 {
	for _, v := range []*int64{req.MaxCompletionTokens, req.MaxTokens} {
		if v != nil && *v > 0 {
			return *v
		}
	}
	return DefaultMaxTokens
}

// clampTemperature maps OpenAI's 0..2 onto Anthropic's 0..1 by clamping:
// values up to 1 mean the same on both sides, and above 1 Anthropic has no
// hotter setting to offer.
func clampTemperature(t *float64) *float64 {
	if t == nil {
		return nil
	}
	v := min(max(*t, 0), 1)
	return &v
}

func usefulTopP(p *float64) *float64 {
	if p == nil || *p >= 1 {
		return nil
	}
	return p
}

func userMetadata(user string) *anthropicMetadata {
	if user == "" {
		return nil
	}
	return &anthropicMetadata{UserID: user}
}

func outputConfig(rf *chatResponseFormat) *anthropicOutputConfig {
	if rf == nil || rf.Type != "json_schema" || rf.JSONSchema == nil || isNull(rf.JSONSchema.Schema) {
		return nil
	}
	return &anthropicOutputConfig{Format: &anthropicOutputFormat{
		Type: "json_schema", Schema: objectOr(rf.JSONSchema.Schema, "{}")}}
}

func stopSequences(raw json.RawMessage) ([]string, error) {
	text, list, isArray, err := decodeContent[string](raw)
	switch {
	case err != nil:
		return nil, invalid("stop", "must be a string or an array of strings")
	case isArray:
		return list, nil
	case text != "":
		return []string{text}, nil
	}
	return nil, nil
}

// messagesBuilder gathers Anthropic's system blocks and turns.
type messagesBuilder struct {
	system []textBlock
	msgs   []anthropicMessageOut
}

func messagesFromChat(in []chatMessage) (system any, msgs []anthropicMessageOut, err error) {
	b := messagesBuilder{msgs: make([]anthropicMessageOut, 0, len(in))}
	for i := range in {
		if err := b.add(fmt.Sprintf("messages[%d]", i), &in[i]); err != nil {
			return nil, nil, err
		}
	}
	switch len(b.system) {
	case 0:
		return nil, b.msgs, nil
	case 1:
		return b.system[0].Text, b.msgs, nil
	}
	return b.system, b.msgs, nil
}

func (b *messagesBuilder) add(param string, m *chatMessage) error {
	switch m.Role {
	case "system", "developer":
		texts, err := chatTexts(param, m.Content, "text")
		for _, t := range texts {
			b.system = append(b.system, textBlock{Type: "text", Text: t})
		}
		return err
	case "user":
		content, err := userBlocks(param, m.Content)
		if err == nil && !isEmpty(content) { // Anthropic refuses empty turns
			b.append("user", content)
		}
		return err
	case "assistant":
		content, err := assistantContent(param, m)
		if err == nil && !isEmpty(content) {
			b.append("assistant", content)
		}
		return err
	case "tool":
		texts, err := chatTexts(param, m.Content, "text")
		if err == nil {
			b.append("user", []any{toolResultBlock{Type: "tool_result", ToolUseID: m.ToolCallID,
				Content: toolResultContent(m.Content, texts)}})
		}
		return err
	case "function":
		return invalid(param+".role", "role function (legacy function calling) is not supported: use tools")
	}
	return invalid(param+".role", "unknown role %q", m.Role)
}

// append adds a turn, merging it into the previous one of the same role:
// Anthropic wants tool results together and first in the next user turn.
func (b *messagesBuilder) append(role string, content any) {
	n := len(b.msgs)
	if n == 0 || b.msgs[n-1].Role != role {
		b.msgs = append(b.msgs, anthropicMessageOut{Role: role, Content: content})
		return
	}
	b.msgs[n-1].Content = append(asBlocks(b.msgs[n-1].Content), asBlocks(content)...)
}

func isEmpty(content any) bool {
	switch c := content.(type) {
	case string:
		return c == ""
	case []any:
		return len(c) == 0
	}
	return true
}

func asBlocks(content any) []any {
	switch c := content.(type) {
	case string:
		if c == "" {
			return nil
		}
		return []any{textBlock{Type: "text", Text: c}}
	case []any:
		return c
	}
	return nil
}

// chatTexts reads a content made of text only: a string, or parts whose
// types are among allowed (text, and refusal for an assistant).
func chatTexts(param string, raw json.RawMessage, allowed ...string) ([]string, error) {
	text, parts, isArray, err := decodeParts(raw)
	if err != nil {
		return nil, contentError(param+".content", err)
	}
	if !isArray {
		if text == "" {
			return nil, nil
		}
		return []string{text}, nil
	}
	texts := make([]string, 0, len(parts))
	for j, p := range parts {
		t, ok := partText(p, allowed)
		if !ok {
			return nil, invalid(fmt.Sprintf("%s.content[%d]", param, j), "content part type %q is not allowed here", p.Type)
		}
		if t != "" {
			texts = append(texts, t)
		}
	}
	return texts, nil
}

func partText(p chatPart, allowed []string) (string, bool) {
	for _, a := range allowed {
		if p.Type == a {
			return p.Text + p.Refusal, true // only the field of its type is set
		}
	}
	return "", false
}

// toolResultContent keeps a string as a string and text parts as blocks.
func toolResultContent(raw json.RawMessage, texts []string) any {
	_, _, isArray, _ := decodeParts(raw)
	if !isArray {
		if len(texts) == 0 {
			return ""
		}
		return texts[0]
	}
	blocks := make([]any, len(texts))
	for i, t := range texts {
		blocks[i] = textBlock{Type: "text", Text: t}
	}
	return blocks
}

// userBlocks keeps a string content as a string and translates parts.
func userBlocks(param string, raw json.RawMessage) (any, error) {
	text, parts, isArray, err := decodeParts(raw)
	if err != nil {
		return "", contentError(param+".content", err)
	}
	if !isArray {
		return text, nil
	}
	blocks := make([]any, 0, len(parts))
	for j, p := range parts {
		pp := fmt.Sprintf("%s.content[%d]", param, j)
		block, err := userBlock(pp, p)
		if err != nil {
			return blocks, err
		}
		if block != nil {
			blocks = append(blocks, block)
		}
	}
	return blocks, nil
}

func userBlock(param string, p chatPart) (any, error) {
	switch p.Type {
	case "text":
		if p.Text == "" {
			return nil, nil // Anthropic refuses empty text blocks
		}
		return textBlock{Type: "text", Text: p.Text}, nil
	case "image_url":
		src, ok := imageSourceFromURL(imageURL(p.ImageURL))
		if !ok {
			return nil, invalid(param, "image_url must be an http(s) URL or a base64 data URL")
		}
		return sourceBlock{Type: "image", Source: src}, nil
	case "file":
		return documentFromFile(param, p.File)
	case "input_audio":
		return nil, invalid(param, "audio input is not supported by Anthropic models")
	}
	return nil, invalid(param, "content part type %q is not supported", p.Type)
}

// imageURL reads image_url as the spec's {url, detail} or as a bare string.
func imageURL(raw json.RawMessage) string {
	var obj struct {
		URL string `json:"url"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.URL != "" {
		return obj.URL
	}
	var s string
	_ = json.Unmarshal(raw, &s) // not a string either: "" is refused by the caller
	return s
}

// documentFromFile turns an inline PDF into an Anthropic document block.
// Files uploaded to OpenAI (file_id) cannot be read by Anthropic.
func documentFromFile(param string, f *chatFile) (any, error) {
	if f == nil || f.FileData == "" {
		return nil, invalid(param, "only files sent inline as file_data can be translated, not by file_id")
	}
	mediaType, data, ok := parseDataURL(strings.TrimPrefix(f.FileData, "data:"))
	if !ok || mediaType != "application/pdf" {
		return nil, invalid(param, "file_data must be a base64 data URL of a PDF")
	}
	return sourceBlock{Type: "document", Title: f.Filename,
		Source: anthropicSource{Type: "base64", MediaType: mediaType, Data: data}}, nil
}

// assistantContent keeps a plain string answer a string; anything else
// becomes blocks: the turn's text, then its tool calls.
func assistantContent(param string, m *chatMessage) (any, error) {
	if text, _, isArray, err := decodeParts(m.Content); err == nil && !isArray && len(m.ToolCalls) == 0 {
		return text, nil
	}
	return assistantBlocks(param, m)
}

func assistantBlocks(param string, m *chatMessage) ([]any, error) {
	texts, err := chatTexts(param, m.Content, "text", "refusal")
	if err != nil {
		return nil, err
	}
	blocks := make([]any, 0, len(texts)+len(m.ToolCalls))
	for _, t := range texts {
		blocks = append(blocks, textBlock{Type: "text", Text: t})
	}
	for j, tc := range m.ToolCalls {
		if tc.Type != "function" && tc.Type != "" {
			return nil, invalid(fmt.Sprintf("%s.tool_calls[%d].type", param, j), "only function tool calls can be translated, not %q", tc.Type)
		}
		blocks = append(blocks, toolUseBlock{Type: "tool_use", ID: tc.ID, Name: tc.Function.Name, Input: toolInput(tc.Function.Arguments)})
	}
	return blocks, nil
}

// toolsFromChat translates tools and tool_choice. Without tools a
// tool_choice means nothing, and Anthropic refuses one, so it is left out.
func toolsFromChat(tools []chatTool, choice json.RawMessage, parallel *bool) ([]anthropicToolOut, *anthropicToolChoice, error) {
	if len(tools) == 0 {
		return nil, nil, nil
	}
	out := make([]anthropicToolOut, 0, len(tools))
	for i, t := range tools {
		if t.Type != "function" && t.Type != "" {
			return nil, nil, invalid(fmt.Sprintf("tools[%d].type", i), "only function tools can be translated, not %q", t.Type)
		}
		out = append(out, anthropicToolOut{Name: t.Function.Name, Description: t.Function.Description,
			InputSchema: objectOr(t.Function.Parameters, emptySchema)})
	}
	tc, err := toolChoiceFromChat(choice, parallel)
	return out, tc, err
}

// toolChoiceFromChat maps auto, none, required and a named function to
// Anthropic's auto, none, any and tool; parallel_tool_calls: false becomes
// disable_parallel_tool_use, which needs a tool_choice to live in.
func toolChoiceFromChat(raw json.RawMessage, parallel *bool) (*anthropicToolChoice, error) {
	var c *anthropicToolChoice
	text, _, _, err := decodeContent[json.RawMessage](raw)
	switch {
	case isNull(raw):
		c = &anthropicToolChoice{Type: "auto"}
	case err == nil:
		switch text {
		case "auto":
			c = &anthropicToolChoice{Type: "auto"}
		case "none":
			c = &anthropicToolChoice{Type: "none"}
		case "required":
			c = &anthropicToolChoice{Type: "any"}
		default:
			return nil, invalid("tool_choice", "unknown tool_choice %q", text)
		}
	default:
		var f chatToolChoiceFunction
		if json.Unmarshal(raw, &f) != nil || f.Type != "function" || f.Function.Name == "" {
			return nil, invalid("tool_choice", `must be "auto", "none", "required" or {"type":"function","function":{"name":…}}`)
		}
		c = &anthropicToolChoice{Type: "tool", Name: f.Function.Name}
	}
	if parallel != nil && !*parallel && c.Type != "none" {
		c.DisableParallelToolUse = true
		return c, nil
	}
	if isNull(raw) {
		return nil, nil // nothing to say beyond Anthropic's default
	}
	return c, nil
}
