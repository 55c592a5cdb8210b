package translate

import (
	"encoding/json"
	"fmt"
	"strings"

	"gateway/proxy/upstreamerr"
)

// messagesWriter writes neutral events as Anthropic Messages events.
//
// The start gives message_start. OpenAI reports usage only at the end, yet
// clients such as LangChain's ChatAnthropic read the input count from
// message_start alone, as Anthropic fills it: so its input_tokens is the
// gateway's estimate of the prompt, or the upstream's own count when the
// first chunk carries one (servers that count every chunk). Text, a refusal
// and each tool call become content blocks, numbered in order: Anthropic
// has one block open at a time, so a block is stopped when output of
// another kind, or another tool call, begins, and fragments of a call whose
// block was stopped cannot be placed. Reasoning is dropped: as a thinking
// block it would carry no Anthropic signature, and Anthropic refuses the
// next request of a conversation holding one ("Invalid signature in
// thinking block"), which happens as soon as a fallback or a mixed pool
// sends it to a Claude model. The end is message_delta (stop reason, the
// upstream's usage) and message_stop. An upstream that sent no usage leaves
// the estimate in message_delta too: Anthropic's SDKs take its
// input_tokens over message_start's, and a zero there would undo it.
type messagesWriter struct {
	id          string
	estimate    int64 // the caller's prompt in tokens as the gateway estimated it
	started     bool  // message_start went out
	open        blockKind
	openIndex   int         // the Anthropic index of the open block
	next        int         // the Anthropic index of the next block
	tools       map[int]int // the blocks of the tool calls started, by key (made at the first)
	calledTools bool
	refused     bool
	outBytes    int64 // text and tool arguments written to the caller
	general     bool  // tests set it: encoding/json for every event, to compare the fast paths with
}

func newMessagesWriter(inputEstimate int64) *messagesWriter {
	return &messagesWriter{estimate: inputEstimate}
}

func (w *messagesWriter) outputBytes() int64 { return w.outBytes }

func (w *messagesWriter) write(out []byte, ev *event, st *streamState) ([]byte, error) {
	switch ev.kind {
	case evStart:
		return w.start(out, ev.id, ev.name, st), nil
	case evText:
		return w.text(out, ev.text), nil
	case evRefusal:
		w.refused = true
		return w.text(out, ev.text), nil
	case evToolStart:
		w.calledTools = true
		out = w.closeBlock(out)
		if w.tools == nil {
			w.tools = map[int]int{}
		}
		w.tools[ev.key] = w.next
		out = w.openBlock(out, blockTool, toolUseID(ev.id), ev.name)
		if ev.text != "" {
			out = w.appendDelta(out, "input_json_delta", ev.text)
		}
	case evToolArguments:
		switch {
		case ev.text == "":
		case w.open != blockTool || w.openIndex != w.tools[ev.key]:
			return out, fmt.Errorf("translate: openai tool call %d sent arguments after its block was closed", ev.key)
		default:
			out = w.appendDelta(out, "input_json_delta", ev.text)
		}
	case evClose:
		out = w.closeBlock(out)
	}
	return out, nil // reasoning is dropped (see messagesWriter); tool calls end when another block begins
}

// text adds text to the open text block, starting one if needed.
func (w *messagesWriter) text(out []byte, text string) []byte {
	if w.open != blockText {
		out = w.closeBlock(out)
		out = w.openBlock(out, blockText, "", "")
	}
	return w.appendDelta(out, "text_delta", text)
}

// finish writes content_block_stop for an open block, message_delta with
// the stop reason and the usage, and message_stop.
func (w *messagesWriter) finish(out []byte, st *streamState) []byte {
	out = w.start(out, "", "", st)
	out = w.closeBlock(out)
	stop := w.stopReason(st.stop)
	if !w.general {
		return appendMessageEnd(out, stop, w.callerUsage(st))
	}
	var delta struct {
		Type  string `json:"type"`
		Delta struct {
			StopReason   string  `json:"stop_reason"`
			StopSequence *string `json:"stop_sequence"`
		} `json:"delta"`
		Usage anthropicUsage `json:"usage"`
	}
	delta.Type = "message_delta"
	delta.Delta.StopReason = stop
	delta.Usage = w.callerUsage(st)
	out = appendMessagesEvent(out, "message_delta", delta)
	return appendMessagesEvent(out, "message_stop", struct {
		Type string `json:"type"`
	}{"message_stop"})
}

// stopReason gives Anthropic's stop_reason (see anthropicStopReason).
func (w *messagesWriter) stopReason(stop stopKind) string {
	return anthropicStopReason(stop, w.calledTools, w.refused)
}

// fail writes an Anthropic error event
// (event: error, data: {"type":"error","error":{"type":"api_error","message"}}),
// which Anthropic's SDKs raise as the stream's failure.
func (w *messagesWriter) fail(out []byte, message string, _ *streamState) []byte {
	return appendMessagesEvent(out, "error", anthropicErrorEvent{Type: "error",
		Error: anthropicErrorDetail{Type: "api_error", Message: message}})
}

