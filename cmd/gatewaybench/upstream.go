package main

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// upstreamOptions shape the fake upstream's answers.
type upstreamOptions struct {
	latency  time.Duration // before the answer (or a stream's first event)
	chunks   int           // content deltas per stream
	chunkGap time.Duration // pause between two stream events; 0 for a fast stream
}

// fakeUpstream speaks OpenAI chat completions (/v1/chat/completions) and
// Anthropic messages (/v1/messages), JSON and SSE, as fast as it can after a
// fixed latency. Every answer is rendered once at start, so that its own cost
// is small and the same for every target.
type fakeUpstream struct {
	opts     upstreamOptions
	bufs     sync.Pool // *bytes.Buffer for request bodies
	chatJSON []byte
	chatSSE  [][]byte // up to the finish chunk
	// chatEnd ends a stream: the usage chunk and [DONE] when the request asks
	// for usage (as OpenAI does), [DONE] alone otherwise.
	chatEnd, chatEndUsage [][]byte
	msgJSON               []byte
	msgSSE                [][]byte
}

func newFakeUpstream(opts upstreamOptions) *fakeUpstream {
	u := &fakeUpstream{opts: opts}
	u.bufs.New = func() any { return new(bytes.Buffer) }
	var usage, done []byte
	u.chatJSON, u.chatSSE, usage, done = renderChat(opts.chunks)
	u.chatEnd, u.chatEndUsage = [][]byte{done}, [][]byte{usage, done}
	u.msgJSON, u.msgSSE = renderMessages(opts.chunks)
	return u
}

func (u *fakeUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	buf := u.bufs.Get().(*bytes.Buffer)
	defer u.bufs.Put(buf)
	buf.Reset()
	if _, err := buf.ReadFrom(r.Body); err != nil {
		http.Error(w, "fake upstream: read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	body := buf.Bytes()
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") || !bytes.HasPrefix(body, []byte("{")) {
		http.Error(w, "fake upstream: want a JSON object", http.StatusBadRequest)
		return
	}
	stream := jsonTrue(body, "stream")
	time.Sleep(u.opts.latency)
	switch {
	case r.URL.Path == "/v1/chat/completions" && stream:
		end := u.chatEnd
		if jsonTrue(body, "include_usage") {
			end = u.chatEndUsage
		}
		u.writeStream(w, u.chatSSE, end)
	case r.URL.Path == "/v1/chat/completions":
		writeBody(w, "application/json", u.chatJSON)
	case r.URL.Path == "/v1/messages" && stream:
		u.writeStream(w, u.msgSSE, nil)
	case r.URL.Path == "/v1/messages":
		writeBody(w, "application/json", u.msgJSON)
	default:
		http.Error(w, `{"error":{"message":"fake upstream: no such path","type":"invalid_request_error"}}`, http.StatusNotFound)
	}
}

func writeBody(w http.ResponseWriter, contentType string, body []byte) {
	w.Header()["Content-Type"] = []string{contentType}
	w.Write(body) //nolint:errcheck // a gone client is the load generator's to report
}

// writeStream sends events, then end, one by one with a flush each, as
// providers do.
func (u *fakeUpstream) writeStream(w http.ResponseWriter, events, end [][]byte) {
	w.Header()["Content-Type"] = []string{"text/event-stream; charset=utf-8"}
	w.Header()["Cache-Control"] = []string{"no-cache"}
	flusher := w.(http.Flusher)
	for i, ev := range slices.Concat(events, end) {
		if i > 0 && u.opts.chunkGap > 0 {
			time.Sleep(u.opts.chunkGap)
		}
		if _, err := w.Write(ev); err != nil {
			return // the caller is gone
		}
		flusher.Flush()
	}
}

// jsonTrue reports whether body has "key": true at any depth. It is a byte
// scan, enough for the bodies this benchmark and the gateway send: an
// unescaped quote followed by a colon can only end a key.
func jsonTrue(body []byte, key string) bool {
	quoted := `"` + key + `"`
	for rest := body; ; {
		i := bytes.Index(rest, []byte(quoted))
		if i < 0 {
			return false
		}
		rest = bytes.TrimLeft(rest[i+len(quoted):], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' {
			if bytes.HasPrefix(bytes.TrimLeft(rest[1:], " \t\r\n"), []byte("true")) {
				return true
			}
		}
	}
}

// streamWords are the content deltas, cycled.
var streamWords = []string{"The ", "gateway ", "adds ", "little ", "to ", "each ", "request, ", "and ", "streams ", "flow "}

const answerText = "A gateway sits between clients and providers. It authenticates the caller, picks a pool member by weight, " +
	"forwards the request, relays the answer event by event, and records usage and cost asynchronously."

func renderChat(chunks int) (answer []byte, events [][]byte, usage, done []byte) {
	answer = fmt.Appendf(nil, `{"id":"chatcmpl-bench","object":"chat.completion","created":1760000000,"model":"gpt-bench",`+
		`"choices":[{"index":0,"message":{"role":"assistant","content":%q,"refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"stop"}],`+
		`"usage":{"prompt_tokens":412,"completion_tokens":38,"total_tokens":450,"prompt_tokens_details":{"cached_tokens":0}},`+
		`"service_tier":"default","system_fingerprint":"fp_bench"}`, answerText)
	chunk := func(delta, finish string) []byte {
		return fmt.Appendf(nil, `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1760000000,"model":"gpt-bench",`+
			`"system_fingerprint":"fp_bench","choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}]}`+"\n\n", delta, finish)
	}
	events = append(events, chunk(`{"role":"assistant","content":"","refusal":null}`, "null"))
	for i := range chunks {
		events = append(events, chunk(fmt.Sprintf(`{"content":%q}`, streamWords[i%len(streamWords)]), "null"))
	}
	events = append(events, chunk(`{}`, `"stop"`))
	usage = fmt.Appendf(nil, `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1760000000,"model":"gpt-bench",`+
		`"system_fingerprint":"fp_bench","choices":[],"usage":{"prompt_tokens":412,"completion_tokens":%d,"total_tokens":%d}}`+"\n\n", chunks, 412+chunks)
	return answer, events, usage, []byte("data: [DONE]\n\n")
}

func renderMessages(chunks int) (answer []byte, events [][]byte) {
	answer = fmt.Appendf(nil, `{"id":"msg_bench","type":"message","role":"assistant","model":"claude-bench",`+
		`"content":[{"type":"text","text":%q}],"stop_reason":"end_turn","stop_sequence":null,`+
		`"usage":{"input_tokens":412,"output_tokens":38,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}`, answerText)
	event := func(name, data string) []byte { return fmt.Appendf(nil, "event: %s\ndata: %s\n\n", name, data) }
	events = append(events,
		event("message_start", `{"type":"message_start","message":{"id":"msg_bench","type":"message","role":"assistant","model":"claude-bench",`+
			`"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":412,"output_tokens":1}}}`),
		event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
		event("ping", `{"type":"ping"}`))
	for i := range chunks {
		events = append(events, event("content_block_delta",
			fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%q}}`, streamWords[i%len(streamWords)])))
	}
	events = append(events,
		event("content_block_stop", `{"type":"content_block_stop","index":0}`),
		event("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":%d}}`, chunks)),
		event("message_stop", `{"type":"message_stop"}`))
	return answer, events
}
