package translate

import (
	"encoding/json"
	"fmt"
	"strings"
)

// readChatRequest reads an OpenAI chat completions request.
//
// max_completion_tokens or else max_tokens is kept when positive; user (or
// safety_identifier) is the end user; reasoning_effort and top_k (not
// OpenAI's, but compatible servers take it) are kept as given, for the
// writers that use them (see droppedFields). Messages keep their roles and order;
// an assistant message's text comes before its tool calls, whose ids are
// kept exactly. Images must be http(s) or base64 data URLs, files inline
// PDFs. tool_choice and parallel_tool_calls are read only with tools: without
// them they mean nothing. What is dropped is listed in droppedFields; what
// would change the shape of the answer (n > 1, legacy functions, audio) is
// refused with a *RequestError.
func readChatRequest(body []byte) (request, error) {
	var req chatRequest
	if err := decodeChatRequest(body, &req); err != nil {
		return request{}, decodeError("the request", err)
	}
	return readChat(&req)
}

// readChat reads a decoded chat request.
func readChat(req *chatRequest) (request, error) {
	if err := refuseChatRequest(req); err != nil {
		return request{}, err
	}
	out := request{
		maxTokens:   chatMaxTokens(req),
		temperature: req.Temperature,
		topP:        req.TopP,
		stream:      req.Stream,
		user:        firstNonEmpty(req.User, req.SafetyIdentifier),
		effort:      req.ReasoningEffort,
		topK:        req.TopK,
		format:      req.ResponseFormat,
		messages:    make([]message, 0, len(req.Messages)),
		parts:       make([]part, 0, 2*len(req.Messages)),
		// A chat caller has no field to send signed thinking back in, and
		// its top_k is meant for a compatible server.
		thinkingOneWay: true,
		topKAnyModel:   true,
	}
	for i := range req.Messages {
		if err := out.readChatMessage(fmt.Sprintf("messages[%d]", i), &req.Messages[i]); err != nil {
			return request{}, err
		}
	}
	var err error
	if out.stop, err = stopSequences(req.Stop); err != nil {
		return request{}, err
	}
	if len(req.Tools) > 0 {
		if out.tools, err = chatTools(req.Tools); err != nil {
			return request{}, err
		}
		if out.toolChoice, err = chatToolChoiceMode(req.ToolChoice); err != nil {
			return request{}, err
		}
		out.parallel = req.ParallelToolCalls
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

func chatMaxTokens(req *chatRequest) *int64 {
	for _, v := range []*int64{req.MaxCompletionTokens, req.MaxTokens} {
		if v != nil && *v > 0 {
			return v
		}
	}
	return nil
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

func (r *request) readChatMessage(param string, m *chatMessage) error {
	from := len(r.parts)
	var err error
	switch m.Role {
	case "system", "developer":
		_, err = r.readChatTexts(param, m.Content, "text")
		r.add(message{role: roleSystem}, from)
	case "user":
		var asString bool
		asString, err = r.readUserParts(param, m.Content)
		r.add(message{role: roleUser, asString: asString}, from)
	case "assistant":
		var asString bool
		asString, err = r.readAssistantMessage(param, m)
		r.add(message{role: roleAssistant, asString: asString}, from)
	case "tool":
		var asString bool
		asString, err = r.readChatTexts(param, m.Content, "text")
		r.add(message{role: roleTool, asString: asString, callID: m.ToolCallID}, from)
	case "function":
		return invalid(param+".role", "role function (legacy function calling) is not supported: use tools")
	default:
		return invalid(param+".role", "unknown role %q", m.Role)
	}
	return err
}

// readChatTexts reads a content made of text only: a string (asString), or
// parts whose types are among allowed (text, and refusal for an assistant).
func (r *request) readChatTexts(param string, raw json.RawMessage, allowed ...string) (asString bool, err error) {
	parts, asString, err := splitContent(r, raw, decodeParts)
	if err != nil {
		return false, contentError(param+".content", err)
	}
	if asString {
		return true, nil
	}
	for j, p := range parts {
		t, ok := chatPartText(p, allowed)
		if !ok {
			return false, invalid(fmt.Sprintf("%s.content[%d]", param, j), "content part type %q is not allowed here", p.Type)
		}
		r.parts = append(r.parts, part{kind: partText, text: t})
	}
	return false, nil
}

func chatPartText(p chatPart, allowed []string) (string, bool) {
	for _, a := range allowed {
		if p.Type == a {
			return p.Text + p.Refusal, true // only the field of its type is set
		}
	}
	return "", false
}

// readUserParts reads a user content: a string, or text, image and file parts.
func (r *request) readUserParts(param string, raw json.RawMessage) (asString bool, err error) {
	parts, asString, err := splitContent(r, raw, decodeParts)
	if err != nil {
		return false, contentError(param+".content", err)
	}
	if asString {
		return true, nil
	}
	for j := range parts {
		p, err := userPart(fmt.Sprintf("%s.content[%d]", param, j), &parts[j])
		if err != nil {
			return false, err
		}
		r.parts = append(r.parts, p)
	}
	return false, nil
}

func userPart(param string, p *chatPart) (part, error) {
	switch p.Type {
	case "text":
		return part{kind: partText, text: p.Text}, nil
	case "image_url":
		url := imageURL(p.ImageURL)
		if _, ok := imageSourceFromURL(url); !ok {
			return part{}, invalid(param, "image_url must be an http(s) URL or a base64 data URL")
		}
		return part{kind: partImage, text: url, param: param}, nil
	case "file":
		if p.File == nil || p.File.FileData == "" {
			return part{}, invalid(param, "only files sent inline as file_data can be translated, not by file_id")
		}
		if _, _, err := pdfData(param, p.File.FileData); err != nil {
			return part{}, err
		}
		return part{kind: partFile, text: p.File.FileData, name: p.File.Filename, param: param}, nil
	case "input_audio":
		return part{}, invalid(param, "audio input is not supported by Anthropic models")
	}
	return part{}, invalid(param, "content part type %q is not supported", p.Type)
}

// pdfData reads a file's data URL, which must hold a base64 PDF.
func pdfData(param, fileData string) (mediaType, data string, err error) {
	mediaType, data, ok := parseDataURL(strings.TrimPrefix(fileData, "data:"))
	if !ok || mediaType != "application/pdf" {
		return "", "", invalid(param, "file_data must be a base64 data URL of a PDF")
	}
	return mediaType, data, nil
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

// readAssistantMessage reads an assistant message: a plain string answer
// stays a string; anything else is its texts, then its tool calls.
func (r *request) readAssistantMessage(param string, m *chatMessage) (asString bool, err error) {
	if text, _, isArray, err := decodeParts(m.Content); err == nil && !isArray && len(m.ToolCalls) == 0 {
		r.parts = append(r.parts, part{kind: partText, text: text})
		return true, nil
	}
	if _, err := r.readChatTexts(param, m.Content, "text", "refusal"); err != nil {
		return false, err
	}
	for j, tc := range m.ToolCalls {
		if tc.Type != "function" && tc.Type != "" {
			return false, invalid(fmt.Sprintf("%s.tool_calls[%d].type", param, j), "only function tool calls can be translated, not %q", tc.Type)
		}
		r.parts = append(r.parts, part{kind: partCall, id: tc.ID, name: tc.Function.Name, text: tc.Function.Arguments})
	}
	return false, nil
}

func chatTools(tools []chatTool) ([]tool, error) {
	out := make([]tool, 0, len(tools))
	for i, t := range tools {
		if t.Type != "function" && t.Type != "" {
			return nil, invalid(fmt.Sprintf("tools[%d].type", i), "only function tools can be translated, not %q", t.Type)
		}
		out = append(out, tool{name: t.Function.Name, description: t.Function.Description, parameters: t.Function.Parameters})
	}
	return out, nil
}

// chatToolChoiceMode reads auto, none, required and a named function.
func chatToolChoiceMode(raw json.RawMessage) (toolChoice, error) {
	if isNull(raw) {
		return toolChoice{}, nil
	}
	text, _, _, err := decodeContent[json.RawMessage](raw)
	if err == nil {
		switch text {
		case "auto", "none", "required":
			return toolChoice{mode: text}, nil
		}
		return toolChoice{}, invalid("tool_choice", "unknown tool_choice %q", text)
	}
	var f chatToolChoiceFunction
	if json.Unmarshal(raw, &f) != nil || f.Type != "function" || f.Function.Name == "" {
		return toolChoice{}, invalid("tool_choice", `must be "auto", "none", "required" or {"type":"function","function":{"name":…}}`)
	}
	return toolChoice{mode: "function", name: f.Function.Name}, nil
}
