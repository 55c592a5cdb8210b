package translate

import (
	"fmt"
	"strings"
	"time"

	"gateway/proxy/upstreamerr"
)

// responsesWriter writes neutral events as a Responses event stream (for
// Codex, say): response.created and response.in_progress first; each output
// item between response.output_item.added and response.output_item.done,
// with its content parts, deltas and done events; and response.completed,
// response.incomplete or response.failed last, carrying the whole response.
// Every event has the next sequence_number, from 0. The done events and the
// final response repeat each item whole, so the items' text and arguments
// are kept until the end.
//
// The response id is the upstream's with chatcmpl- or msg_ replaced by
// resp_. Text becomes a message item's output_text deltas (consecutive text
// one message), a refusal its refusal part; a reasoning part becomes a
// reasoning item whose summary deltas carry the text and whose
// encrypted_content, when the part ends, carries Anthropic's signed block
// (see encodeThinking) so that a caller who sends reasoning items back keeps
// Anthropic's tool-use turns whole; a redacted_thinking block becomes a
// reasoning item with only encrypted_content. A tool call becomes a
// function_call item (its id as call_id) whose fragments follow as
// function_call_arguments deltas, "{}" for a call without arguments. Items
// other than text end the open message; parts that end, or every part at
// OpenAI's finish_reason, end their items. The end is response.completed,
// or response.incomplete for a stop by length or refusal, with the usage.
type responsesWriter struct {
	id, model string
	created   int64
	seq       int64
	started   bool
	items     []*streamItem
	message   *streamItem         // the open message item text adds to
	reasoning map[int]*streamItem // the reasoning items, by key
	calls     map[int]*streamItem // the function_call items, by key
	outBytes  int64               // text, reasoning and arguments written so far
	general   bool                // tests set it: encoding/json for every event, to compare the fast paths with
}

func newResponsesWriter() *responsesWriter {
	return &responsesWriter{created: time.Now().Unix(), reasoning: map[int]*streamItem{}, calls: map[int]*streamItem{}}
}

func (r *responsesWriter) outputBytes() int64 { return r.outBytes }

func (r *responsesWriter) write(out []byte, ev *event, _ *streamState) ([]byte, error) {
	switch ev.kind {
	case evStart:
		return r.start(out, ev.id, ev.name), nil
	case evText, evRefusal:
		if r.message == nil {
			out, r.message = r.add(out, &streamItem{kind: itemMessage})
		}
		return r.text(out, r.message, ev.kind == evRefusal, ev.text), nil
	case evThinkingStart:
		var it *streamItem
		out, it = r.addOther(out, &streamItem{kind: itemReasoning, signature: ev.signature, redacted: ev.redacted})
		r.reasoning[ev.key] = it
		if ev.text != "" {
			out = r.think(out, it, ev.text)
		}
	case evThinking:
		if it := r.reasoning[ev.key]; it != nil {
			out = r.think(out, it, ev.text)
		}
	case evSignature:
		if it := r.reasoning[ev.key]; it != nil {
			it.signature += ev.text
		}
	case evThinkingEnd:
		if it := r.reasoning[ev.key]; it != nil {
			delete(r.reasoning, ev.key)
			it.encrypted = encodeThinking(it.signedBlock())
			out = r.close(out, it)
		}
	case evToolStart:
		var it *streamItem
		out, it = r.addOther(out, &streamItem{kind: itemCall, callID: callID(ev.id), name: ev.name})
		r.calls[ev.key] = it
		if ev.text != "" {
			out = r.argue(out, it, ev.text)
		}
	case evToolArguments:
		return r.arguments(out, ev)
	case evToolEnd:
		if it := r.calls[ev.key]; it != nil {
			delete(r.calls, ev.key)
			out = r.close(out, it)
		}
	case evClose:
		for _, it := range r.items {
			out = r.close(out, it)
		}
		r.message = nil
		clear(r.reasoning)
	}
	return out, nil
}

// addOther starts an item of another kind than text: the open message is
// done.
func (r *responsesWriter) addOther(out []byte, it *streamItem) ([]byte, *streamItem) {
	out = r.close(out, r.message)
	r.message = nil
	return r.add(out, it)
}

// arguments writes a fragment of a call's arguments; a call that had no
// name takes the one it is given now. Fragments of a call whose item is
// done (after finish_reason) cannot be placed.
func (r *responsesWriter) arguments(out []byte, ev *event) ([]byte, error) {
	it := r.calls[ev.key]
	if it == nil {
		return out, nil
	}
	if it.name == "" { // a server that names the call after its first delta
		it.name = ev.name
	}
	switch {
	case ev.text == "":
		return out, nil
	case !it.open:
		return out, fmt.Errorf("translate: openai tool call %d sent arguments after its item was done", ev.key)
	}
	return r.argue(out, it, ev.text), nil
}

