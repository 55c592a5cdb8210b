package translate

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// Protocol is a wire protocol a caller or an upstream speaks.
type Protocol uint8

const (
	Chat      Protocol = iota // OpenAI Chat Completions
	Messages                  // Anthropic Messages
	Responses                 // OpenAI Responses (Codex)
	Gemini                    // Google's generateContent, whose bodies Vertex AI shares
	Converse                  // Amazon Bedrock's Converse
)

var protocolNames = [...]string{Chat: "chat", Messages: "messages", Responses: "responses", Gemini: "gemini", Converse: "converse"}

func (p Protocol) String() string {
	if int(p) < len(protocolNames) {
		return protocolNames[p]
	}
	return fmt.Sprintf("protocol %d", p)
}

// Options are what a translation needs beyond the body.
type Options struct {
	// IncludeUsage: a request written for a chat upstream asks a stream for
	// stream_options.include_usage, without which OpenAI streams carry no
	// token counts; a stream written for a chat caller ends with the usage
	// chunk (the caller's own stream_options.include_usage). Usage is
	// counted either way.
	IncludeUsage bool
	// InputEstimate is the request's prompt in tokens as the gateway
	// estimated it, which a stream written for an Anthropic caller gives as
	// message_start's input count until the upstream says.
	InputEstimate int64
}

// ErrUnsupported is a direction no protocol's reader or writer covers.
var ErrUnsupported = errors.New("translate: unsupported direction")

// sides are what a protocol can read and write; a nil one is a direction
// it does not take. Adding a protocol is adding its row to protocols.
type sides struct {
	// readRequest reads a caller's request into the neutral request.
	readRequest func(body []byte) (request, error)
	// writeRequest writes the neutral request for an upstream;
	// upstreamModel is for a body that names the model. The request and
	// the options come by value, so that they stay on the stack.
	writeRequest func(req request, upstreamModel string, o Options) ([]byte, error)
	// readAnswer reads an upstream's whole answer, its parts appended to
	// parts.
	readAnswer func(body []byte, parts []part) (answer, []part, error)
	// writeAnswer writes the answer for a caller; now is its creation time
	// when the upstream gave none.
	writeAnswer func(a *answer, parts []part, now int64) ([]byte, error)
	// newStreamReader reads an upstream's events; signed: the writer
	// carries signed thinking on (see streamSigned).
	newStreamReader func(signed bool) streamReader
	// newStreamWriter writes a caller's events.
	newStreamWriter func(o Options) streamWriter
	// streamSigned: an upstream's stream is read with Anthropic's thinking
	// signatures and redacted thinking for this caller, whose stream
	// carries them on (the Responses API's encrypted_content). A Messages
	// caller of a Messages upstream passes through, so it needs no flag.
	streamSigned bool
	// writeError reshapes an upstream's error body for a caller.
	writeError func(status int, body []byte) []byte
}

// protocols holds each protocol's readers and writers. A caller's protocol
// (a front door) needs a request reader, an answer writer, a stream writer
// and an error writer; an upstream's a request writer, an answer reader and
// a stream reader.
var protocols = [...]sides{
	Chat: {
		readRequest: readChatRequest, writeRequest: writeChatBody,
		readAnswer: readChatBody, writeAnswer: writeChatAnswerBody,
		newStreamReader: func(bool) streamReader { return newChatReader() },
		newStreamWriter: func(o Options) streamWriter { return newChatWriter(o.IncludeUsage) },
		writeError:      errorToChat,
	},
	Messages: {
		readRequest: readMessagesRequest, writeRequest: writeMessagesBody,
		readAnswer: readMessagesBody, writeAnswer: writeMessagesAnswerBody,
		newStreamReader: func(signed bool) streamReader { return newMessagesReader(signed) },
		newStreamWriter: func(o Options) streamWriter { return newMessagesWriter(o.InputEstimate) },
		writeError:      errorToMessages,
	},
	Responses: {
		readRequest: readResponsesRequest, writeAnswer: writeResponsesAnswer,
		newStreamWriter: func(Options) streamWriter { return newResponsesWriter() },
		streamSigned:    true,
		writeError:      errorToResponses,
	},
	Gemini: {
		writeRequest: writeGeminiBody, readAnswer: readGeminiBody,
		newStreamReader: func(bool) streamReader { return newGeminiReader() },
	},
	Converse: {
		writeRequest: writeConverseBody, readAnswer: readConverseBody,
		newStreamReader: func(bool) streamReader { return newConverseReader() },
	},
}

