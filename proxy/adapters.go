package proxy

import (
	"bytes"
	"encoding/json"
	"errors"

	"gateway/proxy/translate"
	"gateway/proxy/upstreamerr"
)

// streamAdapter turns the upstream's SSE events into the caller's, one at a
// time, and keeps what the gateway needs to know: usage, the output relayed
// (to bill a stream cut before its usage came) and the end.
type streamAdapter interface {
	// event takes one upstream event as received (its lines and the blank
	// line after them) and returns what the caller gets for it, perhaps
	// nothing. A non-nil error means the stream ended in an error, already
	// told to the caller in out.
	event(raw []byte) (out []byte, err error)
	// done: the stream is over; nothing is read after it.
	done() bool
	// complete: the upstream may end here without the stream being cut.
	complete() bool
	// fail is the caller's final error event for a stream cut by the gateway.
	fail(e *apiError) []byte
	// usage is the usage so far; final: the upstream's own final count came
	// (OpenAI's usage chunk, Anthropic's message_delta, a Responses
	// terminal event).
	usage() (u usage, final bool)
	// outputBytes is how much text, reasoning and tool-call arguments went
	// to the caller so far.
	outputBytes() int64
	contentType() string
}

// openAIPassthrough relays OpenAI chunks unchanged, but for the usage-only
// chunk, which is dropped when the gateway, not the caller, asked for it.
type openAIPassthrough struct {
	wantsUsage bool
	sawDone    bool // data: [DONE]
	sawFinish  bool // a choice with a finish_reason
	u          *usage
	out        int64 // see outputBytes
}

func (a *openAIPassthrough) event(raw []byte) ([]byte, error) {
	data := eventData(raw)
	if bytes.Equal(data, []byte("[DONE]")) {
		a.sawDone = true
		return raw, nil
	}
	c := scanChatChunk(data)
	a.out += c.outputBytes
	if !c.mayEnd {
		return raw, nil // decode only the last chunk or two
	}
	chunk, ok := translate.SummarizeChatChunk(data)
	if !ok {
		return raw, nil // not ours to judge: pass it on
	}
	a.sawFinish = a.sawFinish || chunk.Finished
	if chunk.HasUsage {
		u := chunk.Usage
		a.u = &u
		if chunk.NoChoices && !a.wantsUsage {
			return nil, nil
		}
	}
	return raw, nil
}

func (a *openAIPassthrough) done() bool              { return a.sawDone }
func (a *openAIPassthrough) complete() bool          { return a.sawDone || a.sawFinish }
func (a *openAIPassthrough) fail(e *apiError) []byte { return streamErrorEvent(protoOpenAI, e) }
func (a *openAIPassthrough) contentType() string     { return "" }
func (a *openAIPassthrough) outputBytes() int64      { return a.out }

func (a *openAIPassthrough) usage() (usage, bool) {
	if a.u == nil {
		return usage{}, false
	}
	return *a.u, true
}

// anthropicPassthrough relays Anthropic events unchanged. Usage comes in two
// parts: input (and cache) counts in message_start, output in message_delta.
type anthropicPassthrough struct {
	counts  anthropicCounts
	final   bool // message_delta brought the output count
	stopped bool // message_stop
	out     int64
}

// anthropicCounts is Anthropic's usage object: input, cache read, cache
// creation and output tokens, and the cache creation's 1-hour part (its
// cache_creation object), each with whether the event carried it, so that
// a message_delta (which has no cache_creation) only overrides what it
// carries.
type anthropicCounts struct {
	n   [numCounts]int64
	set [numCounts]bool
}

// The counts' places in anthropicCounts.
const (
	countInput = iota
	countCacheRead
	countCacheCreate
	countOutput
	countCache1h
	numCounts
)

func (c *anthropicCounts) merge(d anthropicCounts) {
	for i, set := range d.set {
		if set {
			c.n[i], c.set[i] = d.n[i], true
		}
	}
}

func (a *anthropicPassthrough) event(raw []byte) ([]byte, error) {
	switch string(eventNameBytes(raw)) {
	case "message_start":
		if c, ok := eventCounts(eventData(raw), true); ok {
			a.counts.merge(c)
		}
	case "content_block_delta", "content_block_start":
		a.out += messagesBlockOutputBytes(eventData(raw))
	case "message_delta":
		if c, ok := eventCounts(eventData(raw), false); ok {
			a.counts.merge(c)
			a.final = true
		}
	case "message_stop":
		a.stopped = true
	case "error":
		a.stopped = true
		return raw, errors.New(upstreamErrorMessage(eventData(raw)))
	}
	return raw, nil
}