// upstreamError writes the upstream's error in Anthropic's shape, typed
// from OpenAI's type and code.
func (w *messagesWriter) upstreamError(out []byte, f *streamFailure, _ *streamState) []byte {
	e := f.detail
	typ, message := anthropicTypeFromChat(e.Type, e.Code), f.err.Message
	if e.Kind == upstreamerr.ContextWindow && !strings.Contains(strings.ToLower(message), "prompt is too long") {
		typ, message = "invalid_request_error", "prompt is too long: "+message
	}
	return appendMessagesEvent(out, "error", anthropicErrorEvent{Type: "error",
		Error: anthropicErrorDetail{Type: typ, Message: message}})
}

func (w *messagesWriter) start(out []byte, id, model string, st *streamState) []byte {
	if w.started {
		return out
	}
	w.started = true
	w.id = messageID(id)
	if !w.general {
		return appendMessageStart(out, w.id, model, w.callerUsage(st))
	}
	var ev struct {
		Type    string              `json:"type"`
		Message messagesResponseOut `json:"message"`
	}
	ev.Type = "message_start"
	ev.Message = messagesResponseOut{ID: w.id, Type: "message", Role: "assistant", Model: model, Content: []any{},
		Usage: w.callerUsage(st)}
	return appendMessagesEvent(out, "message_start", ev)
}

// callerUsage is the usage the caller is told: the upstream's, or before it
// said anything the estimate as the input count.
func (w *messagesWriter) callerUsage(st *streamState) anthropicUsage {
	if st.finalUsage {
		return st.usage.anthropic()
	}
	return anthropicUsage{InputTokens: w.estimate}
}

// appendDelta writes a content_block_delta of the open block: a
// text_delta, or an input_json_delta whose text is its partial_json. It is
// written by hand (see stream_write_messages_fast.go); the event is built as a value
// only on the general path, where it escapes to encoding/json.
func (w *messagesWriter) appendDelta(out []byte, typ, text string) []byte {
	w.outBytes += int64(len(text))
	if !w.general {
		return appendBlockDelta(out, w.openIndex, typ, text)
	}
	ev := blockDeltaEvent{Type: "content_block_delta", Index: w.openIndex, Delta: textDelta{Type: typ, Text: text}}
	if typ == "input_json_delta" {
		partial := text
		ev.Delta.Text, ev.Delta.PartialJSON = "", &partial
	}
	return appendMessagesEvent(out, "content_block_delta", ev)
}

// openBlock starts a block: a text block, or a tool_use block with id and
// name. Its start is written by hand (see stream_write_messages_fast.go), as are the
// other events that start and end the stream.
func (w *messagesWriter) openBlock(out []byte, kind blockKind, id, name string) []byte {
	w.open, w.openIndex = kind, w.next
	w.next++
	if !w.general {
		return appendBlockStart(out, w.openIndex, kind == blockTool, id, name)
	}
	var block any = textBlock{Type: "text"}
	if kind == blockTool {
		block = toolUseBlock{Type: "tool_use", ID: id, Name: name, Input: json.RawMessage("{}")}
	}
	return appendMessagesEvent(out, "content_block_start", struct {
		Type         string `json:"type"`
		Index        int    `json:"index"`
		ContentBlock any    `json:"content_block"`
	}{"content_block_start", w.openIndex, block})
}

func (w *messagesWriter) closeBlock(out []byte) []byte {
	if w.open == blockNone {
		return out
	}
	w.open = blockNone
	if !w.general {
		return appendBlockStop(out, w.openIndex)
	}
	return appendMessagesEvent(out, "content_block_stop", struct {
		Type  string `json:"type"`
		Index int    `json:"index"`
	}{"content_block_stop", w.openIndex})
}

type blockDeltaEvent struct {
	Type  string    `json:"type"`
	Index int       `json:"index"`
	Delta textDelta `json:"delta"`
}

// textDelta is a text_delta or an input_json_delta; only the field of its
// type is written.
type textDelta struct {
	Type        string  `json:"type"`
	Text        string  `json:"text,omitempty"`
	PartialJSON *string `json:"partial_json,omitempty"`
}

// anthropicTypeFromChat maps an OpenAI error type or code, as sent inside a
// stream where no status is left to go by, to Anthropic's type.
func anthropicTypeFromChat(typ, code string) string {
	both := strings.ToLower(typ + " " + code)
	switch {
	case strings.Contains(both, "rate_limit"):
		return "rate_limit_error"
	case strings.Contains(both, "insufficient_quota"):
		return "billing_error"
	case strings.Contains(both, "authentication") || strings.Contains(both, "invalid_api_key"):
		return "authentication_error"
	case strings.Contains(both, "permission"):
		return "permission_error"
	case strings.Contains(both, "overloaded"):
		return "overloaded_error"
	case strings.Contains(both, "invalid_request"):
		return "invalid_request_error"
	}
	return "api_error"
}
