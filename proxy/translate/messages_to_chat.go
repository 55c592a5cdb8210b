package translate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
)

// MessagesToChat translates an Anthropic messages request into an OpenAI
// chat completions request for upstreamModel. On a stream with includeUsage
// it asks for stream_options.include_usage, without which OpenAI streams
// carry no token counts.
//
// The top-level system becomes the first system message, and a role
// "system" entry inside messages (Claude Code sends one) a system message in
// its place; cache_control is dropped everywhere. A user turn's tool_result
// blocks become tool messages ahead of the turn's other content, which OpenAI
// requires right after the assistant's tool calls; images and documents
// inside tool results move to the user message that follows, since OpenAI
// tool messages hold text only. max_tokens becomes max_completion_tokens, the field OpenAI's
// reasoning models require (max_tokens is deprecated). thinking of type
// enabled becomes reasoning_effort by its budget: up to 4096 tokens low, up
// to 16384 medium, more high. metadata.user_id becomes user, and
// output_config.format (json_schema) a strict json_schema response_format.
// Text blocks: one becomes a string, several text parts. What is dropped is
// listed in droppedFields; what cannot be translated is refused with a
// *RequestError.
func MessagesToChat(body []byte, upstreamModel string, includeUsage bool) ([]byte, error) {
	out, err := chatRequestFromAnthropic(body, upstreamModel, includeUsage)
	if err != nil {
		return nil, err
	}
	return marshalChatRequest(out)
}

func chatRequestFromAnthropic(body []byte, upstreamModel string, includeUsage bool) (*chatRequestOut, error) {
	var req messagesRequest
	if err := decodeMessagesRequest(body, &req); err != nil {
		return nil, decodeError("the request", err)
	}
	out := &chatRequestOut{
		chatRequestHead: chatRequestHead{
			Model:               upstreamModel,
			MaxCompletionTokens: req.MaxTokens,
			Temperature:         req.Temperature,
			TopP:                req.TopP,
			Stop:                req.StopSequences,
			Stream:              req.Stream,
		},
		chatRequestTail: chatRequestTail{
			ReasoningEffort: reasoningEffort(req.Thinking),
			ResponseFormat:  responseFormat(req.OutputConfig),
		},
	}
	if req.Stream && includeUsage {
		out.StreamOptions = &chatStreamOptions{IncludeUsage: true}
	}
	if req.Metadata != nil {
		out.User = chatUser(req.Metadata.UserID)
	}
	var err error
	if out.Messages, err = chatMessagesFromAnthropic(req.System, req.Messages); err != nil {
		return nil, err
	}
	if out.Tools, out.ToolChoice, out.ParallelToolCalls, err = toolsFromAnthropic(req.Tools, req.ToolChoice); err != nil {
		return nil, err
	}
	return out, nil
}

// maxChatUser is the longest user OpenAI accepts; OpenRouter allows 128.
const maxChatUser = 64

// chatUser gives metadata.user_id as OpenAI's user. A longer id (Claude
// Code's is a JSON object of about 150 characters) would get the whole
// request refused, so it is sent as its SHA-256 in hex: 64 characters, as
// stable per user as the id itself, which is what OpenAI asks user to be.
func chatUser(id string) string {
	if len(id) <= maxChatUser {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:])
}

func reasoningEffort(t *anthropicThinking) string {
	switch {
	case t == nil || t.Type != "enabled":
		return ""
	case t.BudgetTokens <= 4096:
		return "low"
	case t.BudgetTokens <= 16384:
		return "medium"
	}
	return "high"
}

func responseFormat(oc *anthropicOutputConfig) *chatResponseFormat {
	if oc == nil || oc.Format == nil || oc.Format.Type != "json_schema" {
		return nil
	}
	strict := true // Anthropic's structured output always holds to the schema
	return &chatResponseFormat{Type: "json_schema", JSONSchema: &chatJSONSchema{
		Name: "output", Schema: objectOr(oc.Format.Schema, "{}"), Strict: &strict}}
}

// path names a part of the request in an error's param, as
// messages[2].content[0]. It is formatted only when an error is returned:
// most requests have none, and naming every message and block up front
// cost an allocation each.
type path struct {
	parent *path
	name   string // a member, with its dot if it has a parent (".content")
	index  int    // an element of the member, or -1 for the member itself
}

func (p *path) member(name string) path { return path{parent: p, name: name, index: -1} }

func (p *path) elem(name string, i int) path { return path{parent: p, name: name, index: i} }

func (p path) String() string { return string(p.append(nil)) }

func (p *path) append(b []byte) []byte {
	if p.parent != nil {
		b = p.parent.append(b)
	}
	b = append(b, p.name...)
	if p.index >= 0 {
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(p.index), 10)
		b = append(b, ']')
	}
	return b
}

