// Package upstreamtest has fake upstreams for tests that need more than
// one canned answer.
package upstreamtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Conversation is a fake upstream that speaks both chat completions
// (/v1/chat/completions) and messages (/v1/messages), streamed or not. It
// answers "reply N" under an id of its own each call, and keeps the turns
// of the conversation each call was given, so that a test can see what a
// member was sent.
type Conversation struct {
	*httptest.Server
	mu    sync.Mutex
	calls []Call
}

// Call is what one request gave the upstream.
type Call struct {
	Path  string
	Turns []string // "role: text" of every message
	Store any      // the request's "store" field, nil when absent
}

// NewConversation starts one, closed when the test ends.
func NewConversation(t testing.TB) *Conversation {
	c := &Conversation{}
	c.Server = httptest.NewServer(http.HandlerFunc(c.serve))
	t.Cleanup(c.Close)
	return c
}

func (c *Conversation) serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Stream   bool `json:"stream"`
		Store    any  `json:"store"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	raw, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(raw, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	call := Call{Path: r.URL.Path, Store: req.Store}
	for _, m := range req.Messages {
		call.Turns = append(call.Turns, m.Role+": "+PlainText(m.Content))
	}
	c.mu.Lock()
	c.calls = append(c.calls, call)
	n := len(c.calls)
	c.mu.Unlock()
	reply := fmt.Sprintf("reply %d", n)
	anthropic := r.URL.Path == "/v1/messages"
	switch {
	case req.Stream && anthropic:
		writeEvents(w, []string{
			fmt.Sprintf("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_conv%d\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":0}}}", n),
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}",
			fmt.Sprintf("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":%q}}", reply),
			"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}",
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}",
			"event: message_stop\ndata: {\"type\":\"message_stop\"}",
		})
	case req.Stream:
		chunk := func(delta, finish string) string {
			return fmt.Sprintf(`data: {"id":"chatcmpl-conv%d","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`, n, delta, finish)
		}
		writeEvents(w, []string{chunk(`{"role":"assistant","content":""}`, "null"), chunk(fmt.Sprintf(`{"content":%q}`, reply), "null"),
			chunk(`{}`, `"stop"`),
			fmt.Sprintf(`data: {"id":"chatcmpl-conv%d","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}`, n),
			"data: [DONE]"})
	case anthropic:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"msg_conv%d","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":%q}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":2}}`, n, reply)
	default:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"chatcmpl-conv%d","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}`, n, reply)
	}
}

func writeEvents(w http.ResponseWriter, events []string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, ev := range events {
		io.WriteString(w, ev+"\n\n") //nolint:errcheck // the test sees a broken stream
	}
}

// PlainText reads a message's content: a string, or its text parts.
func PlainText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &parts) //nolint:errcheck // no parts: no text
	var out []string
	for _, p := range parts {
		out = append(out, p.Text)
	}
	return strings.Join(out, "")
}

// Last is the last call.
func (c *Conversation) Last() Call {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[len(c.calls)-1]
}

// Count is how many calls there were.
func (c *Conversation) Count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.calls)
}