// sidesOf gives p's readers and writers, none for an unknown protocol.
func sidesOf(p Protocol) *sides {
	if int(p) < len(protocols) {
		return &protocols[p]
	}
	return &noSides
}

// noSides are the sides of a protocol the table does not know: none.
var noSides sides

func unsupported(what string, p Protocol) error {
	return fmt.Errorf("%w: no %s %s", ErrUnsupported, p, what)
}

// Request translates a caller's request in protocol from into protocol
// to for upstreamModel (Gemini and Converse name the model in the URL, not
// the body, and take no stream flag in it). A reader refuses what the
// neutral request cannot carry, a writer what its protocol cannot take,
// with a *RequestError.
func Request(from, to Protocol, body []byte, upstreamModel string, o Options) ([]byte, error) {
	read, write := sidesOf(from).readRequest, sidesOf(to).writeRequest
	switch {
	case read == nil:
		return nil, unsupported("request reader", from)
	case write == nil:
		return nil, unsupported("request writer", to)
	}
	req, err := read(body)
	if err != nil {
		return nil, err
	}
	return write(req, upstreamModel, o)
}

// Answer translates an upstream's whole (not streamed) answer in protocol
// from into protocol to, and returns its usage.
func Answer(from, to Protocol, body []byte) ([]byte, Usage, error) {
	return answerAt(from, to, body, time.Now().Unix())
}

// answerAt is Answer with now as the creation time of an answer whose
// upstream gave none.
func answerAt(from, to Protocol, body []byte, now int64) ([]byte, Usage, error) {
	read, write := sidesOf(from).readAnswer, sidesOf(to).writeAnswer
	switch {
	case read == nil:
		return nil, Usage{}, unsupported("answer reader", from)
	case write == nil:
		return nil, Usage{}, unsupported("answer writer", to)
	}
	room := answerRooms.Get().(*answerRoom)
	defer room.release()
	a, parts, err := read(body, room.parts[:0])
	if err != nil {
		return nil, Usage{}, err
	}
	room.a = a
	b, err := write(&room.a, parts, now)
	// The usage as read, not as a writer puts it: a Responses object has
	// no place for the 1-hour cache writes.
	return b, a.usage, err
}

// answerRoom is room for an answer and its parts, reused from one answer to
// the next: handed to a reader and a writer called through protocols, room
// on answerAt's stack would move to the heap, two allocations an answer.
type answerRoom struct {
	a     answer
	parts answerParts
}

var answerRooms = sync.Pool{New: func() any { return new(answerRoom) }}

// release clears the room, so that it keeps no string of the answer alive,
// and gives it back.
func (r *answerRoom) release() {
	*r = answerRoom{}
	answerRooms.Put(r)
}

// NewStream translates an upstream's SSE stream in protocol from into the
// caller's protocol to (see Stream).
func NewStream(from, to Protocol, o Options) (*Stream, error) {
	in, out := sidesOf(from), sidesOf(to)
	switch {
	case in.newStreamReader == nil:
		return nil, unsupported("stream reader", from)
	case out.newStreamWriter == nil:
		return nil, unsupported("stream writer", to)
	}
	return newStream(in.newStreamReader(out.streamSigned), out.newStreamWriter(o)), nil
}

// Error reshapes an upstream's error body, of any protocol, into the
// caller's protocol to, as read by the gateway's one classifier (package
// upstreamerr). A protocol with no error writer gets the body as it is.
func Error(to Protocol, status int, body []byte) []byte {
	if write := sidesOf(to).writeError; write != nil {
		return write(status, body)
	}
	return body
}
