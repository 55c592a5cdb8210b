package translate

import (
	"encoding/json"
	"strconv"
	"strings"
)

// writeConverseBody writes req as a Bedrock Converse request body (see
// writeConverseRequest). The model is not in the body: it is the URL's
// {modelId}, and a stream is asked for by the path (/converse-stream).
// Converse's top_k goes in Claude's additionalModelRequestFields, which
// another model refuses: a top_k meant for any model is left out (see
// request.topKAnyModel). Claude on Bedrock keeps an Anthropic caller's cache
// breakpoints, thinking and top_k.
func writeConverseBody(req request, _ string, _ Options) ([]byte, error) {
	if req.topKAnyModel {
		req.topK = nil
	}
	out, err := writeConverseRequest(&req)
	if err != nil {
		return nil, err
	}
	return marshal(&out)
}

// writeConverseRequest writes req as a Converse request.
//
// System prompts, wherever they stand, are gathered in order into system;
// user and assistant turns become messages, consecutive turns of one role
// merged (Converse requires them to alternate), and tool results
// toolResult blocks of the user turn they stand in or of one of their own.
// Blank texts are left out (Converse refuses them), and so is a turn left
// empty. Images must be base64 data URLs (Converse takes bytes or S3
// locations, not URLs) of PNG, JPEG, GIF or WebP; files inline PDFs.
// A part marked for the prompt cache (Anthropic's cache_control) gets a
// cachePoint block after it, a tool a cachePoint after its toolSpec.
//
// max tokens, temperature (clamped to 0..1, the range of Bedrock's
// models), top_p (left out from 1 up, as for Anthropic) and stop become
// inferenceConfig; a json_schema response format outputConfig.textFormat.
// What Converse has no field for goes to the model as Bedrock documents
// it for Claude in additionalModelRequestFields: thinking and top_k, which
// only an Anthropic caller gives (a reasoning effort, which any model's
// caller may send, is not turned into Claude's thinking: another model
// would refuse the field). With thinking on, signed reasoning goes back as
// reasoningContent and temperature, top_p and top_k are left out, as
// Claude requires; without it, reasoning is dropped. The end user,
// parallel_tool_calls, tools' strict and a json_object response format
// have no Converse counterpart and are dropped.
func writeConverseRequest(req *request) (converseRequest, error) {
	budget := converseThinking(req)
	b := converseBuilder{msgs: make([]converseMessage, 0, len(req.messages)), thinking: budget > 0}
	for i := range req.messages {
		if err := b.add(&req.messages[i], req.partsOf(&req.messages[i])); err != nil {
			return converseRequest{}, err
		}
	}
	return converseRequest{
		Messages:                     b.msgs,
		System:                       b.system,
		InferenceConfig:              converseInference(req, budget),
		ToolConfig:                   converseTools(req, b.toolBlocks),
		OutputConfig:                 converseOutput(req.format),
		AdditionalModelRequestFields: converseAdditional(req, budget),
	}, nil
}

// converseThinking gives the thinking budget to ask Claude for: the
// Anthropic caller's budget_tokens as given, or 0 (thinking off) where
// Claude would refuse thinking whatever the budget, as thinkingBudget
// decides for Anthropic: with a tool_choice that forces a tool, and when
// the last tool-use turn does not start with its thinking (a turn another
// model wrote has none to send back).
func converseThinking(req *request) int64 {
	if req.budget <= 0 {
		return 0
	}
	if m := req.toolChoice.mode; m == "required" || m == "function" || !req.lastToolTurnThinks() {
		return 0
	}
	return req.budget
}

func converseInference(req *request, budget int64) *converseInferenceConfig {
	c := converseInferenceConfig{
		MaxTokens:     positive(req.maxTokens),
		Temperature:   clampTemperature(req.temperature),
		TopP:          usefulTopP(req.topP),
		StopSequences: req.stop,
	}
	if budget > 0 {
		c.Temperature, c.TopP = nil, nil
		if c.MaxTokens == nil { // Claude needs room for the answer beside the budget
			v := DefaultMaxTokens + budget
			c.MaxTokens = &v
		}
	}
	if c.MaxTokens == nil && c.Temperature == nil && c.TopP == nil && len(c.StopSequences) == 0 {
		return nil
	}
	return &c
}

func converseAdditional(req *request, budget int64) *converseAdditionalRequest {
	switch {
	case budget > 0:
		return &converseAdditionalRequest{Thinking: &anthropicThinking{Type: "enabled", BudgetTokens: budget}}
	case req.topK != nil:
		return &converseAdditionalRequest{TopK: req.topK}
	}
	return nil
}