// finish writes the open items done, then response.completed (or
// response.incomplete) with the whole response and the usage.
func (r *responsesWriter) finish(out []byte, st *streamState) []byte {
	out = r.start(out, "", "")
	status, incomplete := responsesStatus(st.stop)
	return r.complete(out, status, incomplete, st.usage.responses())
}

// responsesStatus gives a response's status for a stop.
func responsesStatus(stop stopKind) (string, *responsesIncomplete) {
	switch stop {
	case stopLength:
		return "incomplete", &responsesIncomplete{Reason: "max_output_tokens"}
	case stopRefusal:
		return "incomplete", &responsesIncomplete{Reason: "content_filter"}
	}
	return "completed", nil
}

// fail writes response.failed, its error {"code":"server_error","message"}:
// Codex retries such a response, and OpenAI's SDKs hand it over as the
// stream's last event. Open items are left unfinished (see failed).
func (r *responsesWriter) fail(out []byte, message string, st *streamState) []byte {
	out = r.start(out, "", "")
	return r.failed(out, "server_error", message, st.usage.responses())
}

// upstreamError writes the upstream's error as response.failed.
func (r *responsesWriter) upstreamError(out []byte, f *streamFailure, st *streamState) []byte {
	out = r.start(out, "", "")
	return r.failed(out, responsesErrorCode(f.detail), f.err.Message, st.usage.responses())
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
	signature  string // reasoning from Anthropic's thinking: its signature
	redacted   string // reasoning from Anthropic's redacted_thinking: its data

	callID, name string // function call
	args         strings.Builder
}

type streamPart struct {
	refusal bool
	text    strings.Builder
}

// streamEvent is any event; eventHeader gives them all header.
type streamEvent interface{ header() eventHeader }

func (h eventHeader) header() eventHeader { return h }

// appendResponsesEvent appends "event: type\ndata: {json}\n\n", the framing
// Anthropic's events have too.
func appendResponsesEvent(dst []byte, ev streamEvent) []byte {
	return appendMessagesEvent(dst, ev.header().Type, ev)
}

func (r *responsesWriter) next(typ string) eventHeader {
	h := eventHeader{Type: typ, SequenceNumber: r.seq}
	r.seq++
	return h
}

// start writes response.created and response.in_progress, once; id and
// model are the upstream's (a response id is made from the id, or made up).
func (r *responsesWriter) start(out []byte, id, model string) []byte {
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
func (r *responsesWriter) object(status string) responsesObject {
	obj := responsesObject{ID: r.id, Object: "response", CreatedAt: r.created, Status: status, Model: r.model, Output: []any{}}
	for _, it := range r.items {
		if !it.open {
			obj.Output = append(obj.Output, it.value("completed"))
		}
	}
	return obj
}

func (r *responsesWriter) add(out []byte, it *streamItem) ([]byte, *streamItem) {
	it.index, it.open = len(r.items), true
	it.id = itemID(it.kind.prefix(), r.id, it.index)
	r.items = append(r.items, it)
	return appendResponsesEvent(out, itemEvent{r.next("response.output_item.added"), it.index, it.value("in_progress")}), it
}

// text adds text to a message item: to its open output_text part, or (with
// refusal) its open refusal part, starting a part of that kind if needed.
func (r *responsesWriter) text(out []byte, it *streamItem, refusal bool, text string) []byte {
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
	return ev.append(out) // by hand: see stream_write_responses_fast.go
}

func (r *responsesWriter) closePart(out []byte, it *streamItem) []byte {
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
func (r *responsesWriter) think(out []byte, it *streamItem, text string) []byte {
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

func (r *responsesWriter) argue(out []byte, it *streamItem, delta string) []byte {
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
func (r *responsesWriter) close(out []byte, it *streamItem) []byte {
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
func (r *responsesWriter) complete(out []byte, status string, incomplete *responsesIncomplete, u responsesUsage) []byte {
	for _, it := range r.items {
		out = r.close(out, it)
	}
	obj := r.object(status)
	obj.IncompleteDetails, obj.Usage = incomplete, &u
	return appendResponsesEvent(out, responseEvent{r.next("response." + status), obj})
}

// failed writes response.failed with the error, the items done so far and
// the usage so far. Open items are left open, not done: a client that acts
// on output_item.done (Codex runs a function call on it) must not act on
// half an item.
func (r *responsesWriter) failed(out []byte, code, message string, u responsesUsage) []byte {
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

// signedBlock gives a reasoning item as the Anthropic block it came from.
func (it *streamItem) signedBlock() *anthropicBlock {
	typ := "thinking"
	if it.redacted != "" {
		typ = "redacted_thinking"
	}
	return &anthropicBlock{Type: typ, Thinking: it.summary.String(), Signature: it.signature, Data: it.redacted}
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
