package translate

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// A Responses request's instructions and input are read once into entries,
// checked and refused there, and then written by Request(Responses, Chat) and
// Request(Responses, Messages) each in its own protocol.

type entryKind uint8

const (
	entrySystem    entryKind = iota // instructions, or a system or developer message
	entryUser                       // a user message
	entryAssistant                  // an assistant message: text only
	entryCall                       // function_call or custom_tool_call
	entryOutput                     // function_call_output or custom_tool_call_output
	entryThinking                   // a reasoning item holding an Anthropic thinking block
)

// inputEntry is one instruction, message or item of the conversation.
type inputEntry struct {
	kind      entryKind
	param     string      // where it was read, for errors: "input[3]"
	parts     []inputPart // system, user and assistant text; a tool output's content
	asString  bool        // an output given as a plain string (parts hold it as one text)
	callID    string
	name      string
	arguments string
	thinking  json.RawMessage // entryThinking: the Anthropic block to send back
}

type inputPartKind uint8

const (
	inputText inputPartKind = iota
	inputImage
	inputFile
)

// inputPart is text, an image (by URL, data URLs included) or an inline file.
type inputPart struct {
	kind     inputPartKind
	param    string
	text     string // the text, or the image's URL
	fileData string
	filename string
}

// refuseStateful rejects what needs state kept between requests: this
// gateway keeps none. store false (Codex's) or absent is fine.
func refuseStateful(req *responsesRequest) error {
	const how = "this gateway keeps no responses; send the whole conversation in input, with store: false"
	switch {
	case req.PreviousResponseID != nil && *req.PreviousResponseID != "":
		return invalid("previous_response_id", "previous_response_id is not supported: %s", how)
	case req.Store != nil && *req.Store:
		return invalid("store", "store: true is not supported: %s", how)
	case !isNull(req.Conversation):
		return invalid("conversation", "conversations are not supported: %s", how)
	case req.Background != nil && *req.Background:
		return invalid("background", "background responses are not supported (they are stored and polled): %s", how)
	case !isNull(req.Prompt):
		return invalid("prompt", "stored prompt templates are not supported: send instructions and input instead")
	}
	return nil
}

// readInput reads instructions (a string) and input (a string, or a list of
// items) into entries, instructions first.
func readInput(instructions, input json.RawMessage) ([]inputEntry, error) {
	var entries []inputEntry
	text, _, isArray, err := decodeContent[json.RawMessage](instructions)
	if err != nil || isArray {
		return nil, invalid("instructions", "must be a string")
	}
	if text != "" {
		entries = append(entries, inputEntry{kind: entrySystem, param: "instructions", parts: []inputPart{{kind: inputText, text: text}}})
	}
	text, items, isArray, err := decodeContent[json.RawMessage](input)
	switch {
	case err != nil:
		return nil, invalid("input", "must be a string or a list of items")
	case !isArray:
		if text != "" {
			entries = append(entries, inputEntry{kind: entryUser, param: "input", asString: true, parts: []inputPart{{kind: inputText, text: text}}})
		}
		return entries, nil
	}
	for i, raw := range items {
		param := fmt.Sprintf("input[%d]", i)
		var item responsesItem
		if err := json.Unmarshal(raw, &item); err != nil {
			return nil, contentError(param, err)
		}
		entry, ok, err := readItem(param, &item)
		if err != nil {
			return nil, err
		}
		if ok {
			entries = append(entries, entry)
		}
	}
	return entries, nil
}

// readItem reads one input item; ok is false for an item that is dropped.
func readItem(param string, it *responsesItem) (inputEntry, bool, error) {
	e := inputEntry{param: param, callID: it.CallID, name: it.Name}
	var err error
	switch it.Type {
	case "message", "":
		return readMessage(param, it)
	case "function_call":
		e.kind, e.arguments = entryCall, it.Arguments
	case "custom_tool_call":
		// Its freeform input becomes the one argument of a function call, the
		// shape custom tools would have as functions.
		e.kind, e.arguments = entryCall, string(mustMarshal(map[string]string{"input": it.Input}))
	case "function_call_output", "custom_tool_call_output":
		e.kind = entryOutput
		e.parts, e.asString, err = readOutput(param+".output", it.Output)
	case "reasoning":
		block, ok := decodeThinking(it.EncryptedContent)
		if !ok {
			return e, false, nil // OpenAI's own, or without a signature: no one else can read it
		}
		e.kind, e.thinking = entryThinking, block
	case "item_reference":
		return e, false, invalid(param, "item references are not supported: this gateway keeps no items; send the item itself")
	default:
		if droppedItemType(it.Type) {
			return e, false, nil
		}
		return e, false, invalid(param+".type", "input item type %q cannot be translated", it.Type)
	}
	if (e.kind == entryCall || e.kind == entryOutput) && e.callID == "" {
		return e, false, invalid(param+".call_id", "a %s needs a call_id", it.Type)
	}
	return e, err == nil, err
}

