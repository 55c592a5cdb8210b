package translate

import (
	"strings"
	"time"

	"gateway/proxy/upstreamerr"
)

// responsesStream writes a Responses event stream for both stream
// converters: response.created and response.in_progress first; each output
// item between response.output_item.added and response.output_item.done,
// with its content parts, deltas and done events; and response.completed,
// response.incomplete or response.failed last, carrying the whole response.
// Every event has the next sequence_number, from 0. The done events and the
// final response repeat each item whole, so the items' text and arguments
// are kept until the end.
type responsesStream struct {
	id, model string
	created   int64
	seq       int64
	started   bool
	items     []*streamItem
	outBytes  int64 // text, reasoning and arguments written so far
	general   bool  // tests set it: encoding/json for every event, to compare the fast paths with
}

type itemKind uint8

const (
	itemMessage itemKind = iota
	itemReasoning
	itemCall
)

// prefix gives the kind's id prefix, as OpenAI's item ids have them.
func (k itemKind) prefix() string {
	switch k {
	case itemReasoning:
		return "rs"
	case itemCall:
		return "fc"
	}
	return "msg"
}

// streamItem is an output item being written. Several may be open at once:
// every event names its item.
type streamItem struct {
	kind  itemKind
	id    string
	index int // output_index
	open  bool

	parts    []*streamPart // message: output_text and refusal parts, the last maybe open
	partOpen bool

	summary    strings.Builder // reasoning: the summary text, once summarized is set
	summarized bool
	encrypted  string

	callID, name string // function call
	args         strings.Builder
}

type streamPart struct {
	refusal bool
	text    strings.Builder
}

func newResponsesStream() responsesStream {
	return responsesStream{created: time.Now().Unix()}
}

// streamEvent is any event; eventHeader gives them all header.
type streamEvent interface{ header() eventHeader }

func (h eventHeader) header() eventHeader { return h }

// appendResponsesEvent appends "event: type\ndata: {json}\n\n", the framing
// Anthropic's events have too.
func appendResponsesEvent(dst []byte, ev streamEvent) []byte {
	return appendMessagesEvent(dst, ev.header().Type, ev)
}

func (r *responsesStream) next(typ string) eventHeader {
	h := eventHeader{Type: typ, SequenceNumber: r.seq}
	r.seq++
	return h
}

// start writes response.created and response.in_progress, once; id and
// model are the upstream's (a response id is made from the id, or made up).
func (r *responsesStream) start(out []byte, id, model string) []byte {
	if r.started {
		return out
	}
	r.started = true
	r.id, r.model = responseID(id), model
	obj := r.object("in_progress")
	out = appendResponsesEvent(out, responseEvent{r.next("response.created"), obj})
	return appendResponsesEvent(out, responseEvent{r.next("response.in_progress"), obj})
}

// object gives the response with the items done so far.
func (r *responsesStream) object(status string) responsesObject {
	obj := responsesObject{ID: r.id, Object: "response", CreatedAt: r.created, Status: status, Model: r.model, Output: []any{}}
	for _, it := range r.items {
		if !it.open {
			obj.Output = append(obj.Output, it.value("completed"))
		}
	}
	return obj
}

func (r *responsesStream) add(out []byte, it *streamItem) ([]byte, *streamItem) {
	it.index, it.open = len(r.items), true
	it.id = itemID(it.kind.prefix(), r.id, it.index)
	r.items = append(r.items, it)
	return appendResponsesEvent(out, itemEvent{r.next("response.output_item.added"), it.index, it.value("in_progress")}), it
}

// write adds text to a message item: to its open output_text part, or (with
// refusal) its open refusal part, starting a part of that kind if needed.
func (r *responsesStream) write(out []byte, it *streamItem, refusal bool, text string) []byte {
	if n := len(it.parts); !it.partOpen || it.parts[n-1].refusal != refusal {
		out = r.closePart(out, it)
		p := &streamPart{refusal: refusal}
		it.parts, it.partOpen = append(it.parts, p), true
		out = appendResponsesEvent(out, partEvent{r.next("response.content_part.added"), it.id, it.index, len(it.parts) - 1, p.value()})
	}
	ci := len(it.parts) - 1
	it.parts[ci].text.WriteString(text)
	r.outBytes += int64(len(text))
	if refusal {
		ev := refusalDeltaEvent{r.next("response.refusal.delta"), it.id, it.index, ci, text}
		if r.general {
			return appendResponsesEvent(out, ev)
		}
		return ev.append(out)
	}
	ev := textDeltaEvent{r.next("response.output_text.delta"), it.id, it.index, ci, text, []struct{}{}}
	if r.general {
		return appendResponsesEvent(out, ev)
	}
	return ev.append(out) // by hand: see fastevents_out.go
}

func (r *responsesStream) closePart(out []byte, it *streamItem) []byte {
	if !it.partOpen {
		return out
	}
	it.partOpen = false
	ci := len(it.parts) - 1
	p := it.parts[ci]
	if p.refusal {
		out = appendResponsesEvent(out, refusalDoneEvent{r.next("response.refusal.done"), it.id, it.index, ci, p.text.String()})
	} else {
		out = appendResponsesEvent(out, textDoneEvent{r.next("response.output_text.done"), it.id, it.index, ci, p.text.String(), []struct{}{}})
	}
	return appendResponsesEvent(out, partEvent{r.next("response.content_part.done"), it.id, it.index, ci, p.value()})
}