func chatMessagesFromAnthropic(system json.RawMessage, msgs []anthropicMessage) ([]chatMessageOut, error) {
	out := make([]chatMessageOut, 0, len(msgs)+1)
	texts, err := systemTexts(&path{name: "system", index: -1}, system)
	if err != nil {
		return nil, err
	}
	if len(texts) > 0 {
		out = append(out, chatMessageOut{Role: "system", Content: textOrParts(texts)})
	}
	for i, m := range msgs {
		p := path{name: "messages", index: i}
		switch m.Role {
		case "user":
			out, err = appendUserTurn(out, &p, m.Content)
		case "assistant":
			out, err = appendAssistantTurn(out, &p, m.Content)
		case "system":
			content := p.member(".content")
			if texts, err = systemTexts(&content, m.Content); len(texts) > 0 {
				out = append(out, chatMessageOut{Role: "system", Content: textOrParts(texts)})
			}
		default:
			err = invalid(p.String()+".role", "unknown role %q", m.Role)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// systemTexts reads a system prompt: a string or text blocks.
func systemTexts(p *path, raw json.RawMessage) ([]string, error) {
	text, blocks, isArray, err := decodeBlocks(raw)
	if err != nil {
		return nil, contentError(p.String(), err)
	}
	if !isArray {
		if text == "" {
			return nil, nil
		}
		return []string{text}, nil
	}
	texts := make([]string, 0, len(blocks))
	for j, b := range blocks {
		if b.Type != "text" {
			return nil, invalid(p.elem("", j).String(), "only text blocks are allowed in a system prompt, not %q", b.Type)
		}
		if b.Text != "" {
			texts = append(texts, b.Text)
		}
	}
	return texts, nil
}

// appendUserTurn adds a user turn: its tool results as tool messages first,
// then the rest as one user message.
func appendUserTurn(out []chatMessageOut, p *path, raw json.RawMessage) ([]chatMessageOut, error) {
	text, blocks, isArray, err := decodeBlocks(raw)
	if err != nil {
		return nil, contentError(p.String()+".content", err)
	}
	if !isArray {
		return append(out, chatMessageOut{Role: "user", Content: text}), nil
	}
	var tools []chatMessageOut
	parts := make([]chatPartOut, 0, len(blocks))
	for j := range blocks {
		bp := p.elem(".content", j)
		if blocks[j].Type == "tool_result" {
			msg, images, err := toolMessage(&bp, &blocks[j])
			if err != nil {
				return nil, err
			}
			tools, parts = append(tools, msg), append(parts, images...)
			continue
		}
		part, err := userPart(&bp, &blocks[j])
		if err != nil {
			return nil, err
		}
		if part != nil {
			parts = append(parts, *part)
		}
	}
	out = append(out, tools...)
	if len(parts) > 0 || len(tools) == 0 {
		out = append(out, chatMessageOut{Role: "user", Content: userContent(parts)})
	}
	return out, nil
}

// userContent gives text-only content as a string or text parts (see
// textOrParts), anything with an image or a file as parts.
func userContent(parts []chatPartOut) any {
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		if p.Type != "text" {
			return parts
		}
		texts = append(texts, p.Text)
	}
	if len(texts) == 0 {
		return ""
	}
	return textOrParts(texts)
}

func userPart(p *path, b *anthropicBlock) (*chatPartOut, error) {
	switch b.Type {
	case "text":
		if b.Text == "" {
			return nil, nil
		}
		return &chatPartOut{Type: "text", Text: b.Text}, nil
	case "image":
		return imagePart(p, b.source())
	case "document":
		return documentPart(p, b)
	}
	return nil, invalid(p.String(), "content block type %q cannot be sent to an OpenAI model", b.Type)
}

func imagePart(p *path, src *anthropicSource) (*chatPartOut, error) {
	switch {
	case src == nil:
	case src.Type == "base64" && src.MediaType != "":
		return &chatPartOut{Type: "image_url", ImageURL: &chatImageURL{URL: dataURL(src.MediaType, src.Data)}}, nil
	case src.Type == "url" && src.URL != "":
		return &chatPartOut{Type: "image_url", ImageURL: &chatImageURL{URL: src.URL}}, nil
	}
	return nil, invalid(p.String()+".source", "only base64 and url image sources can be sent to an OpenAI model")
}

// documentPart sends a base64 PDF as an inline file and a plain-text
// document as text; OpenAI cannot fetch a document by URL or file id.
func documentPart(p *path, b *anthropicBlock) (*chatPartOut, error) {
	src := b.source()
	switch {
	case src == nil:
	case src.Type == "base64" && src.MediaType == "application/pdf":
		name := b.Title
		if name == "" {
			name = "document.pdf"
		}
		return &chatPartOut{Type: "file", File: &chatFile{Filename: name, FileData: dataURL(src.MediaType, src.Data)}}, nil
	case src.Type == "text":
		return &chatPartOut{Type: "text", Text: src.Data}, nil
	}
	return nil, invalid(p.String()+".source", "only base64 PDF and plain-text documents can be sent to an OpenAI model")
}

// toolMessage turns a tool_result into a tool message, and returns the
// images and documents it held (a PDF that Claude Code's Read tool returns,
// say) for the user message that follows: OpenAI tool messages hold text only.
func toolMessage(p *path, b *anthropicBlock) (chatMessageOut, []chatPartOut, error) {
	msg := chatMessageOut{Role: "tool", ToolCallID: b.ToolUseID, Content: ""}
	text, blocks, isArray, err := decodeBlocks(b.Content)
	if err != nil {
		return msg, nil, contentError(p.String()+".content", err)
	}
	if !isArray {
		msg.Content = text
		return msg, nil, nil
	}
	var texts []string
	var images []chatPartOut // and documents
	for j := range blocks {
		bp := p.elem(".content", j)
		switch blocks[j].Type {
		case "text":
			if blocks[j].Text != "" {
				texts = append(texts, blocks[j].Text)
			}
		case "image", "document":
			part, err := userPart(&bp, &blocks[j])
			if err != nil {
				return msg, nil, err
			}
			if part != nil {
				images = append(images, *part)
			}
		default:
			return msg, nil, invalid(bp.String(), "tool result block type %q cannot be sent to an OpenAI model", blocks[j].Type)
		}
	}
	if len(texts) > 0 {
		msg.Content = textOrParts(texts)
	}
	return msg, images, nil
}

// appendAssistantTurn adds an assistant turn: its text as content, its
// tool_use blocks as tool_calls. Blocks OpenAI has no place for are dropped
// (see droppedFields); a turn left with nothing is skipped.
func appendAssistantTurn(out []chatMessageOut, p *path, raw json.RawMessage) ([]chatMessageOut, error) {
	text, blocks, isArray, err := decodeBlocks(raw)
	if err != nil {
		return nil, contentError(p.String()+".content", err)
	}
	if !isArray {
		return append(out, chatMessageOut{Role: "assistant", Content: text}), nil
	}
	var texts []string
	var calls []chatToolCall
	for j, b := range blocks {
		switch {
		case b.Type == "text":
			if b.Text != "" {
				texts = append(texts, b.Text)
			}
		case b.Type == "tool_use":
			calls = append(calls, chatToolCall{ID: b.ID, Type: "function",
				Function: chatFunctionCall{Name: b.Name, Arguments: toolArguments(b.Input)}})
		case droppedAssistantBlock(b.Type):
		default:
			return nil, invalid(p.elem(".content", j).String(), "content block type %q cannot be sent to an OpenAI model", b.Type)
		}
	}
	if len(texts) == 0 && len(calls) == 0 {
		return out, nil
	}
	msg := chatMessageOut{Role: "assistant", ToolCalls: calls}
	if len(texts) > 0 {
		msg.Content = textOrParts(texts)
	}
	return append(out, msg), nil
}

// droppedAssistantBlock lists the assistant block types that are dropped:
// reasoning and the work of Anthropic's server-side tools.
func droppedAssistantBlock(typ string) bool {
	switch typ {
	case "thinking", "redacted_thinking", "server_tool_use", "mcp_tool_use", "mcp_tool_result", "container_upload":
		return true
	}
	return strings.HasSuffix(typ, "_tool_result") // web_search_tool_result, code_execution_tool_result, …
}

// toolsFromAnthropic translates the caller's own tools; server tools run
// on Anthropic's side and are dropped. tool_choice auto, any, tool and none
// become auto, required, a named function and none, and
// disable_parallel_tool_use becomes parallel_tool_calls: false. Without
// tools left, tool_choice is left out too: OpenAI refuses it alone.
func toolsFromAnthropic(tools []anthropicTool, choice *anthropicToolChoice) ([]chatTool, any, *bool, error) {
	out := make([]chatTool, 0, len(tools))
	for _, t := range tools {
		if t.Type != "" && t.Type != "custom" {
			continue
		}
		out = append(out, chatTool{Type: "function", Function: chatFunction{Name: t.Name,
			Description: t.Description, Parameters: objectOr(t.InputSchema, emptySchema)}})
	}
	if len(out) == 0 || choice == nil {
		return nilIfEmpty(out), nil, nil, nil
	}
	var parallel *bool
	if choice.DisableParallelToolUse {
		parallel = new(bool)
	}
	switch choice.Type {
	case "auto":
		return out, "auto", parallel, nil
	case "any":
		return out, "required", parallel, nil
	case "none":
		return out, "none", nil, nil
	case "tool":
		var f chatToolChoiceFunction
		f.Type, f.Function.Name = "function", choice.Name
		return out, f, parallel, nil
	}
	return nil, nil, nil, invalid("tool_choice.type", "unknown tool_choice type %q", choice.Type)
}

func nilIfEmpty(tools []chatTool) []chatTool {
	if len(tools) == 0 {
		return nil
	}
	return tools
}