// droppedItemType lists the items of OpenAI's built-in tools: they ran on
// OpenAI's side, and the model's later text already says what came of them.
func droppedItemType(typ string) bool {
	switch typ {
	case "web_search_call", "file_search_call", "code_interpreter_call", "image_generation_call",
		"computer_call", "computer_call_output", "mcp_call", "mcp_list_tools",
		"mcp_approval_request", "mcp_approval_response", "tool_search_call", "tool_search_output":
		return true
	}
	return false
}

func readMessage(param string, it *responsesItem) (inputEntry, bool, error) {
	e := inputEntry{param: param}
	var allowed []string
	switch it.Role {
	case "system", "developer":
		e.kind, allowed = entrySystem, []string{"input_text"}
	case "user":
		e.kind, allowed = entryUser, []string{"input_text", "input_image", "input_file"}
	case "assistant":
		e.kind, allowed = entryAssistant, []string{"output_text", "input_text", "refusal"}
	default:
		return e, false, invalid(param+".role", "unknown role %q", it.Role)
	}
	var err error
	e.parts, e.asString, err = readParts(param+".content", it.Content, allowed)
	return e, err == nil, err
}

// readOutput reads a tool output: a string, or input_text, input_image and
// input_file parts.
func readOutput(param string, raw json.RawMessage) ([]inputPart, bool, error) {
	return readParts(param, raw, []string{"input_text", "output_text", "input_image", "input_file"})
}

// readParts reads a content: a string (one text part, asString set), null,
// or parts whose types are among allowed.
func readParts(param string, raw json.RawMessage, allowed []string) ([]inputPart, bool, error) {
	text, parts, isArray, err := decodeContent[responsesPart](raw)
	if err != nil {
		return nil, false, contentError(param, err)
	}
	if !isArray {
		return []inputPart{{kind: inputText, param: param, text: text}}, true, nil
	}
	out := make([]inputPart, 0, len(parts))
	for j := range parts {
		pp := fmt.Sprintf("%s[%d]", param, j)
		if !isAllowed(parts[j].Type, allowed) {
			return nil, false, invalid(pp, "content part type %q is not allowed here", parts[j].Type)
		}
		part, err := readPart(pp, &parts[j])
		if err != nil {
			return nil, false, err
		}
		out = append(out, part)
	}
	return out, false, nil
}

func isAllowed(typ string, allowed []string) bool {
	for _, a := range allowed {
		if typ == a {
			return true
		}
	}
	return false
}

func readPart(param string, p *responsesPart) (inputPart, error) {
	switch p.Type {
	case "input_image":
		url := imageURL(p.ImageURL)
		if url == "" {
			return inputPart{}, invalid(param, "only images sent by URL or as a base64 data URL can be translated, not by file_id")
		}
		return inputPart{kind: inputImage, param: param, text: url}, nil
	case "input_file":
		if p.FileData == "" {
			return inputPart{}, invalid(param, "only files sent inline as file_data can be translated, not by file_id or file_url")
		}
		return inputPart{kind: inputFile, param: param, fileData: p.FileData, filename: p.Filename}, nil
	}
	return inputPart{kind: inputText, param: param, text: p.Text + p.Refusal}, nil // only the field of its type is set
}

// The encrypted_content of a reasoning item this package writes for an
// Anthropic thinking block is the block itself, as JSON in base64 behind a
// prefix: Anthropic needs the block back exactly, signature and all, in a
// later tool-use turn, and a Responses client sends reasoning items back with
// their encrypted_content (Codex asks for it with include
// reasoning.encrypted_content and store: false). It is opaque to the client,
// not secret: the thinking is in the summary too. The prefix tells these
// from OpenAI's own encrypted reasoning, which only OpenAI can read.
const thinkingPrefix = "anthropic-thinking:"

// encodeThinking gives the encrypted_content for a thinking block (with its
// signature) or a redacted_thinking block (with its data); "" for a block
// that cannot be sent back, a thinking block without a signature.
func encodeThinking(b *anthropicBlock) string {
	v := sendableThinking(b)
	if v == nil {
		return ""
	}
	return thinkingPrefix + base64.RawURLEncoding.EncodeToString(mustMarshal(v))
}

// decodeThinking is the inverse of encodeThinking: it gives the block to
// send back to Anthropic.
func decodeThinking(s string) (json.RawMessage, bool) {
	rest, ok := strings.CutPrefix(s, thinkingPrefix)
	if !ok {
		return nil, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil {
		return nil, false
	}
	var b anthropicBlock
	if json.Unmarshal(raw, &b) != nil {
		return nil, false
	}
	v := sendableThinking(&b)
	if v == nil {
		return nil, false
	}
	return mustMarshal(v), true
}

// sendableThinking gives a thinking or redacted_thinking block with exactly
// the fields Anthropic takes back, or nil if it cannot be sent back.
func sendableThinking(b *anthropicBlock) any {
	switch {
	case b.Type == "thinking" && b.Signature != "":
		return struct {
			Type      string `json:"type"`
			Thinking  string `json:"thinking"`
			Signature string `json:"signature"`
		}{"thinking", b.Thinking, b.Signature}
	case b.Type == "redacted_thinking" && b.Data != "":
		return struct {
			Type string `json:"type"`
			Data string `json:"data"`
		}{"redacted_thinking", b.Data}
	}
	return nil
}
