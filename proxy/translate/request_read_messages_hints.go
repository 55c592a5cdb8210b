package translate

import (
	"encoding/json"
	"fmt"
)

// readMessagesRequestHints reads an Anthropic request as readMessagesRequest
// does, and also what that leaves out because only Converse (Claude on
// Bedrock) has a place for it: the cache_control breakpoints of system
// blocks, content blocks and tools (part.cache, tool.cache), the signed
// thinking and redacted_thinking blocks of assistant turns (thinking parts
// holding the block to send back, see sendableThinking), top_k, and
// thinking's budget_tokens as given. readMessagesRequest's hand decoder,
// kept for MessagesToChat's hot path, skips those fields, so they are
// read by a second, plain decode of the body and laid over the request
// turn by turn (see layHints).
func readMessagesRequestHints(body []byte) (request, error) {
	req, err := readMessagesRequest(body)
	if err != nil {
		return request{}, err
	}
	var h messagesRequestHints
	if err := decode(body, &h); err != nil {
		return request{}, decodeError("the request", err)
	}
	req.topK = h.TopK
	if t := h.Thinking; t != nil && t.Type == "enabled" {
		req.budget = t.BudgetTokens
	}
	markCachedTools(req.tools, h.Tools)
	return layHints(&req, &h)
}

// messagesRequestHints is what readMessagesRequestHints reads of an
// Anthropic request.
type messagesRequestHints struct {
	System   json.RawMessage    `json:"system"`
	Messages []anthropicMessage `json:"messages"`
	Tools    []hintBlock        `json:"tools"`
	TopK     *int64             `json:"top_k"`
	Thinking *anthropicThinking `json:"thinking"`
}

// hintBlock is a content block (or a tool: its type and cache_control)
// with what anthropicBlock leaves out.
type hintBlock struct {
	anthropicBlock
	CacheControl json.RawMessage `json:"cache_control"`
}

func (b *hintBlock) cached() bool { return !isNull(b.CacheControl) }

// markCachedTools marks the tools given cache_control. A server tool, which
// anthropicToolsIn drops, passes its breakpoint to the tool before it.
func markCachedTools(tools []tool, hints []hintBlock) {
	k := 0 // the tool the next custom hint is
	for i := range hints {
		h := &hints[i]
		custom := h.Type == "" || h.Type == "custom"
		switch {
		case h.cached() && custom && k < len(tools):
			tools[k].cache = true
		case h.cached() && !custom && k > 0 && k <= len(tools):
			tools[k-1].cache = true
		}
		if custom {
			k++
		}
	}
}

// layHints gives req with the hints laid over it: it walks the request's
// system prompt and messages as readMessagesRequest did, copying each
// message's parts, marking those of blocks with cache_control, and putting
// each assistant turn's signed thinking blocks back in their place. A walk
// that does not come out even is a bug, reported as an error.
func layHints(req *request, h *messagesRequestHints) (request, error) {
	w := hintWalk{in: req, out: *req}
	w.out.messages = make([]message, 0, len(req.messages))
	w.out.parts = make([]part, 0, len(req.parts)+2)
	err := w.system(h.System)
	for i := 0; err == nil && i < len(h.Messages); i++ {
		if m := &h.Messages[i]; m.Role == "system" {
			err = w.system(m.Content)
		} else {
			err = w.turn(m.Content)
		}
	}
	if err == nil && w.next != len(req.messages) {
		err = w.outOfStep()
	}
	return w.out, err
}

// hintWalk is layHints under way.
type hintWalk struct {
	in   *request
	out  request
	next int // the message of in the next Anthropic entry gave
}

