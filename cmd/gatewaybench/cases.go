package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Public names of the gateway's two pools, each of three members weighted
// 5/3/2. The load generator sends the same body to every target: the direct
// upstream and the plain proxy ignore the model name.
const (
	poolOpenAI    = "bench-gpt"
	poolAnthropic = "bench-claude"
)

// benchCase is one kind of request: what the caller speaks, whether it
// streams, and which pool serves it behind the gateway.
type benchCase struct {
	name   string
	about  string
	path   string // the caller's endpoint, on every target
	body   []byte
	stream bool
	// anthropic: the caller speaks Anthropic messages (x-api-key,
	// anthropic-version), else OpenAI chat completions.
	anthropic bool
	chunks    int // content deltas the upstream sends per stream
}

// allCases lists the cases in table order. The translation cases send the
// direct and proxy targets the caller's own request, which the fake upstream
// answers in the caller's format: the caller's side of the exchange is then
// identical on every target, and the gateway's translation is part of what
// it adds.
func allCases() []benchCase {
	return []benchCase{
		{name: "chat", about: "OpenAI caller → OpenAI pool, JSON", path: "/v1/chat/completions", body: chatBody(false)},
		{name: "chat-stream", about: "OpenAI caller → OpenAI pool, SSE", path: "/v1/chat/completions", body: chatBody(true), stream: true},
		{name: "msg→chat", about: "Anthropic caller → OpenAI pool (translated), JSON", path: "/v1/messages", body: messagesBody(poolOpenAI, false), anthropic: true},
		{name: "msg→chat-stream", about: "Anthropic caller → OpenAI pool (translated), SSE", path: "/v1/messages", body: messagesBody(poolOpenAI, true), stream: true, anthropic: true},
		{name: "chat→msg", about: "OpenAI caller → Anthropic pool (translated), JSON", path: "/v1/chat/completions", body: chatBodyFor(poolAnthropic, false)},
		{name: "chat→msg-stream", about: "OpenAI caller → Anthropic pool (translated), SSE", path: "/v1/chat/completions", body: chatBodyFor(poolAnthropic, true), stream: true},
		{name: "cc→chat-stream", about: "Claude Code's first request (24 tools, 19 kB) → OpenAI pool (translated), SSE", path: "/v1/messages", body: claudeCodeBody, stream: true, anthropic: true},
		{name: "msg", about: "Anthropic caller → Anthropic pool (pass-through), JSON", path: "/v1/messages", body: messagesBody(poolAnthropic, false), anthropic: true},
		{name: "msg-stream", about: "Anthropic caller → Anthropic pool (pass-through), SSE", path: "/v1/messages", body: messagesBody(poolAnthropic, true), stream: true, anthropic: true},
	}
}

