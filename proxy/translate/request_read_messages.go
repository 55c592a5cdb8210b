package translate

import (
	"encoding/json"
	"strconv"
	"strings"
)

// readMessagesRequest reads an Anthropic messages request.
//
// The top-level system becomes the first system prompt, and a role "system"
// entry inside messages (Claude Code sends one) a system prompt in its
// place. A user turn keeps its tool_result blocks as tool results among its
// parts. Images must come as base64 or by URL, documents as base64 PDFs or
// plain text. thinking of type enabled becomes a reasoning effort by its
// budget: up to 4096 tokens low, up to 16384 medium, more high; the budget
// is kept as given too, and so is top_k. metadata.user_id is the end user,
// and output_config.format (json_schema) a strict json_schema format. An
// assistant turn's signed thinking and redacted_thinking blocks become
// thinking parts holding the block to send back (see sendableThinking);
// other thinking blocks and the work of server tools are dropped, and so are
// server tools (they run on Anthropic's side). cache_control marks the part
// its block gave as a prompt-cache breakpoint (see markCache), and a tool
// (a server tool's mark goes to the tool before it). Only some writers use
// these (see droppedFields). What cannot be read is refused with a
// *RequestError.
func readMessagesRequest(body []byte) (request, error) {
	var req messagesRequest
	if err := decodeMessagesRequest(body, &req); err != nil {
		return request{}, decodeError("the request", err)
	}
	out := request{
		maxTokens:   req.MaxTokens,
		temperature: req.Temperature,
		topP:        req.TopP,
		topK:        req.TopK,
		stop:        req.StopSequences,
		stream:      req.Stream,
		effort:      reasoningEffort(req.Thinking),
		budget:      budgetTokens(req.Thinking),
		format:      responseFormat(req.OutputConfig),
		messages:    make([]message, 0, len(req.Messages)+1),
		parts:       make([]part, 0, 2*len(req.Messages)+2),
	}
	if req.Metadata != nil {
		out.user = req.Metadata.UserID
	}
	if err := out.readSystem(&path{name: "system", index: -1}, req.System); err != nil {
		return request{}, err
	}
	for i, m := range req.Messages {
		if err := out.readAnthropicMessage(path{name: "messages", index: i}, &m); err != nil {
			return request{}, err
		}
	}
	var err error
	out.tools, out.toolChoice, out.parallel, err = anthropicToolsIn(req.Tools, req.ToolChoice)
	return out, err
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

// budgetTokens gives the budget of thinking of type enabled, as given.
func budgetTokens(t *anthropicThinking) int64 {
	if t == nil || t.Type != "enabled" {
		return 0
	}
	return t.BudgetTokens
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

func (r *request) readAnthropicMessage(p path, m *anthropicMessage) error {
	from := len(r.parts)
	var asString bool
	var err error
	switch m.Role {
	case "user":
		asString, err = r.readUserTurn(&p, m.Content)
		r.add(message{role: roleUser, asString: asString}, from)
	case "assistant":
		asString, err = r.readAssistantTurn(&p, m.Content)
		r.add(message{role: roleAssistant, asString: asString}, from)
	case "system":
		content := p.member(".content")
		err = r.readSystem(&content, m.Content)
	default:
		err = invalid(p.String()+".role", "unknown role %q", m.Role)
	}
	return err
}

// readSystem reads a system prompt, a string or text blocks, as a system
// message when it holds any text. An empty block's breakpoint goes to the
// text before it.
func (r *request) readSystem(p *path, raw json.RawMessage) error {
	text, blocks, isArray, err := decodeBlocks(raw)
	if err != nil {
		return contentError(p.String(), err)
	}
	from := len(r.parts)
	if !isArray && text != "" {
		r.parts = append(r.parts, part{kind: partText, text: text})
	}
	for j := range blocks {
		if blocks[j].Type != "text" {
			return invalid(p.elem("", j).String(), "only text blocks are allowed in a system prompt, not %q", blocks[j].Type)
		}
		if blocks[j].Text != "" {
			r.parts = append(r.parts, part{kind: partText, text: blocks[j].Text})
		}
		if blocks[j].cached() {
			r.markCache(from, len(r.parts))
		}
	}
	if len(r.parts) > from {
		r.add(message{role: roleSystem}, from)
	}
	return nil
}

// turnBlocks decodes a turn's content: a string is its one text part
// (asString), blocks are left to the caller to read.
func (r *request) turnBlocks(p *path, raw json.RawMessage) (blocks []anthropicBlock, asString bool, err error) {
	blocks, asString, err = splitContent(r, raw, decodeBlocks)
	if err != nil {
		return nil, false, contentError(p.String()+".content", err)
	}
	return blocks, asString, nil
}

// readUserTurn reads a user turn: a string, or blocks among which tool
// results, each followed by its content.
func (r *request) readUserTurn(p *path, raw json.RawMessage) (asString bool, err error) {
	blocks, asString, err := r.turnBlocks(p, raw)
	if err != nil || asString {
		return asString, err
	}
	from := len(r.parts)
	for j := range blocks {
		bp := p.elem(".content", j)
		at := len(r.parts)
		if blocks[j].Type == "tool_result" {
			err = r.readToolResult(&bp, &blocks[j])
		} else {
			err = r.readUserBlock(&bp, &blocks[j])
		}
		if err != nil {
			return false, err
		}
		if blocks[j].cached() {
			r.markCache(from, at)
		}
	}
	return false, nil
}

// markCache marks a block's breakpoint: on the part it gave at at (a tool
// result's own part, not its content's), or, for a block that gave none,
// on the part before it since from, the start of its turn.
func (r *request) markCache(from, at int) {
	switch {
	case len(r.parts) > at:
		r.parts[at].cache = true
	case at > from:
		r.parts[at-1].cache = true
	}
}

func (r *request) readUserBlock(p *path, b *anthropicBlock) error {
	switch b.Type {
	case "text":
		r.parts = append(r.parts, part{kind: partText, text: b.Text})
		return nil
	case "image":
		return r.readImage(p, b.source())
	case "document":
		return r.readDocument(p, b)
	}
	return invalid(p.String(), "content block type %q cannot be sent to an OpenAI model", b.Type)
}

func (r *request) readImage(p *path, src *anthropicSource) error {
	switch {
	case src == nil:
	case src.Type == "base64" && src.MediaType != "":
		r.parts = append(r.parts, part{kind: partImage, text: dataURL(src.MediaType, src.Data)})
		return nil
	case src.Type == "url" && src.URL != "":
		r.parts = append(r.parts, part{kind: partImage, text: src.URL})
		return nil
	}
	return invalid(p.String()+".source", "only base64 and url image sources can be sent to an OpenAI model")
}

// readDocument reads a base64 PDF (named document.pdf when it has no title)
// and a plain-text document; a document by URL or file id cannot be sent on.
func (r *request) readDocument(p *path, b *anthropicBlock) error {
	src := b.source()
	switch {
	case src == nil:
	case src.Type == "base64" && src.MediaType == "application/pdf":
		r.parts = append(r.parts, part{kind: partFile, text: dataURL(src.MediaType, src.Data), name: firstNonEmpty(b.Title, "document.pdf")})
		return nil
	case src.Type == "text":
		r.parts = append(r.parts, part{kind: partDocumentText, text: src.Data})
		return nil
	}
	return invalid(p.String()+".source", "only base64 PDF and plain-text documents can be sent to an OpenAI model")
}

// readToolResult reads a tool_result: text, images and documents.
func (r *request) readToolResult(p *path, b *anthropicBlock) error {
	at := len(r.parts)
	r.parts = append(r.parts, part{kind: partToolResult, id: b.ToolUseID})
	text, blocks, isArray, err := decodeBlocks(b.Content)
	if err != nil {
		return contentError(p.String()+".content", err)
	}
	if !isArray {
		r.parts = append(r.parts, part{kind: partText, text: text})
		r.parts[at].asString = true
	}
	for j := range blocks {
		bp := p.elem(".content", j)
		switch blocks[j].Type {
		case "text":
			r.parts = append(r.parts, part{kind: partText, text: blocks[j].Text})
		case "image", "document":
			err = r.readUserBlock(&bp, &blocks[j])
		default:
			err = invalid(bp.String(), "tool result block type %q cannot be sent to an OpenAI model", blocks[j].Type)
		}
		if err != nil {
			return err
		}
	}
	r.parts[at].n = len(r.parts) - at - 1
	return nil
}

// readAssistantTurn reads an assistant turn: its text, its tool_use blocks
// and its thinking that can be sent back. Blocks no other protocol has a
// place for are dropped (see droppedFields).
func (r *request) readAssistantTurn(p *path, raw json.RawMessage) (asString bool, err error) {
	blocks, asString, err := r.turnBlocks(p, raw)
	if err != nil || asString {
		return asString, err
	}
	from := len(r.parts)
	for j := range blocks {
		b := &blocks[j]
		at := len(r.parts)
		switch {
		case b.Type == "text":
			r.parts = append(r.parts, part{kind: partText, text: b.Text})
		case b.Type == "tool_use":
			r.parts = append(r.parts, part{kind: partCall, id: b.ID, name: b.Name, text: toolArguments(b.Input)})
		case b.Type == "thinking" || b.Type == "redacted_thinking":
			if v := sendableThinking(b); v != nil {
				r.parts = append(r.parts, part{kind: partThinking, block: mustMarshal(v)})
			}
		case droppedAssistantBlock(b.Type):
		default:
			return false, invalid(p.elem(".content", j).String(), "content block type %q cannot be sent to an OpenAI model", b.Type)
		}
		if b.cached() {
			r.markCache(from, at)
		}
	}
	return false, nil
}

// droppedAssistantBlock lists the assistant block types that are dropped:
// the work of Anthropic's server-side tools (and thinking that cannot be
// sent back, which readAssistantTurn sees first).
func droppedAssistantBlock(typ string) bool {
	switch typ {
	case "server_tool_use", "mcp_tool_use", "mcp_tool_result", "container_upload":
		return true
	}
	return strings.HasSuffix(typ, "_tool_result") // web_search_tool_result, code_execution_tool_result, …
}

// anthropicToolsIn reads the caller's own tools; server tools run on
// Anthropic's side and are dropped, a server tool's cache breakpoint going
// to the tool before it. Without tools left, tool_choice is
// dropped too; disable_parallel_tool_use becomes parallel_tool_calls false
// (which a none choice does not need).
func anthropicToolsIn(tools []anthropicTool, choice *anthropicToolChoice) ([]tool, toolChoice, *bool, error) {
	var out []tool
	for _, t := range tools {
		cached := !isNull(t.CacheControl)
		if t.Type != "" && t.Type != "custom" {
			if cached && len(out) > 0 {
				out[len(out)-1].cache = true
			}
			continue
		}
		if out == nil {
			out = make([]tool, 0, len(tools))
		}
		out = append(out, tool{name: t.Name, description: t.Description, parameters: t.InputSchema, cache: cached})
	}
	if len(out) == 0 || choice == nil {
		return out, toolChoice{}, nil, nil
	}
	var parallel *bool
	if choice.DisableParallelToolUse {
		parallel = new(bool)
	}
	switch choice.Type {
	case "auto":
		return out, toolChoice{mode: "auto"}, parallel, nil
	case "any":
		return out, toolChoice{mode: "required"}, parallel, nil
	case "none":
		return out, toolChoice{mode: "none"}, nil, nil
	case "tool":
		return out, toolChoice{mode: "function", name: choice.Name}, parallel, nil
	}
	return nil, toolChoice{}, nil, invalid("tool_choice.type", "unknown tool_choice type %q", choice.Type)
}