// system lays the hints of a system prompt, which readSystem made a
// message of if it held any text.
func (w *hintWalk) system(raw json.RawMessage) error {
	text, blocks, isArray, err := decodeContent[hintBlock](raw)
	if err != nil {
		return err
	}
	if !isArray {
		if text == "" {
			return nil
		}
		return w.copyTurn(roleSystem)
	}
	hasText := false
	for j := range blocks {
		hasText = hasText || blocks[j].Text != ""
	}
	if !hasText {
		return nil
	}
	m, parts, err := w.take(roleSystem)
	if err != nil {
		return err
	}
	from, k := len(w.out.parts), 0
	for j := range blocks {
		if blocks[j].Text != "" && k < len(parts) {
			w.out.parts = append(w.out.parts, parts[k])
			k++
		}
		if blocks[j].cached() {
			w.markLast(from)
		}
	}
	return w.done(m, from, k, len(parts))
}

// turn lays the hints of a user or assistant turn.
func (w *hintWalk) turn(raw json.RawMessage) error {
	_, blocks, isArray, err := decodeContent[hintBlock](raw)
	if err != nil {
		return err
	}
	if !isArray {
		return w.copyTurn(roleUser, roleAssistant)
	}
	m, parts, err := w.take(roleUser, roleAssistant)
	if err != nil {
		return err
	}
	from, k := len(w.out.parts), 0
	for j := range blocks {
		b := &blocks[j]
		at := len(w.out.parts)
		switch {
		case m.role == roleAssistant && (b.Type == "thinking" || b.Type == "redacted_thinking"):
			if v := sendableThinking(&b.anthropicBlock); v != nil {
				w.out.parts = append(w.out.parts, part{kind: partThinking, block: mustMarshal(v)})
			}
		case m.role == roleAssistant && droppedAssistantBlock(b.Type):
		case k < len(parts) && parts[k].kind == blockPart(b.Type, parts[k].kind):
			n := 1
			if parts[k].kind == partToolResult {
				n += parts[k].n
			}
			w.out.parts = append(w.out.parts, parts[k:min(k+n, len(parts))]...)
			k += n
		default:
			return w.outOfStep()
		}
		if b.cached() {
			w.mark(from, at)
		}
	}
	return w.done(m, from, k, len(parts))
}

// blockPart gives the kind of the part readMessagesRequest reads a block of
// type typ as; got decides between the two a document may give.
func blockPart(typ string, got partKind) partKind {
	switch typ {
	case "text":
		return partText
	case "image":
		return partImage
	case "document":
		if got == partDocumentText {
			return got
		}
		return partFile
	case "tool_use":
		return partCall
	case "tool_result":
		return partToolResult
	}
	return partRefusal // a kind no request part has: out of step
}

// copyTurn copies the next message, of one of roles, as it is.
func (w *hintWalk) copyTurn(roles ...role) error {
	m, parts, err := w.take(roles...)
	if err == nil {
		from := len(w.out.parts)
		w.out.parts = append(w.out.parts, parts...)
		err = w.done(m, from, len(parts), len(parts))
	}
	return err
}

// take gives the next message of in, which must be of one of roles, and
// its parts.
func (w *hintWalk) take(roles ...role) (message, []part, error) {
	if w.next >= len(w.in.messages) {
		return message{}, nil, w.outOfStep()
	}
	m := w.in.messages[w.next]
	for _, r := range roles {
		if m.role == r {
			w.next++
			return m, w.in.partsOf(&m), nil
		}
	}
	return message{}, nil, w.outOfStep()
}

// done adds message m, whose parts now start at from, once all n of its
// parts in in were laid out.
func (w *hintWalk) done(m message, from, laid, n int) error {
	if laid != n {
		return w.outOfStep()
	}
	w.out.add(m, from)
	return nil
}

// mark marks the part a block gave at at for the cache, or, for a block
// that gave none, the turn's part before it.
func (w *hintWalk) mark(from, at int) {
	switch {
	case len(w.out.parts) > at:
		w.out.parts[at].cache = true
	case at > from:
		w.out.parts[at-1].cache = true
	}
}

// markLast marks the last part laid since from.
func (w *hintWalk) markLast(from int) {
	if n := len(w.out.parts); n > from {
		w.out.parts[n-1].cache = true
	}
}

func (w *hintWalk) outOfStep() error {
	return fmt.Errorf("translate: anthropic request: the hints of message %d are out of step with its reading", w.next)
}