// converseOutput writes a json_schema response format; json_object has no
// Converse counterpart and is dropped, as for Anthropic.
func converseOutput(rf *chatResponseFormat) *converseOutputConfig {
	if rf == nil || rf.Type != "json_schema" || rf.JSONSchema == nil || isNull(rf.JSONSchema.Schema) {
		return nil
	}
	s := rf.JSONSchema
	return &converseOutputConfig{TextFormat: converseTextFormat{Type: "json_schema",
		Structure: converseFormatStructure{JSONSchema: converseJSONSchema{
			Schema: string(objectOr(s.Schema, "{}")), Name: s.Name, Description: s.Description}}}}
}

// converseTools writes the tools and the choice: auto, required and a
// named function become auto, any and tool. Converse has no choice none:
// without tool blocks in the conversation none leaves the tools out, so
// that the model cannot call one; with them Converse requires the tools,
// which then go without a choice (auto), and the model may still call one.
func converseTools(req *request, toolBlocks bool) *converseToolConfig {
	if len(req.tools) == 0 || req.toolChoice.mode == "none" && !toolBlocks {
		return nil
	}
	c := &converseToolConfig{Tools: make([]converseTool, 0, len(req.tools)+1)}
	for _, t := range req.tools {
		c.Tools = append(c.Tools, converseTool{ToolSpec: &converseToolSpec{Name: t.name, Description: t.description,
			InputSchema: converseInputSchema{JSON: objectOr(t.parameters, emptySchema)}}})
		if t.cache {
			c.Tools = append(c.Tools, converseTool{CachePoint: cachePoint().CachePoint})
		}
	}
	switch req.toolChoice.mode {
	case "auto":
		c.ToolChoice = &converseToolChoice{Auto: &struct{}{}}
	case "required":
		c.ToolChoice = &converseToolChoice{Any: &struct{}{}}
	case "function":
		c.ToolChoice = &converseToolChoice{Tool: &converseToolName{Name: req.toolChoice.name}}
	}
	return c
}

// converseBuilder gathers Converse's system blocks and turns.
type converseBuilder struct {
	system     []converseBlock
	msgs       []converseMessage
	thinking   bool           // send reasoning back
	toolBlocks bool           // the conversation holds toolUse or toolResult blocks
	docNames   map[string]int // the document names used, which must differ
}

func (b *converseBuilder) add(m *message, parts []part) error {
	switch m.role {
	case roleSystem:
		for i := range parts {
			if !isBlank(parts[i].text) {
				b.system = append(b.system, converseBlock{Text: parts[i].text})
			}
			if parts[i].cache {
				b.system = withCachePoint(b.system)
			}
		}
	case roleUser, roleAssistant:
		blocks, err := b.blocks(parts)
		if err == nil {
			b.append(converseRole(m.role), blocks)
		}
		return err
	case roleTool:
		content, err := b.toolResultContent(parts)
		if err == nil {
			b.toolBlocks = true
			b.append("user", []converseBlock{{ToolResult: &converseToolResult{ToolUseID: m.callID, Content: content}}})
		}
		return err
	}
	return nil
}

func converseRole(r role) string {
	if r == roleAssistant {
		return "assistant"
	}
	return "user"
}

// blocks gives a turn's parts as blocks, each marked one followed by a
// cachePoint.
func (b *converseBuilder) blocks(parts []part) ([]converseBlock, error) {
	out := make([]converseBlock, 0, len(parts))
	for i := 0; i < len(parts); {
		p, content, after := next(parts, i)
		i = after
		block, ok, err := b.block(p, content)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, block)
		}
		if p.cache {
			out = withCachePoint(out)
		}
	}
	return out, nil
}

// block gives a part as a block; false for a part that has none (a blank
// text, reasoning that is not sent back).
func (b *converseBuilder) block(p *part, content []part) (converseBlock, bool, error) {
	switch p.kind {
	case partText, partDocumentText:
		return converseBlock{Text: p.text}, !isBlank(p.text), nil
	case partImage:
		img, err := converseImageOf(p)
		return converseBlock{Image: img}, err == nil, err
	case partFile:
		doc, err := b.document(p)
		return converseBlock{Document: doc}, err == nil, err
	case partThinking:
		if !b.thinking {
			return converseBlock{}, false, nil
		}
		r := converseReasoningOf(p.block)
		return converseBlock{ReasoningContent: r}, r != nil, nil
	case partCall:
		b.toolBlocks = true
		return converseBlock{ToolUse: &converseToolUse{ToolUseID: p.id, Name: p.name, Input: toolInput(p.text)}}, true, nil
	case partToolResult:
		b.toolBlocks = true
		c, err := b.toolResultContent(content)
		return converseBlock{ToolResult: &converseToolResult{ToolUseID: p.id, Content: c}}, err == nil, err
	}
	return converseBlock{}, false, nil
}