func (a *anthropicPassthrough) done() bool              { return a.stopped }
func (a *anthropicPassthrough) complete() bool          { return a.stopped }
func (a *anthropicPassthrough) fail(e *apiError) []byte { return streamErrorEvent(protoAnthropic, e) }
func (a *anthropicPassthrough) contentType() string     { return "" }
func (a *anthropicPassthrough) outputBytes() int64      { return a.out }

func (a *anthropicPassthrough) usage() (usage, bool) {
	n := &a.counts.n
	return translate.AnthropicUsage(n[countInput], n[countCacheRead], n[countCacheCreate], n[countCache1h], n[countOutput]), a.final
}

// streamConverter is what translate's two stream converters have in common.
type streamConverter interface {
	Event(name string, data []byte) ([]byte, error)
	Finish() []byte
	Error(err error) []byte
	Done() bool
	Usage() translate.Usage
	FinalUsage() bool
	OutputBytes() int64
}

// translatingStream turns one protocol's events into the other's.
type translatingStream struct {
	conv streamConverter
}

func (t *translatingStream) event(raw []byte) ([]byte, error) {
	data := eventData(raw)
	if data == nil {
		return nil, nil // a comment or a ping without data
	}
	out, err := t.conv.Event(eventName(raw), data)
	var se *translate.StreamError
	if err != nil && !errors.As(err, &se) {
		// The event could not be read: the converter ends the caller's stream.
		out = append(out, t.conv.Error(errors.New("the upstream sent an event the gateway could not read"))...)
	}
	return out, err
}

func (t *translatingStream) done() bool              { return t.conv.Done() }
func (t *translatingStream) complete() bool          { return t.conv.Done() }
func (t *translatingStream) fail(e *apiError) []byte { return t.conv.Error(errors.New(e.Message)) }
func (t *translatingStream) usage() (usage, bool)    { return t.conv.Usage(), t.conv.FinalUsage() }
func (t *translatingStream) outputBytes() int64      { return t.conv.OutputBytes() }

func (t *translatingStream) contentType() string { return "text/event-stream" }

// eventName returns the name on an event's "event:" line, or "".
func eventName(ev []byte) string { return string(eventNameBytes(ev)) }

// eventNameBytes is eventName in the event's own bytes: compared as
// string(…) in a switch, it costs no allocation per event.
func eventNameBytes(ev []byte) []byte {
	for len(ev) > 0 {
		line, rest, _ := bytes.Cut(ev, []byte("\n"))
		ev = rest
		if name, ok := bytes.CutPrefix(line, []byte("event:")); ok {
			return bytes.TrimSpace(name)
		}
	}
	return nil
}

// upstreamErrorMessage is the message of an error object in either protocol.
func upstreamErrorMessage(data []byte) string {
	if e := upstreamerr.Read(0, data); e.Message != "" {
		return "upstream error event: " + e.Message
	}
	return "upstream error event"
}

// responsesPassthrough relays a Responses stream unchanged; its terminal
// event (completed, incomplete or failed) carries the usage and ends it.
type responsesPassthrough struct {
	u     *usage
	ended bool
	out   int64
}

func (a *responsesPassthrough) event(raw []byte) ([]byte, error) {
	name := eventNameBytes(raw)
	switch string(name) {
	case "response.completed", "response.incomplete", "response.failed":
	case "error":
		a.ended = true
		return raw, errors.New(upstreamErrorMessage(eventData(raw)))
	default:
		// Every output arrives as a ….delta event: text, refusals,
		// reasoning, function-call arguments.
		if bytes.HasSuffix(name, []byte(".delta")) {
			a.out += responsesDeltaOutputBytes(eventData(raw))
		}
		return raw, nil
	}
	a.ended = true
	var v struct {
		Response struct {
			Usage json.RawMessage `json:"usage"`
		} `json:"response"`
	}
	if json.Unmarshal(eventData(raw), &v) == nil {
		if u, ok := usageObject(v.Response.Usage, protoResponses); ok {
			a.u = &u
		}
	}
	if string(name) == "response.failed" {
		return raw, errors.New("the upstream's response failed")
	}
	return raw, nil
}

func (a *responsesPassthrough) done() bool              { return a.ended }
func (a *responsesPassthrough) complete() bool          { return a.ended }
func (a *responsesPassthrough) fail(e *apiError) []byte { return streamErrorEvent(protoResponses, e) }
func (a *responsesPassthrough) contentType() string     { return "" }
func (a *responsesPassthrough) outputBytes() int64      { return a.out }

func (a *responsesPassthrough) usage() (usage, bool) {
	if a.u == nil {
		return usage{}, false
	}
	return *a.u, true
}
