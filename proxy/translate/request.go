package translate

import "encoding/json"

// A request goes through a neutral form: one reader per caller protocol
// (readChatRequest, readMessagesRequest, readResponsesRequest) and one writer
// per upstream protocol (writeChatBody, writeMessagesBody, writeGeminiBody,
// writeConverseBody), so a new protocol adds a reader or a writer, not a
// converter for every pair (see Request). A reader refuses what the neutral
// form cannot carry; a writer refuses what its protocol cannot take.

// request is a request read out of its protocol.
type request struct {
	messages    []message
	parts       []part   // the messages' parts, one after another: a message holds a range
	maxTokens   *int64   // as given; the OpenAI readers keep only a positive one
	temperature *float64 // as given: a writer clamps it to its protocol's range
	topP        *float64
	stop        []string
	stream      bool
	tools       []tool
	toolChoice  toolChoice // mode "" when none was given or no tool is left
	parallel    *bool      // parallel_tool_calls; meant only with tools
	user        string     // the caller's end user, as given
	effort      string     // reasoning effort (minimal … xhigh, none); "" for none given
	format      *chatResponseFormat
	topK        *int64 // top_k, as given; only Gemini and Converse take it
	budget      int64  // Anthropic thinking's budget_tokens, as given; only Converse takes it
	// thinkingOneWay: the caller cannot send signed thinking back in later
	// tool-use turns (a chat caller), so an Anthropic writer leaves its
	// effort out: thinking on would make Anthropic want it back.
	thinkingOneWay bool
	// topKAnyModel: top_k is meant for any compatible server (a chat
	// caller's), not for Claude alone, so Converse, which can pass it only
	// to Claude, leaves it out.
	topKAnyModel bool
}

type role uint8

const (
	roleSystem    role = iota // a system or developer prompt, wherever it stands
	roleUser                  // a user turn; Anthropic's carry tool results as parts
	roleAssistant             // an assistant turn: texts, thinking and calls in order
	roleTool                  // the result of one call, as OpenAI sends it
)

// message is one turn of the conversation.
type message struct {
	role     role
	from, to int    // its parts, request.parts[from:to]
	asString bool   // content given as a plain string: its one part holds it
	callID   string // roleTool: the call answered
}

type partKind uint8

const (
	partText         partKind = iota // text (empty texts are kept: writers skip them)
	partImage                        // an image by URL, a data URL for inline data
	partFile                         // an inline file (a PDF): data URL and name
	partDocumentText                 // a plain-text document: its text
	partThinking                     // an Anthropic thinking block to send back as is; in an answer, the text and signature
	partCall                         // a tool call: id, name, arguments (JSON text)
	partToolResult                   // a tool result in a user turn; its content is the n parts after it
	partRefusal                      // an answer's refusal: its text
	partRedacted                     // an answer's redacted thinking: its data in signature
)

// part is a piece of a message's content, or of an answer (see answer).
type part struct {
	kind     partKind
	asString bool   // partToolResult: content given as a plain string
	cache    bool   // a prompt-cache breakpoint after it (Anthropic's cache_control)
	n        int    // partToolResult: how many parts after it are its content
	text     string // the text, the image's URL, the file's data URL or the call's arguments
	id       string // partCall, partToolResult: the call's id
	name     string // partCall: the tool; partFile: the file name
	block    json.RawMessage
	// signature is an answer's thinking's signature, or its redacted
	// thinking's data (a request's thinking keeps its block whole).
	signature string
	param     string // where it was read, for errors; "" where no writer refuses it
}

// tool is a function the model may call.
type tool struct {
	name, description string
	parameters        json.RawMessage
	strict            *bool
	cache             bool // a prompt-cache breakpoint after it
}

// toolChoice is a tool_choice read into what every protocol has: a mode
// ("" for none given, auto, none, required, or function with a name).
type toolChoice struct {
	mode string
	name string
}

// partsOf gives a message's parts.
func (r *request) partsOf(m *message) []part { return r.parts[m.from:m.to] }

// add appends a message whose parts were appended since from.
func (r *request) add(m message, from int) {
	m.from, m.to = from, len(r.parts)
	r.messages = append(r.messages, m)
}

// splitContent decodes a message's content with decode: a string becomes
// its one text part (asString); a list of parts or blocks is left to the
// caller to read.
func splitContent[T any](r *request, raw json.RawMessage, decode func(json.RawMessage) (string, []T, bool, error)) (list []T, asString bool, err error) {
	text, list, isArray, err := decode(raw)
	if err != nil {
		return nil, false, err
	}
	if !isArray {
		r.parts = append(r.parts, part{kind: partText, text: text})
		return nil, true, nil
	}
	return list, false, nil
}

// texts gives the non-empty texts among parts.
func texts(parts []part) []string {
	out := make([]string, 0, len(parts))
	for i := range parts {
		if parts[i].kind == partText && parts[i].text != "" {
			out = append(out, parts[i].text)
		}
	}
	return out
}

// next gives the part at i and the index after it and its content.
func next(parts []part, i int) (p *part, content []part, after int) {
	p = &parts[i]
	if p.kind != partToolResult {
		return p, nil, i + 1
	}
	return p, parts[i+1 : i+1+p.n], i + 1 + p.n
}
