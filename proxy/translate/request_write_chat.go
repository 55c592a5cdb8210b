package translate

import (
	"crypto/sha256"
	"encoding/hex"
)

// writeChatBody writes req as a chat request body for upstreamModel (see
// writeChatRequest and marshalChatRequest).
func writeChatBody(req request, upstreamModel string, o Options) ([]byte, error) {
	return marshalChatRequest(writeChatRequest(&req, upstreamModel, o.IncludeUsage))
}

// writeChatRequest writes req as an OpenAI chat completions request for
// upstreamModel; on a stream with includeUsage it asks for
// stream_options.include_usage, without which the stream carries no token
// counts.
//
// System prompts stay system messages in their place. A user turn's tool
// results become tool messages ahead of the turn's other content, which
// OpenAI requires right after the assistant's tool calls; tool messages
// hold text only, so the images and documents of a tool result move to the
// user message after it (the turn's own, or one of their own after a run of
// tool messages). An assistant turn becomes one message: its texts as
// content, its calls as tool_calls; thinking is dropped, chat takes no
// reasoning back. Texts: one becomes a string, several text parts. max
// tokens becomes max_completion_tokens, the field OpenAI's reasoning models
// require (max_tokens is deprecated); the end user goes as user (see
// chatUser). tool_choice and parallel_tool_calls go only with tools: OpenAI
// refuses them alone.
func writeChatRequest(req *request, upstreamModel string, includeUsage bool) *chatRequestOut {
	out := &chatRequestOut{
		chatRequestHead: chatRequestHead{
			Model:               upstreamModel,
			Messages:            chatMessagesFromRequest(req),
			MaxCompletionTokens: req.maxTokens,
			Temperature:         req.temperature,
			TopP:                req.topP,
			Stop:                req.stop,
			Stream:              req.stream,
		},
		chatRequestTail: chatRequestTail{
			ReasoningEffort: req.effort,
			ResponseFormat:  req.format,
			User:            chatUser(req.user),
		},
	}
	if req.stream && includeUsage {
		out.StreamOptions = &chatStreamOptions{IncludeUsage: true}
	}
	if len(req.tools) > 0 {
		out.Tools = make([]chatTool, len(req.tools))
		for i, t := range req.tools {
			out.Tools[i] = chatTool{Type: "function", Function: chatFunction{Name: t.name,
				Description: t.description, Parameters: objectOr(t.parameters, emptySchema), Strict: t.strict}}
		}
		out.ToolChoice = chatToolChoice(req.toolChoice)
		out.ParallelToolCalls = req.parallel
	}
	return out
}

// maxChatUser is the longest user OpenAI accepts; OpenRouter allows 128.
const maxChatUser = 64

// chatUser gives the end user as OpenAI's user. A longer id (Claude Code's
// is a JSON object of about 150 characters) would get the whole request
// refused, so it is sent as its SHA-256 in hex: 64 characters, as stable per
// user as the id itself, which is what OpenAI asks user to be.
func chatUser(id string) string {
	if len(id) <= maxChatUser {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:])
}

func chatToolChoice(c toolChoice) any {
	switch c.mode {
	case "":
		return nil
	case "function":
		var f chatToolChoiceFunction
		f.Type, f.Function.Name = "function", c.name
		return f
	}
	return c.mode // auto, none, required
}

// chatBuilder gathers chat messages.
type chatBuilder struct {
	msgs    []chatMessageOut
	pending []chatPartOut // images and files of tool messages, for a user message after them
}

func chatMessagesFromRequest(req *request) []chatMessageOut {
	b := chatBuilder{msgs: make([]chatMessageOut, 0, len(req.messages)+1)}
	for i := range req.messages {
		m := &req.messages[i]
		if m.role != roleTool {
			b.flushPending()
		}
		b.add(m, req.partsOf(m))
	}
	b.flushPending()
	return b.msgs
}

