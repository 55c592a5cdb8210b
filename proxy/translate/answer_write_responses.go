package translate

import (
	"cmp"
	"crypto/rand"
	"strconv"
	"strings"
)

// writeResponsesAnswer writes a as a Responses "response" object created
// at now (or when the upstream says it was), and returns its usage.
//
// Consecutive texts and refusals become one message item (output_text and
// refusal parts); thinking and redacted thinking reasoning items, the
// thinking as the summary and a signed block in encrypted_content (see
// encodeThinking), so that a caller that sends reasoning items back keeps
// Anthropic's tool-use turns whole; calls function_call items, the call's
// id kept as call_id (see callID). A stop for length gives status
// incomplete with incomplete_details.reason max_output_tokens, a refusal
// incomplete with reason content_filter, anything else completed (see
// responsesStatus). The id is the upstream's with chatcmpl- or msg_
// replaced by resp_.
func writeResponsesAnswer(a *answer, parts []part, now int64) ([]byte, error) {
	out := outputBuilder{respID: responseID(a.id)}
	from := 0 // the first part of the message item under way
	for i := range parts {
		switch p := &parts[i]; p.kind {
		case partThinking, partRedacted:
			out.message(parts[from:i])
			b := thinkingBlock(p)
			out.reasoning(p.text, encodeThinking(&b))
			from = i + 1
		case partCall:
			out.message(parts[from:i])
			out.call(callID(p.id), p.name, cmp.Or(p.text, "{}"))
			from = i + 1
		}
	}
	out.message(parts[from:])
	status, incomplete := responsesStatus(a.stop)
	return out.write(cmp.Or(a.created, now), a.model, status, incomplete, a.usage.responses())
}

// thinkingBlock gives the Anthropic block a thinking part was read from.
func thinkingBlock(p *part) anthropicBlock {
	if p.kind == partRedacted {
		return anthropicBlock{Type: "redacted_thinking", Thinking: p.text, Data: p.signature}
	}
	return anthropicBlock{Type: "thinking", Thinking: p.text, Signature: p.signature}
}

// outputBuilder gathers a response's output items.
type outputBuilder struct {
	respID string
	items  []any
}

// message adds the message item of parts' texts and refusals, if they have
// any.
func (o *outputBuilder) message(parts []part) {
	text, refusal := joinText(parts, partText), joinText(parts, partRefusal)
	if text == "" && refusal == "" {
		return
	}
	m := messageItem{Type: "message", ID: itemID("msg", o.respID, len(o.items)), Status: "completed", Role: "assistant", Content: []any{}}
	if text != "" {
		m.Content = append(m.Content, newOutputText(text))
	}
	if refusal != "" {
		m.Content = append(m.Content, refusalPart{Type: "refusal", Refusal: refusal})
	}
	o.items = append(o.items, m)
}

func (o *outputBuilder) reasoning(summary, encrypted string) {
	if summary == "" && encrypted == "" {
		return
	}
	r := reasoningItem{Type: "reasoning", ID: itemID("rs", o.respID, len(o.items)), Summary: []summaryPart{}, EncryptedContent: encrypted}
	if summary != "" {
		r.Summary = append(r.Summary, summaryPart{Type: "summary_text", Text: summary})
	}
	o.items = append(o.items, r)
}

func (o *outputBuilder) call(callID, name, arguments string) {
	o.items = append(o.items, functionCallItem{Type: "function_call", ID: itemID("fc", o.respID, len(o.items)),
		CallID: callID, Name: name, Arguments: arguments, Status: "completed"})
}

func (o *outputBuilder) write(created int64, model, status string, incomplete *responsesIncomplete, u responsesUsage) ([]byte, error) {
	obj := responsesObject{ID: o.respID, Object: "response", CreatedAt: created, Status: status,
		IncompleteDetails: incomplete, Model: model, Output: o.items, Usage: &u}
	if obj.Output == nil {
		obj.Output = []any{}
	}
	return marshal(obj)
}

func newOutputText(text string) outputTextPart {
	return outputTextPart{Type: "output_text", Text: text, Annotations: []struct{}{}, Logprobs: []struct{}{}}
}

// responseID derives a response id from an upstream's chatcmpl- or msg_ id.
func responseID(upstream string) string {
	for _, prefix := range [...]string{"chatcmpl-", "msg_"} {
		if rest, ok := strings.CutPrefix(upstream, prefix); ok && rest != "" {
			return "resp_" + rest
		}
	}
	if upstream == "" {
		return "resp_" + rand.Text()
	}
	return "resp_" + upstream
}

// itemID names an output item by the response and its place in the output:
// msg_, fc_ or rs_, the response id's own part, and the output index.
func itemID(prefix, respID string, index int) string {
	return prefix + "_" + strings.TrimPrefix(respID, "resp_") + "_" + strconv.Itoa(index)
}

// callID keeps a tool call's id exactly; only a missing one is made up,
// since the caller needs one to send the output back with.
func callID(id string) string {
	if id == "" {
		return "call_" + rand.Text()
	}
	return id
}
