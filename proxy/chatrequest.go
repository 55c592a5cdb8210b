package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"gateway/proxy/jsonscan"
)

// maxMessages is Anthropic's documented maximum, applied to every protocol so
// that an absurd request is refused here instead of upstream.
const maxMessages = 100_000

// chatRequest is a checked chat completions body, with where the fields the
// gateway reads or edits sit in it.
type chatRequest struct {
	body   []byte
	open   int // index of the body's '{'
	model  string
	stream bool
	// wantsUsage: the caller itself asked for stream_options.include_usage, so
	// the usage chunk is theirs to receive.
	wantsUsage      bool
	requireMessages bool

	modelAt         jsonscan.Span
	streamAt        jsonscan.Span
	messagesAt      jsonscan.Span
	streamOptionsAt jsonscan.Span
	includeUsageAt  jsonscan.Span // inside streamOptionsAt
}

// parseChatRequest checks a chat completions or messages body in the order
// that gives the caller the most useful message; every failure is a 400.
func parseChatRequest(body []byte) (*chatRequest, error) {
	return parseRequest(body, true)
}

// parseRequest checks a request body; requireMessages is false for the
// endpoints that take no messages (embeddings).
func parseRequest(body []byte, requireMessages bool) (*chatRequest, error) {
	// encoding/json silently replaces invalid UTF-8, so it is checked first.
	if !utf8.Valid(body) {
		return nil, errBadRequest("invalid_encoding", "request body is not valid UTF-8")
	}
	if !jsonscan.Valid(body) {
		return nil, errBadRequest("invalid_json", "request body is not valid JSON")
	}
	open := jsonscan.SkipSpace(body, 0)
	if body[open] != '{' {
		return nil, errBadRequest("invalid_body", "request body must be a JSON object")
	}
	c := &chatRequest{body: body, open: open, requireMessages: requireMessages}
	if err := c.locateFields(); err != nil {
		return nil, err
	}
	return c, c.check()
}

// locateFields finds the top-level fields the gateway cares about. A repeated
// one is refused: parsers disagree on which copy wins, and the gateway must
// route by the same model the upstream will read. So is one spelt in another
// case ("MODEL"), which Go's encoding/json, in some upstreams, takes for it.
func (c *chatRequest) locateFields() error {
	fields := [...]struct {
		name string
		at   *jsonscan.Span
	}{{"model", &c.modelAt}, {"stream", &c.streamAt}, {"messages", &c.messagesAt}, {"stream_options", &c.streamOptionsAt}}
	sc := jsonscan.NewObject(c.body, c.open)
	for key, val, ok := sc.Next(); ok; key, val, ok = sc.Next() {
		for _, f := range fields {
			if !jsonscan.KeyIs(key, f.name) {
				if bytes.EqualFold(key, []byte(f.name)) {
					return errBadRequest("duplicate_field", fmt.Sprintf("%q is %s in another case", key, f.name))
				}
				continue
			}
			if f.at.Found() {
				return errBadRequest("duplicate_field", fmt.Sprintf("%s appears more than once", f.name))
			}
			*f.at = val
		}
	}
	return nil
}