func (b *chatBuilder) add(m *message, parts []part) {
	switch m.role {
	case roleSystem:
		if texts := texts(parts); len(texts) > 0 {
			b.msgs = append(b.msgs, chatMessageOut{Role: "system", Content: textOrParts(texts)})
		}
	case roleUser:
		b.addUser(m, parts)
	case roleAssistant:
		b.addAssistant(m, parts)
	case roleTool:
		b.msgs = append(b.msgs, chatMessageOut{Role: "tool", ToolCallID: m.callID, Content: toolContent(m.asString, parts, &b.pending)})
	}
}

// addUser adds a user turn: its tool results as tool messages first, then
// the rest (and the tool results' images and documents) as one user message.
func (b *chatBuilder) addUser(m *message, parts []part) {
	if m.asString {
		b.msgs = append(b.msgs, chatMessageOut{Role: "user", Content: parts[0].text})
		return
	}
	tools := 0
	out := make([]chatPartOut, 0, len(parts))
	for i := 0; i < len(parts); {
		p, content, after := next(parts, i)
		i = after
		if p.kind == partToolResult {
			b.msgs = append(b.msgs, chatMessageOut{Role: "tool", ToolCallID: p.id, Content: toolContent(p.asString, content, &out)})
			tools++
		} else if c, ok := chatPartOf(p); ok {
			out = append(out, c)
		}
	}
	if len(out) > 0 || tools == 0 {
		b.msgs = append(b.msgs, chatMessageOut{Role: "user", Content: userContent(out)})
	}
}

// chatPartOf gives a part as a chat content part; false for one chat has no
// part for (empty texts among them).
func chatPartOf(p *part) (chatPartOut, bool) {
	switch p.kind {
	case partText:
		return chatPartOut{Type: "text", Text: p.text}, p.text != ""
	case partDocumentText:
		return chatPartOut{Type: "text", Text: p.text}, true
	case partImage:
		return chatPartOut{Type: "image_url", ImageURL: &chatImageURL{URL: p.text}}, true
	case partFile:
		return chatPartOut{Type: "file", File: &chatFile{FileData: p.text, Filename: p.name}}, true
	}
	return chatPartOut{}, false
}

// toolContent gives a tool result's text, and appends its images and files
// to moved, for the user message that follows the tool messages.
func toolContent(asString bool, parts []part, moved *[]chatPartOut) any {
	if asString {
		return parts[0].text
	}
	var texts []string
	for i := range parts {
		if parts[i].kind == partText {
			if parts[i].text != "" {
				texts = append(texts, parts[i].text)
			}
		} else if c, ok := chatPartOf(&parts[i]); ok {
			*moved = append(*moved, c)
		}
	}
	if len(texts) == 0 {
		return ""
	}
	return textOrParts(texts)
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

// addAssistant adds an assistant turn: a string stays a string; else its
// texts as content and its calls as tool_calls, and a turn with neither
// is skipped.
func (b *chatBuilder) addAssistant(m *message, parts []part) {
	if m.asString {
		b.msgs = append(b.msgs, chatMessageOut{Role: "assistant", Content: parts[0].text})
		return
	}
	var texts []string
	var calls []chatToolCall
	for i := range parts {
		p := &parts[i]
		switch {
		case p.kind == partText && p.text != "":
			texts = append(texts, p.text)
		case p.kind == partCall:
			calls = append(calls, chatToolCall{ID: p.id, Type: "function",
				Function: chatFunctionCall{Name: p.name, Arguments: firstNonEmpty(p.text, "{}")}})
		}
	}
	if len(texts) == 0 && len(calls) == 0 {
		return
	}
	msg := chatMessageOut{Role: "assistant", ToolCalls: calls}
	if len(texts) > 0 {
		msg.Content = textOrParts(texts)
	}
	b.msgs = append(b.msgs, msg)
}

func (b *chatBuilder) flushPending() {
	if len(b.pending) > 0 {
		b.msgs = append(b.msgs, chatMessageOut{Role: "user", Content: b.pending})
		b.pending = nil
	}
}