// toolResultContent gives a tool result's content: texts, images and
// documents. An empty one is an empty list, which Converse takes.
func (b *converseBuilder) toolResultContent(parts []part) ([]converseBlock, error) {
	out := make([]converseBlock, 0, len(parts))
	for i := range parts {
		block, ok, err := b.block(&parts[i], nil)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, block)
		}
	}
	return out, nil
}

// append adds a turn, merging it into the previous one of the same role;
// an empty turn is left out, since Converse refuses one.
func (b *converseBuilder) append(role string, blocks []converseBlock) {
	n := len(b.msgs)
	switch {
	case len(blocks) == 0:
	case n > 0 && b.msgs[n-1].Role == role:
		b.msgs[n-1].Content = append(b.msgs[n-1].Content, blocks...)
	default:
		b.msgs = append(b.msgs, converseMessage{Role: role, Content: blocks})
	}
}

// withCachePoint ends blocks with a cachePoint, unless it is empty (a
// cachePoint caches what comes before it) or ends with one already.
func withCachePoint(blocks []converseBlock) []converseBlock {
	if n := len(blocks); n == 0 || blocks[n-1].CachePoint != nil {
		return blocks
	}
	return append(blocks, cachePoint())
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

// converseImageOf gives an image part as Converse's image: a base64 data
// URL of one of the formats Converse takes. An image by URL is refused:
// Converse takes an image's bytes or an S3 location, never a URL to fetch.
func converseImageOf(p *part) (*converseImage, error) {
	rest, ok := strings.CutPrefix(p.text, "data:")
	if !ok {
		return nil, invalid(p.param, "Bedrock's Converse API takes an image only as its bytes, not by URL: send it as a base64 data URL")
	}
	mediaType, data, ok := parseDataURL(rest)
	format := ""
	switch mediaType {
	case "image/png":
		format = "png"
	case "image/jpeg", "image/jpg":
		format = "jpeg"
	case "image/gif":
		format = "gif"
	case "image/webp":
		format = "webp"
	}
	if !ok || format == "" {
		return nil, invalid(p.param, "image must be a base64 data URL of a PNG, JPEG, GIF or WebP image")
	}
	return &converseImage{Format: format, Source: converseSource{Bytes: data}}, nil
}

// document gives a file part (an inline PDF) as Converse's document, named
// for its file name in the characters Converse allows, and apart from the
// request's other documents.
func (b *converseBuilder) document(p *part) (*converseDocument, error) {
	_, data, err := pdfData(p.param, p.text)
	if err != nil {
		return nil, err
	}
	name := documentName(p.name)
	if b.docNames == nil {
		b.docNames = map[string]int{}
	}
	b.docNames[name]++
	if n := b.docNames[name]; n > 1 {
		name += " (" + strconv.Itoa(n) + ")"
	}
	return &converseDocument{Format: "pdf", Name: name, Source: converseSource{Bytes: data}}, nil
}

// documentName gives a file name without its extension in the characters
// Converse allows in a document's name (letters, digits, single spaces,
// hyphens, parentheses and square brackets), others as spaces; "document"
// when nothing is left.
func documentName(file string) string {
	if i := strings.LastIndexByte(file, '.'); i > 0 {
		file = file[:i]
	}
	var sb strings.Builder
	for _, r := range file {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune("-()[]", r):
			sb.WriteRune(r)
		default:
			sb.WriteByte(' ')
		}
	}
	name := strings.Join(strings.Fields(sb.String()), " ")
	if len(name) > 200 { // Converse's limit; the name is ASCII by now
		name = strings.TrimSpace(name[:200])
	}
	return firstNonEmpty(name, "document")
}

// converseReasoningOf gives a thinking part's Anthropic block (see
// sendableThinking) as Converse's reasoning: signed thinking as
// reasoningText, redacted thinking as redactedContent; nil for a block
// that cannot be sent back.
func converseReasoningOf(block json.RawMessage) *converseReasoning {
	var b anthropicBlock
	if json.Unmarshal(block, &b) != nil {
		return nil
	}
	switch {
	case b.Type == "thinking" && b.Signature != "":
		return &converseReasoning{ReasoningText: &converseReasoningText{Text: b.Thinking, Signature: b.Signature}}
	case b.Type == "redacted_thinking" && b.Data != "":
		return &converseReasoning{RedactedContent: b.Data}
	}
	return nil
}
