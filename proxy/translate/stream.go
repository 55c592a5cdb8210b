package translate

import "gateway/proxy/upstreamerr"

// A translated stream is one reader of the upstream's events and one writer
// of the caller's, with neutral events between them: the reader turns each
// upstream event into zero or more events (text, reasoning, a tool call's
// start and argument fragments, the ends of parts, an upstream error, the
// end of the stream) and keeps what the end needs (usage, stop reason) in
// streamState; the writer turns those into the caller's SSE events. So a
// new protocol adds one reader and one writer, not a converter for every
// pair.
//
// Readers: chatReader (OpenAI chunks), messagesReader (Anthropic events),
// geminiReader (Gemini chunks), converseReader (ConverseStream events).
// Writers: chatWriter (OpenAI chunks), messagesWriter (Anthropic events),
// responsesWriter (Responses events). NewStream pairs them.

// eventKind says what a neutral event is.
type eventKind uint8

const (
	// evStart: the answer has begun; id and model are the upstream's, when
	// it said them. Readers send it before any content of an upstream
	// event, and a writer that has started ignores it.
	evStart   eventKind = iota
	evText              // text of the answer
	evRefusal           // text of the model's refusal (OpenAI's delta.refusal)
	// evThinkingStart: a reasoning part begins, key naming it, with its
	// first text, and for Anthropic's signed thinking its signature so far
	// and a redacted block's data.
	evThinkingStart
	evThinking      // more reasoning text for part key
	evSignature     // more of part key's signature (Anthropic's signature_delta)
	evThinkingEnd   // reasoning part key is complete
	evToolStart     // tool call key begins: id, name, and text as its arguments so far
	evToolArguments // a fragment (text) of tool call key's arguments; name, if set, names a call that had none
	evToolEnd       // tool call key is complete
	evClose         // every open part is complete (OpenAI's finish_reason)
	evError         // the upstream reported an error: failure
	evDone          // the upstream's last event: the stream ends well
)

// event is one neutral stream event (see eventKind for which fields each
// kind uses). Keys name a part as the upstream does: Anthropic's content
// block index, OpenAI's tool call index; OpenAI's reasoning is key 0.
type event struct {
	kind      eventKind
	key       int
	text      string
	id, name  string // evStart: the answer's id and model; tool calls: the call's id and function name
	signature string // evThinkingStart
	redacted  string // evThinkingStart: a redacted_thinking block's data
	failure   *streamFailure
}

// streamFailure is an upstream's error event: detail as the gateway's one
// classifier reads it (package upstreamerr), and the *StreamError returned
// to the gateway.
type streamFailure struct {
	detail upstreamerr.Error
	err    *StreamError
}

// stopKind is why an answer stopped, in no protocol's words.
type stopKind uint8

const (
	stopEnd     stopKind = iota // the model ended its turn (or no reason was given)
	stopLength                  // it ran out of tokens or context window
	stopTool                    // it called tools
	stopRefusal                 // it refused (or a content filter stopped it)
)

// streamState is what a reader learns for the end of the stream: the
// usage so far and why the answer stopped.
type streamState struct {
	usage      Usage
	finalUsage bool // the upstream's final usage arrived
	stop       stopKind
}

// streamReader reads one upstream event, given by its SSE event name and
// data, into neutral events appended to evs, and what the end needs into
// st. An error is an event it could not read; the events before it still
// count.
type streamReader interface {
	read(name string, data []byte, st *streamState, evs []event) ([]event, error)
}

// streamWriter writes neutral events as the caller's SSE events.
type streamWriter interface {
	// write appends the caller's events for ev; an error is an event that
	// cannot be placed in the caller's protocol (nothing is written for it).
	write(out []byte, ev *event, st *streamState) ([]byte, error)
	// finish appends a well-formed end: the stop reason and the usage.
	finish(out []byte, st *streamState) []byte
	// fail appends the caller's error event with message.
	fail(out []byte, message string, st *streamState) []byte
	// upstreamError appends the caller's shape of an upstream error event.
	upstreamError(out []byte, f *streamFailure, st *streamState) []byte
	// outputBytes is how many bytes of text, reasoning and tool arguments
	// were written so far.
	outputBytes() int64
}

// Stream translates one upstream SSE stream into the caller's protocol,
// one upstream event at a time; nothing is buffered beyond the event at
// hand. Use one per stream, from one goroutine.
type Stream struct {
	reader streamReader
	writer streamWriter
	state  streamState
	events []event // the reader's events of the event at hand, in room kept from the last
	room   [4]event
	ended  bool // the end went out: Finish, Error, or an upstream error event
	done   bool // the upstream's last event arrived
}

func newStream(r streamReader, w streamWriter) *Stream {
	s := &Stream{reader: r, writer: w}
	s.events = s.room[:0]
	return s
}

// Event translates one upstream event, given by its SSE event name (may be
// empty) and its data, into zero or more complete SSE events to write to
// the caller. Write what it returns even when err is not nil: err reports
// an event that could not be translated, in part or whole (usually the end
// of the gateway's patience: call Error), or, as a *StreamError, an
// upstream error event, for which the caller's error is already in the
// bytes and the stream has ended. After the end, Event returns nothing.
func (s *Stream) Event(name string, data []byte) ([]byte, error) {
	if s.ended {
		return nil, nil
	}
	evs, err := s.reader.read(name, data, &s.state, s.events[:0])
	s.events = evs
	var out []byte
	for i := range evs {
		ev := &evs[i]
		switch ev.kind {
		case evError:
			s.ended = true
			return s.writer.upstreamError(out, ev.failure, &s.state), ev.failure.err
		case evDone:
			s.done = true
			return append(out, s.Finish()...), err
		}
		var e error
		if out, e = s.writer.write(out, ev, &s.state); err == nil {
			err = e
		}
	}
	return out, err
}

// Done reports whether the upstream's last event (message_stop, data:
// [DONE]) arrived. A stream whose upstream ended without it was cut: end
// it with Error, not Finish.
func (s *Stream) Done() bool { return s.done }

// Usage is the usage seen so far (see Usage for its meaning).
func (s *Stream) Usage() Usage { return s.state.usage }

// FinalUsage reports whether the upstream's final usage arrived (an
// Anthropic message_delta's, an OpenAI usage chunk): without it, Usage has
// only what the start said (Anthropic's input counts), or nothing.
func (s *Stream) FinalUsage() bool { return s.state.finalUsage }

// OutputBytes is how many bytes of text, reasoning and tool-call arguments
// were written for the caller so far.
func (s *Stream) OutputBytes() int64 { return s.writer.outputBytes() }

// Finish ends the stream as a well-formed one in the caller's protocol,
// with the stop reason and the usage. The upstream's last event calls it;
// call it yourself only for an upstream that ended without one and may be
// trusted (Done tells). It returns nothing once the stream has ended.
func (s *Stream) Finish() []byte {
	if s.ended {
		return nil
	}
	s.ended = true
	return s.writer.finish(nil, &s.state)
}

// Error ends the stream with the caller's protocol's error event, which
// its SDKs raise as the stream's failure. err's text is what the caller
// reads: pass one fit to be shown. It returns nothing once the stream has
// ended.
func (s *Stream) Error(err error) []byte {
	if s.ended {
		return nil
	}
	s.ended = true
	return s.writer.fail(nil, streamErrorMessage(err), &s.state)
}

func streamErrorMessage(err error) string {
	if err == nil {
		return "the upstream stream failed"
	}
	return err.Error()
}
