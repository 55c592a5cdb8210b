package translate

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"gateway/proxy/upstreamerr"
)

// converseReader reads a ConverseStream into neutral events. The proxy
// decodes AWS's binary event stream: each event comes here by its
// :event-type as the name and its JSON payload as the data.
//
// messageStart gives the start (Converse gives no id and no model). A text
// delta is text (a text block has no start); a contentBlockStart with a
// toolUse starts a tool call whose input fragments follow as its
// arguments; reasoning deltas make a reasoning part, started by its first
// delta (text, signature or redacted content) and signed by a later
// signature delta. contentBlockStop ends a reasoning part or a tool call;
// messageStop gives the stop reason; metadata, the last event, the usage
// and the end. An exception event (throttlingException,
// validationException, modelStreamErrorException, internalServerException,
// serviceUnavailableException) is the upstream's error, classified by its
// type (see upstreamerr.AWSEvent). Unknown events and blocks (citations)
// are skipped; a delta that does not fit its block's kind is an error.
type converseReader struct {
	blocks map[int]blockKind // the content blocks seen, by contentBlockIndex
}

func newConverseReader() *converseReader {
	return &converseReader{blocks: map[int]blockKind{}}
}

func (r *converseReader) read(name string, data []byte, st *streamState, evs []event) ([]event, error) {
	switch name {
	case "messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata":
	default:
		if strings.HasSuffix(name, "Exception") {
			return append(evs, converseFailure(name, data)), nil
		}
		return evs, nil // events Bedrock may add
	}
	var ev converseEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return evs, fmt.Errorf("translate: converse %s event: %w", name, err)
	}
	switch name {
	case "messageStart":
		return append(evs, event{kind: evStart}), nil
	case "contentBlockStart":
		return r.blockStart(evs, ev.ContentBlockIndex, ev.Start), nil
	case "contentBlockDelta":
		return r.blockDelta(evs, ev.ContentBlockIndex, ev.Delta)
	case "contentBlockStop":
		return r.blockStop(evs, ev.ContentBlockIndex), nil
	case "messageStop":
		st.stop = converseStop(ev.StopReason)
		return evs, nil
	}
	if ev.Usage != nil { // metadata
		st.usage, st.finalUsage = ev.Usage.usage(), true
	}
	return append(evs, event{kind: evDone}), nil
}

func (r *converseReader) blockStart(evs []event, index int, s *converseStart) []event {
	evs = append(evs, event{kind: evStart})
	if s == nil || s.ToolUse == nil {
		r.blocks[index] = blockNone // a start Bedrock may add: its block is skipped
		return evs
	}
	r.blocks[index] = blockTool
	return append(evs, event{kind: evToolStart, key: index, id: s.ToolUse.ToolUseID, name: s.ToolUse.Name})
}

func (r *converseReader) blockDelta(evs []event, index int, d *converseDelta) ([]event, error) {
	evs = append(evs, event{kind: evStart})
	if d == nil {
		return evs, fmt.Errorf("translate: converse contentBlockDelta %d has no delta", index)
	}
	kind, seen := r.blocks[index]
	want := blockNone
	switch {
	case d.Text != nil:
		want = blockText
	case d.ToolUse != nil:
		want = blockTool
	case d.ReasoningContent != nil:
		want = blockThinking
	}
	switch {
	case want == blockNone || seen && kind == blockNone:
		return evs, nil // citations, deltas Bedrock may add, and those of skipped blocks
	case !seen && want == blockText:
		r.blocks[index] = blockText
	case !seen && want == blockThinking:
		r.blocks[index] = blockThinking
		rc := d.ReasoningContent
		return append(evs, event{kind: evThinkingStart, key: index, text: rc.Text, signature: rc.Signature,
			redacted: rc.RedactedContent}), nil
	case !seen || kind != want:
		return evs, fmt.Errorf("translate: converse delta for content block %d, which is not of its kind", index)
	}
	return r.delta(evs, index, d)
}

// delta gives the events of a delta for a block of its kind.
func (r *converseReader) delta(evs []event, index int, d *converseDelta) ([]event, error) {
	switch {
	case d.Text != nil && *d.Text != "":
		evs = append(evs, event{kind: evText, key: index, text: *d.Text})
	case d.ToolUse != nil && d.ToolUse.Input != "":
		evs = append(evs, event{kind: evToolArguments, key: index, text: d.ToolUse.Input})
	case d.ReasoningContent != nil:
		rc := d.ReasoningContent
		if rc.RedactedContent != "" {
			return evs, fmt.Errorf("translate: converse redacted content inside reasoning block %d", index)
		}
		if rc.Text != "" {
			evs = append(evs, event{kind: evThinking, key: index, text: rc.Text})
		}
		if rc.Signature != "" {
			evs = append(evs, event{kind: evSignature, key: index, text: rc.Signature})
		}
	}
	return evs, nil
}

// blockStop ends a reasoning part or a tool call; text has no part to end.
func (r *converseReader) blockStop(evs []event, index int) []event {
	return stopBlock(r.blocks, evs, index)
}

// converseFailure reads an exception event, {"message":"…"}. The writers
// type an error in Anthropic's words (see anthropicTypeOfAWS); the
// StreamError keeps the exception's own name.
func converseFailure(name string, data []byte) event {
	var body struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(data, &body) != nil { // not JSON: its text is the message
		body.Message = strings.TrimSpace(string(data))
	}
	detail := upstreamerr.AWSEvent(name, cmp.Or(body.Message, "the upstream reported an error"))
	se := &StreamError{Type: detail.Type, Message: detail.Message}
	detail.Type = anthropicTypeOfAWS(detail.Kind, detail.Type)
	return event{kind: evError, failure: &streamFailure{detail: detail, err: se}}
}

// anthropicTypeOfAWS gives Anthropic's error type for an AWS exception, so
// that every caller's writer names it as it names an Anthropic upstream's:
// a rate limit rate_limit_error, an unavailable service overloaded_error,
// a refused request invalid_request_error, anything else api_error.
func anthropicTypeOfAWS(kind upstreamerr.Kind, typ string) string {
	switch {
	case kind == upstreamerr.RateLimit:
		return "rate_limit_error"
	case typ == "ServiceUnavailableException":
		return "overloaded_error"
	case kind == upstreamerr.Caller || kind == upstreamerr.ContextWindow || kind == upstreamerr.ContentPolicy:
		return "invalid_request_error"
	}
	return "api_error"
}