// think adds text to a reasoning item's summary, starting its one summary
// part on the first text.
func (r *responsesStream) think(out []byte, it *streamItem, text string) []byte {
	if !it.summarized {
		it.summarized = true
		out = appendResponsesEvent(out, summaryPartEvent{r.next("response.reasoning_summary_part.added"), it.id, it.index, 0,
			summaryPart{Type: "summary_text"}})
	}
	it.summary.WriteString(text)
	r.outBytes += int64(len(text))
	ev := summaryDeltaEvent{r.next("response.reasoning_summary_text.delta"), it.id, it.index, 0, text}
	if r.general {
		return appendResponsesEvent(out, ev)
	}
	return ev.append(out)
}

func (r *responsesStream) argue(out []byte, it *streamItem, delta string) []byte {
	it.args.WriteString(delta)
	r.outBytes += int64(len(delta))
	ev := argumentsDeltaEvent{r.next("response.function_call_arguments.delta"), it.id, it.index, delta}
	if r.general {
		return appendResponsesEvent(out, ev)
	}
	return ev.append(out)
}

// close writes an item's done events. A call that got no arguments gets
// "{}", as OpenAI sends for a function without parameters.
func (r *responsesStream) close(out []byte, it *streamItem) []byte {
	if it == nil || !it.open {
		return out
	}
	switch it.kind {
	case itemMessage:
		out = r.closePart(out, it)
	case itemReasoning:
		if it.summarized {
			text := it.summary.String()
			out = appendResponsesEvent(out, summaryDoneEvent{r.next("response.reasoning_summary_text.done"), it.id, it.index, 0, text})
			out = appendResponsesEvent(out, summaryPartEvent{r.next("response.reasoning_summary_part.done"), it.id, it.index, 0,
				summaryPart{Type: "summary_text", Text: text}})
		}
	case itemCall:
		if it.args.Len() == 0 {
			out = r.argue(out, it, "{}")
		}
		out = appendResponsesEvent(out, argumentsDoneEvent{r.next("response.function_call_arguments.done"), it.id, it.index, it.args.String()})
	}
	it.open = false
	return appendResponsesEvent(out, itemEvent{r.next("response.output_item.done"), it.index, it.value("completed")})
}

// complete closes the open items and writes response.completed, or
// response.incomplete for a status incomplete.
func (r *responsesStream) complete(out []byte, status string, incomplete *responsesIncomplete, u responsesUsage) []byte {
	for _, it := range r.items {
		out = r.close(out, it)
	}
	obj := r.object(status)
	obj.IncompleteDetails, obj.Usage = incomplete, &u
	return appendResponsesEvent(out, responseEvent{r.next("response." + status), obj})
}

// fail writes response.failed with the error, the items done so far and the
// usage so far. Open items are left open, not done: a client that acts on
// output_item.done (Codex runs a function call on it) must not act on half
// an item.
func (r *responsesStream) fail(out []byte, code, message string, u responsesUsage) []byte {
	obj := r.object("failed")
	obj.Error, obj.Usage = &responsesFailure{Code: code, Message: message}, &u
	return appendResponsesEvent(out, responseEvent{r.next("response.failed"), obj})
}

// value gives the item as it stands, with status.
func (it *streamItem) value(status string) any {
	switch it.kind {
	case itemMessage:
		content := make([]any, len(it.parts))
		for i, p := range it.parts {
			content[i] = p.value()
		}
		return messageItem{Type: "message", ID: it.id, Status: status, Role: "assistant", Content: content}
	case itemCall:
		return functionCallItem{Type: "function_call", ID: it.id, CallID: it.callID, Name: it.name,
			Arguments: it.args.String(), Status: status}
	}
	r := reasoningItem{Type: "reasoning", ID: it.id, Summary: []summaryPart{}, EncryptedContent: it.encrypted}
	if it.summarized {
		r.Summary = append(r.Summary, summaryPart{Type: "summary_text", Text: it.summary.String()})
	}
	return r
}

func (p *streamPart) value() any {
	if p.refusal {
		return refusalPart{Type: "refusal", Refusal: p.text.String()}
	}
	return newOutputText(p.text.String())
}

// responsesErrorCode gives the code of a failed response for an upstream
// error inside a stream, from its type, code and message: the codes Codex
// acts on where they apply, server_error (which it retries) otherwise.
func responsesErrorCode(e upstreamerr.Error) string {
	both := strings.ToLower(e.Type + " " + e.Code)
	switch {
	case e.Kind == upstreamerr.ContextWindow:
		return "context_length_exceeded"
	case strings.Contains(both, "rate_limit"):
		return "rate_limit_exceeded"
	case strings.Contains(both, "insufficient_quota") || strings.Contains(both, "billing"):
		return "insufficient_quota"
	}
	return "server_error"
}