// selectCases keeps the named cases ("all" keeps every one), in table order.
func selectCases(names string, chunks int) ([]benchCase, error) {
	var out []benchCase
	want := map[string]bool{}
	for n := range strings.SplitSeq(names, ",") {
		want[strings.TrimSpace(n)] = true
	}
	for _, c := range allCases() {
		if want["all"] || want[c.name] {
			c.chunks = chunks
			out = append(out, c)
			delete(want, c.name)
		}
	}
	delete(want, "all")
	for n := range want {
		return nil, fmt.Errorf("-cases: unknown case %q", n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-cases: no case selected")
	}
	return out, nil
}

// Header values shared by every request; the transport only reads them.
var (
	jsonContentType  = []string{"application/json"}
	anthropicVersion = []string{"2023-06-01"}
)

// setHeaders adds what a real client of the case's protocol sends.
func (c *benchCase) setHeaders(h http.Header, bearer, apiKey []string) {
	h["Content-Type"] = jsonContentType
	if c.anthropic {
		h["X-Api-Key"] = apiKey
		h["Anthropic-Version"] = anthropicVersion
		return
	}
	h["Authorization"] = bearer
}

// check tells whether an answer is complete: a stream must end properly and
// carry every content delta, so that a cut stream counts as a failure.
func (c *benchCase) check(body []byte) error {
	var ok bool
	switch {
	case !c.stream && c.anthropic:
		ok = bytes.Contains(body, []byte(`"type":"message"`)) && bytes.Contains(body, []byte(`"usage"`))
	case !c.stream:
		ok = bytes.Contains(body, []byte(`"chat.completion"`)) && bytes.Contains(body, []byte(`"usage"`))
	case c.anthropic:
		ok = bytes.Count(body, []byte("event: content_block_delta")) >= c.chunks &&
			bytes.HasSuffix(bytes.TrimRight(body, "\n"), []byte(`data: {"type":"message_stop"}`))
	default:
		ok = bytes.Count(body, []byte(`"delta":{"content":`)) >= c.chunks &&
			bytes.HasSuffix(bytes.TrimRight(body, "\n"), []byte("data: [DONE]"))
	}
	if !ok {
		return fmt.Errorf("incomplete answer (%d bytes), ending %q", len(body), body[max(0, len(body)-160):])
	}
	return nil
}

// claudeCodeBody is the first request a Claude Code CLI sends (prose
// replaced by placeholders), addressed to the OpenAI pool: its 24 tools'
// schemas are most of its bytes.
//
//go:embed testdata/claude_code.json
var claudeCodeBody []byte

// A realistic coding-assistant conversation: a system prompt and three turns,
// about 1.5 KB of JSON.
const (
	systemPrompt = "You are a careful senior Go engineer helping a colleague review a pull request. " +
		"Answer precisely and briefly. When you suggest a change, show the smallest diff that makes it, " +
		"explain why in one sentence, and mention any test that should be added. Prefer the standard library. " +
		"Never invent APIs: if you are unsure whether a function exists, say so. Keep the tone friendly and direct, " +
		"and do not repeat the question back. Use British spelling in prose and American spelling in identifiers."
	userTurn1 = "Here is a handler that proxies requests to an upstream. It reads the whole body with io.ReadAll, " +
		"decodes it into a map, changes the model field and encodes it again. Under load it allocates a lot. " +
		"How would you avoid the decode and re-encode?"
	assistantTurn = "Scan the body for the top-level \"model\" key and splice the new value in place: one pass over the " +
		"bytes, one allocation for the output. Keep a fuzz test that compares the result with a decode and re-encode."
	userTurn2 = "Good. And for streams, should I parse every SSE event or pass the bytes through when both sides speak " +
		"the same protocol? Give me the trade-offs in three bullet points."
)

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func conversation() []chatMessage {
	return []chatMessage{{"user", userTurn1}, {"assistant", assistantTurn}, {"user", userTurn2}}
}

func chatBody(stream bool) []byte { return chatBodyFor(poolOpenAI, stream) }

func chatBodyFor(model string, stream bool) []byte {
	type streamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	}
	body := struct {
		Model         string         `json:"model"`
		Messages      []chatMessage  `json:"messages"`
		Temperature   float64        `json:"temperature"`
		MaxTokens     int            `json:"max_tokens"`
		Stream        bool           `json:"stream"`
		StreamOptions *streamOptions `json:"stream_options,omitempty"`
	}{Model: model, Messages: append([]chatMessage{{"system", systemPrompt}}, conversation()...),
		Temperature: 0.2, MaxTokens: 512, Stream: stream}
	if stream {
		body.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	return mustJSON(body)
}

func messagesBody(model string, stream bool) []byte {
	return mustJSON(struct {
		Model       string        `json:"model"`
		MaxTokens   int           `json:"max_tokens"`
		System      string        `json:"system"`
		Messages    []chatMessage `json:"messages"`
		Temperature float64       `json:"temperature"`
		Stream      bool          `json:"stream"`
	}{model, 512, systemPrompt, conversation(), 0.2, stream})
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // fixed structs of strings and numbers always marshal
	}
	return b
}
