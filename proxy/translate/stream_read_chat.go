package translate

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"

	"gateway/proxy/upstreamerr"
)

// chatReader reads an OpenAI chat completion stream into neutral events.
//
// Every chunk gives the start (the first one's id and model). Reasoning
// that compatible servers send (reasoning_content, or reasoning) is a
// reasoning part, open until text, a refusal or another tool call begins;
// content is text, refusal a refusal; each tool call's first delta starts a
// tool call (key: its index) whose arguments follow. A delta with a new id
// at a known index is a new call: some compatible servers leave index out,
// so that every call reads as index 0. finish_reason closes every part and
// gives the stop reason; a usage chunk gives the usage; data: [DONE] ends
// the stream. Only choice 0 is read (requests with n > 1 are refused).
type chatReader struct {
	started   bool           // a chunk was read: its ids are no longer needed
	calls     map[int]string // the tool calls started, their ids by index (made at the first)
	reasoning bool           // a reasoning part is open
	reader    jsonReader     // the fast path's, kept for its buffer
	chunk     fastChunk      // the fast path's chunk, kept so that it need not be allocated
	general   bool           // tests set it: encoding/json for every event, to compare the fast paths with
}

func newChatReader() *chatReader {
	return &chatReader{}
}

func (r *chatReader) read(name string, data []byte, st *streamState, evs []event) ([]event, error) {
	if name != "" && name != "message" && name != "error" {
		return evs, nil
	}
	data = bytes.TrimSpace(data)
	if string(data) == "[DONE]" {
		return append(evs, event{kind: evDone}), nil
	}
	// Most of a stream is chunks of one delta, and its end a chunk with the
	// usage: they are read by hand (see stream_read_chat_fast.go).
	if !r.general {
		if c := &r.chunk; r.reader.readChunk(data, !r.started, c) {
			if c.hasUsage { // before the start, which may carry it
				st.usage, st.finalUsage = c.usage.usage(), true
			}
			evs = r.start(evs, c.id, c.model)
			if c.hasChoice {
				evs = r.choice(evs, &c.choice, st)
			}
			return evs, nil
		}
	}
	var c chatStreamChunk
	if err := json.Unmarshal(data, &c); err != nil {
		return evs, fmt.Errorf("translate: openai chunk: %w", err)
	}
	if !isNull(c.Error) {
		return append(evs, chatStreamFailure(c.Error)), nil
	}
	if c.Usage != nil {
		st.usage, st.finalUsage = c.Usage.usage(), true
	}
	evs = r.start(evs, c.ID, c.Model)
	for i := range c.Choices {
		if c.Choices[i].Index == 0 {
			evs = r.choice(evs, &c.Choices[i], st)
		}
	}
	return evs, nil
}

func (r *chatReader) start(evs []event, id, model string) []event {
	r.started = true
	return append(evs, event{kind: evStart, id: id, name: model})
}

func (r *chatReader) choice(evs []event, c *chatStreamChoice, st *streamState) []event {
	d := &c.Delta
	if text := reasoningText(d.ReasoningContent, d.Reasoning); text != "" {
		if !r.reasoning {
			r.reasoning = true
			evs = append(evs, event{kind: evThinkingStart})
		}
		evs = append(evs, event{kind: evThinking, text: text})
	}
	if d.Content != "" {
		evs = append(r.endReasoning(evs), event{kind: evText, text: d.Content})
	}
	if d.Refusal != "" {
		evs = append(r.endReasoning(evs), event{kind: evRefusal, text: d.Refusal})
	}
	for i := range d.ToolCalls {
		tc := &d.ToolCalls[i]
		id, seen := r.calls[tc.Index]
		switch {
		case !seen || tc.ID != "" && tc.ID != id:
			if r.calls == nil {
				r.calls = map[int]string{}
			}
			r.calls[tc.Index] = tc.ID
			evs = append(r.endReasoning(evs), event{kind: evToolStart, key: tc.Index, id: tc.ID,
				name: tc.Function.Name, text: tc.Function.Arguments})
		case tc.Function.Name != "" || tc.Function.Arguments != "":
			evs = append(evs, event{kind: evToolArguments, key: tc.Index, name: tc.Function.Name, text: tc.Function.Arguments})
		}
	}
	if c.FinishReason != "" {
		st.stop = chatStop(c.FinishReason)
		r.reasoning = false
		evs = append(evs, event{kind: evClose})
	}
	return evs
}

// endReasoning ends the open reasoning part, if any.
func (r *chatReader) endReasoning(evs []event) []event {
	if !r.reasoning {
		return evs
	}
	r.reasoning = false
	return append(evs, event{kind: evThinkingEnd})
}

// chatStop reads OpenAI's finish_reason.
func chatStop(finish string) stopKind {
	switch finish {
	case "length":
		return stopLength
	case "tool_calls", "function_call":
		return stopTool
	case "content_filter":
		return stopRefusal
	}
	return stopEnd
}

// chatStreamFailure reads a chunk's error.
func chatStreamFailure(raw json.RawMessage) event {
	e := upstreamerr.ReadObject(raw)
	se := &StreamError{Type: cmp.Or(e.Type, e.Code, "api_error"), Message: cmp.Or(e.Message, "the upstream reported an error")}
	return event{kind: evError, failure: &streamFailure{detail: e, err: se}}
}