func (c *chatRequest) check() error {
	for _, check := range [...]func() error{c.checkModel, c.checkStream, c.checkMessages, c.checkStreamOptions} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

func (c *chatRequest) checkModel() error {
	if !c.modelAt.Found() || c.raw(c.modelAt) == "null" {
		return errBadRequest("missing_model", "you must provide a model parameter")
	}
	if c.body[c.modelAt.Start] != '"' {
		return errBadRequest("invalid_type", "model must be a string")
	}
	if err := json.Unmarshal(c.body[c.modelAt.Start:c.modelAt.End], &c.model); err != nil {
		return errBadRequest("invalid_type", "model must be a string")
	}
	if c.model == "" {
		return errBadRequest("missing_model", "you must provide a model parameter")
	}
	if strings.ContainsFunc(c.model, unicode.IsControl) {
		return errBadRequest("invalid_model", "model must not contain control characters")
	}
	return nil
}

func (c *chatRequest) checkStream() error {
	if !c.streamAt.Found() {
		return nil
	}
	switch c.raw(c.streamAt) {
	case "true":
		c.stream = true
	case "false", "null":
	default:
		return errBadRequest("invalid_type", "stream must be a boolean")
	}
	return nil
}

func (c *chatRequest) checkMessages() error {
	if !c.messagesAt.Found() && !c.requireMessages {
		return nil
	}
	if !c.messagesAt.Found() {
		return errBadRequest("missing_messages", "you must provide a messages parameter")
	}
	if c.body[c.messagesAt.Start] != '[' {
		return errBadRequest("invalid_type", "messages must be an array")
	}
	if n := jsonscan.CountElements(c.body, c.messagesAt.Start, maxMessages); n > maxMessages {
		return errBadRequest("too_many_messages", fmt.Sprintf("messages holds more than %d entries", maxMessages))
	}
	return nil
}

func (c *chatRequest) checkStreamOptions() error {
	at := c.streamOptionsAt
	if !at.Found() || c.raw(at) == "null" {
		return nil
	}
	if c.body[at.Start] != '{' {
		return errBadRequest("invalid_type", "stream_options must be an object")
	}
	sc := jsonscan.NewObject(c.body, at.Start)
	for key, val, ok := sc.Next(); ok; key, val, ok = sc.Next() {
		if jsonscan.KeyIs(key, "include_usage") {
			c.includeUsageAt = val
		}
	}
	c.wantsUsage = c.includeUsageAt.Found() && c.raw(c.includeUsageAt) == "true"
	return nil
}

// raw returns the bytes of a jsonscan.Span as a string for comparisons; the compiler
// does not copy them for ==.
func (c *chatRequest) raw(at jsonscan.Span) string { return string(c.body[at.Start:at.End]) }

// edit replaces body[at.Start:at.End] with text; an insertion has start == end.
type edit struct {
	at   jsonscan.Span
	text string
}

// rewrite returns the body to send upstream: model replaced by the member's
// upstream model and, with askUsage (OpenAI streams), include_usage switched
// on so the gateway can count tokens. Everything else is kept byte for byte.
func (c *chatRequest) rewrite(upstreamModel string, askUsage bool) []byte {
	quoted, err := json.Marshal(upstreamModel)
	if err != nil {
		// A Go string always marshals; keep the caller's model if not.
		quoted = c.body[c.modelAt.Start:c.modelAt.End]
	}
	edits := [2]edit{{c.modelAt, string(quoted)}}
	n := 1
	if e, ok := c.usageEdit(); ok && askUsage {
		edits[1], n = e, 2
		if edits[1].at.Start < edits[0].at.Start {
			edits[0], edits[1] = edits[1], edits[0]
		}
	}
	return applyEdits(c.body, edits[:n])
}

// usageEdit switches stream_options.include_usage on for a stream whose
// caller did not.
func (c *chatRequest) usageEdit() (edit, bool) {
	switch {
	case !c.stream || c.wantsUsage:
		return edit{}, false
	case !c.streamOptionsAt.Found():
		at := c.open + 1
		return edit{jsonscan.Span{Start: at, End: at}, `"stream_options":{"include_usage":true},`}, true
	case c.raw(c.streamOptionsAt) == "null":
		return edit{c.streamOptionsAt, `{"include_usage":true}`}, true
	case c.includeUsageAt.Found():
		return edit{c.includeUsageAt, `true`}, true
	}
	at := c.streamOptionsAt.Start + 1
	text := `"include_usage":true`
	if c.body[jsonscan.SkipSpace(c.body, at)] != '}' {
		text += ","
	}
	return edit{jsonscan.Span{Start: at, End: at}, text}, true
}

// applyEdits copies body with non-overlapping edits applied, in order.
func applyEdits(body []byte, edits []edit) []byte {
	size := len(body)
	for _, e := range edits {
		size += len(e.text) - (e.at.End - e.at.Start)
	}
	out := make([]byte, 0, size)
	last := 0
	for _, e := range edits {
		out = append(out, body[last:e.at.Start]...)
		out = append(out, e.text...)
		last = e.at.End
	}
	return append(out, body[last:]...)
}
