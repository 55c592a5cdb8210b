package translate

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"

	"gateway/proxy/upstreamerr"
)

// geminiReader reads a Gemini stream into neutral events. Every SSE data is
// a whole GenerateContentResponse: each gives the start (responseId,
// modelVersion) and its usageMetadata, whose counts are the stream's so far.
// Its first candidate's parts follow in order: a text is text, a thought
// (thought: true) reasoning, open until a text or a call comes; a
// functionCall comes whole, so it is a tool call's start (id made by
// geminiCallID, carrying the part's thoughtSignature, and its args as the
// arguments) and its end at once. The chunk with a finishReason (the last,
// with the final usage) closes every part, gives the stop reason (see
// geminiStop) and ends the stream: Gemini sends no [DONE]. A chunk whose
// prompt was blocked has no candidate and ends the stream too, with a
// refusal. An error object ({"error":{…}}) is an upstream error.
type geminiReader struct {
	tag       string // the call ids' tag, from the first responseId
	calls     int    // the calls so far: the next one's n, and its key
	thoughts  int    // the reasoning parts so far: the key of the last
	reasoning bool   // a reasoning part is open
}

func newGeminiReader() *geminiReader {
	return &geminiReader{}
}

func (r *geminiReader) read(name string, data []byte, st *streamState, evs []event) ([]event, error) {
	if name != "" && name != "message" {
		return evs, nil
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return evs, nil
	}
	var c geminiResponse
	if err := json.Unmarshal(data, &c); err != nil {
		return evs, fmt.Errorf("translate: gemini chunk: %w", err)
	}
	if !isNull(c.Error) {
		return append(evs, geminiStreamFailure(c.Error)), nil
	}
	if u := c.UsageMetadata; u != nil { // before the start, which may carry it
		st.usage, st.finalUsage = u.usage(), true
	}
	if r.tag == "" {
		r.tag = geminiTag(c.ResponseID)
	}
	evs = append(evs, event{kind: evStart, id: c.ResponseID, name: c.ModelVersion})
	if len(c.Candidates) == 0 {
		if f := c.PromptFeedback; f != nil && f.BlockReason != "" {
			st.stop = stopRefusal
			evs = append(evs, event{kind: evRefusal, text: blockedPrompt(f)}, event{kind: evClose}, event{kind: evDone})
		}
		return evs, nil
	}
	cand := &c.Candidates[0]
	if cand.Content != nil {
		for i := range cand.Content.Parts {
			evs = r.part(evs, &cand.Content.Parts[i])
		}
	}
	if cand.FinishReason != "" {
		st.stop = geminiStop(cand.FinishReason, r.calls > 0)
		evs = append(r.endReasoning(evs), event{kind: evClose}, event{kind: evDone})
	}
	return evs, nil
}

// part reads one part of a candidate's content.
func (r *geminiReader) part(evs []event, p *geminiPart) []event {
	switch {
	case p.FunctionCall != nil:
		key := r.calls
		r.calls++
		return append(r.endReasoning(evs),
			event{kind: evToolStart, key: key, id: geminiCallID(r.tag, key, p.ThoughtSignature),
				name: p.FunctionCall.Name, text: toolArguments(p.FunctionCall.Args)},
			event{kind: evToolEnd, key: key})
	case p.Text == "": // a signature's carrier, or a part of another kind
		return evs
	case p.Thought && r.reasoning:
		return append(evs, event{kind: evThinking, key: r.thoughts, text: p.Text})
	case p.Thought:
		r.reasoning = true
		r.thoughts++
		return append(evs, event{kind: evThinkingStart, key: r.thoughts, text: p.Text})
	}
	return append(r.endReasoning(evs), event{kind: evText, text: p.Text})
}

// endReasoning ends the open reasoning part, if any.
func (r *geminiReader) endReasoning(evs []event) []event {
	if !r.reasoning {
		return evs
	}
	r.reasoning = false
	return append(evs, event{kind: evThinkingEnd, key: r.thoughts})
}

// geminiStreamFailure reads a chunk's error, as the gateway's classifier
// reads Google's errors. The StreamError keeps Google's status as its type;
// the detail the writers shape the caller's error from gets the Anthropic
// type of that status, a type every writer maps.
func geminiStreamFailure(raw json.RawMessage) event {
	e := upstreamerr.ReadObject(raw)
	se := &StreamError{Type: cmp.Or(e.Type, "api_error"), Message: cmp.Or(e.Message, "the upstream reported an error")}
	e.Type = anthropicTypeOfGoogle(e.Type)
	return event{kind: evError, failure: &streamFailure{detail: e, err: se}}
}

// anthropicTypeOfGoogle gives the Anthropic error type of a Google status.
func anthropicTypeOfGoogle(status string) string {
	switch status {
	case "RESOURCE_EXHAUSTED":
		return "rate_limit_error"
	case "UNAVAILABLE":
		return "overloaded_error"
	case "INVALID_ARGUMENT", "FAILED_PRECONDITION", "OUT_OF_RANGE":
		return "invalid_request_error"
	case "UNAUTHENTICATED":
		return "authentication_error"
	case "PERMISSION_DENIED":
		return "permission_error"
	case "NOT_FOUND":
		return "not_found_error"
	case "DEADLINE_EXCEEDED":
		return "timeout_error"
	}
	return "api_error"
}
