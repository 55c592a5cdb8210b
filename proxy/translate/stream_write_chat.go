package translate

import (
	"time"

	"gateway/proxy/upstreamerr"
)

// chatWriter writes neutral events as OpenAI chat.completion.chunk events.
//
// The start gives the first chunk (role assistant, empty content); text
// becomes delta.content; a tool call becomes one whose first delta carries
// index, id, type and function name, and whose fragments follow as
// function.arguments (a call without arguments gets "{}" when it ends);
// parallel tool calls are numbered 0, 1, … in the order they start.
// Reasoning becomes delta.reasoning_content, which OpenAI-compatible
// clients read and OpenAI's SDKs ignore; signatures are dropped. The end is
// a last chunk with the finish_reason, the usage chunk when the caller
// asked for it (stream_options.include_usage), and data: [DONE].
type chatWriter struct {
	includeUsage bool
	created      int64
	id, model    string
	started      bool              // the first chunk went out
	tools        map[int]*chatCall // the tool calls started, by key
	toolCalls    int               // tool calls started so far: the OpenAI index of the next
	outBytes     int64             // text, reasoning and tool arguments written to the caller
	head         []byte            // every chunk's start (see chunkHead), once started
	general      bool              // tests set it: encoding/json for every event, to compare the fast paths with
}

// chatCall is a tool call being written.
type chatCall struct {
	index int  // its OpenAI tool_calls index
	args  bool // some of its arguments went out
}

func newChatWriter(includeUsage bool) *chatWriter {
	return &chatWriter{includeUsage: includeUsage, created: time.Now().Unix(), tools: map[int]*chatCall{}}
}

func (w *chatWriter) outputBytes() int64 { return w.outBytes }

func (w *chatWriter) write(out []byte, ev *event, _ *streamState) ([]byte, error) {
	switch ev.kind {
	case evStart:
		return w.start(out, ev.id, ev.name), nil
	case evText:
		return w.chunk(out, chatDelta{Content: &ev.text}, ""), nil
	case evThinkingStart, evThinking:
		if ev.text != "" {
			out = w.chunk(out, chatDelta{ReasoningContent: ev.text}, "")
		}
	case evToolStart:
		call := &chatCall{index: w.toolCalls, args: ev.text != ""}
		w.toolCalls++
		w.tools[ev.key] = call
		return w.chunk(out, chatDelta{ToolCalls: []chatToolDelta{{Index: call.index, ID: toolUseID(ev.id), Type: "function",
			Function: chatFunctionDelta{Name: ev.name, Arguments: ev.text}}}}, ""), nil
	case evToolArguments:
		if call := w.tools[ev.key]; call != nil && ev.text != "" {
			call.args = true
			out = w.chunk(out, chatDelta{ToolCalls: []chatToolDelta{{Index: call.index,
				Function: chatFunctionDelta{Arguments: ev.text}}}}, "")
		}
	case evToolEnd:
		call := w.tools[ev.key]
		delete(w.tools, ev.key)
		if call != nil && !call.args { // as OpenAI sends for a function without parameters
			out = w.chunk(out, chatDelta{ToolCalls: []chatToolDelta{{Index: call.index,
				Function: chatFunctionDelta{Arguments: "{}"}}}}, "")
		}
	}
	return out, nil // refusals come only from OpenAI upstreams; parts that end need no event
}

// start gives the first chunk, once; id and model are the upstream's (an
// id is made up if it gave none).
func (w *chatWriter) start(out []byte, id, model string) []byte {
	if w.started {
		return out
	}
	w.started = true
	w.id, w.model = chatID(id), model
	empty := ""
	return w.chunk(out, chatDelta{Role: "assistant", Content: &empty}, "")
}

// finish writes a last chunk with the finish_reason, the usage chunk
// (empty choices) when the caller asked for it, and data: [DONE].
func (w *chatWriter) finish(out []byte, st *streamState) []byte {
	out = w.start(out, "", "")
	out = w.chunk(out, chatDelta{}, finishReasonOf(st.stop))
	if w.includeUsage {
		u := st.usage.chat()
		if !w.general {
			return append(appendUsageChunk(out, w.chunkHead(), &u), chatDone...)
		}
		out = appendChatEvent(out, chatChunk{ID: w.id, Object: "chat.completion.chunk", Created: w.created,
			Model: w.model, Choices: []chatChunkChoice{}, Usage: &u})
	}
	return append(out, chatDone...)
}

// finishReasonOf gives OpenAI's finish_reason.
func finishReasonOf(stop stopKind) string {
	switch stop {
	case stopLength:
		return "length"
	case stopTool:
		return "tool_calls"
	case stopRefusal:
		return "content_filter"
	}
	return "stop"
}

// fail writes an OpenAI error event
// (data: {"error":{"message","type":"server_error","param":null,"code":"upstream_stream_error"}}),
// which OpenAI's SDKs raise as the stream's failure; no [DONE] follows.
func (w *chatWriter) fail(out []byte, message string, _ *streamState) []byte {
	return append(out, chatErrorEvent(message, "server_error", "upstream_stream_error")...)
}

// upstreamError writes the upstream's error in OpenAI's shape.
func (w *chatWriter) upstreamError(out []byte, f *streamFailure, _ *streamState) []byte {
	typ, code := chatErrorType(f.detail.Type, 0)
	if f.detail.Kind == upstreamerr.ContextWindow {
		typ, code = "invalid_request_error", "context_length_exceeded"
	}
	return append(out, chatErrorEvent(f.err.Message, typ, code)...)
}

func chatErrorEvent(message, typ, code string) []byte {
	body := chatErrorBody(message, typ, code, "")
	out := make([]byte, 0, len(body)+8)
	out = append(out, "data: "...)
	out = append(out, body...)
	return append(out, "\n\n"...)
}

// chunk writes a chunk with choice 0's delta and finish_reason. It is
// written by hand (see stream_write_chat_fast.go), as the usage chunk is.
func (w *chatWriter) chunk(dst []byte, delta chatDelta, finish string) []byte {
	w.outBytes += delta.outputBytes()
	if !w.general {
		return appendFastChunk(dst, w.chunkHead(), &delta, finish)
	}
	c := chatChunk{ID: w.id, Object: "chat.completion.chunk", Created: w.created, Model: w.model,
		Choices: []chatChunkChoice{{Delta: delta}}}
	if finish != "" {
		f := finish // not &finish: the fast path would allocate it too
		c.Choices[0].FinishReason = &f
	}
	return appendChatEvent(dst, c)
}

// chunkHead gives what every chunk starts with (see chunkHead), made once
// the stream's id and model are known.
func (w *chatWriter) chunkHead() []byte {
	if w.head == nil {
		w.head = chunkHead(w.id, w.created, w.model)
	}
	return w.head
}
