package translate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// readResponsesStream checks a Responses stream as a strict client would,
// and gathers what the client assembles from it. It checks: complete
// "event: X\ndata: …\n\n" events whose data is JSON of type X; sequence
// numbers 0, 1, 2, …; response.created then response.in_progress first;
// items added at the next output index with a fresh id, and every part,
// delta and done event naming an open item (by id and index) and an open
// part of the right kind; done texts, arguments and items equal to what
// the deltas built; and one terminal event last: response.completed or
// response.incomplete with every item done and the output and usage in the
// response, or response.failed with an error and the items done so far.
func readResponsesStream(out []byte) (responsesResult, error) {
	var r responsesResult
	if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n\n")) {
		return r, fmt.Errorf("stream does not end with a complete event: %q", tail(out))
	}
	var st responsesState
	for i, ev := range parseSSE(out) {
		if r.Status != "" {
			return r, fmt.Errorf("event after the end: %s %q", ev.name, ev.data)
		}
		var e responsesEventIn
		if err := json.Unmarshal(ev.data, &e); err != nil {
			return r, fmt.Errorf("%s event is not JSON of the right shape: %v: %s", ev.name, err, ev.data)
		}
		switch {
		case e.Type != ev.name:
			return r, fmt.Errorf("event %q holds type %q", ev.name, e.Type)
		case e.SequenceNumber == nil || *e.SequenceNumber != int64(i):
			return r, fmt.Errorf("event %d (%s) has sequence_number %v", i, ev.name, e.SequenceNumber)
		}
		if err := st.add(&r, i, &e); err != nil {
			return r, fmt.Errorf("%s: %v: %s", ev.name, err, ev.data)
		}
	}
	return r, nil
}

// responsesResult is what a Responses client assembles from a stream.
type responsesResult struct {
	ID, Model  string
	Items      []responsesItemIn // as output_item.done gave them, in output order
	Text       string            // all output_text, in order
	Refusal    string
	Reasoning  string // all summaries, in order
	Calls      []functionCallItem
	Status     string // of the terminal event: completed, incomplete or failed
	Incomplete string
	Usage      *responsesUsage
	Error      *responsesFailure
}

type responsesEventIn struct {
	Type           string            `json:"type"`
	SequenceNumber *int64            `json:"sequence_number"`
	Response       *responsesFinalIn `json:"response"`
	OutputIndex    *int              `json:"output_index"`
	ItemID         string            `json:"item_id"`
	ContentIndex   *int              `json:"content_index"`
	SummaryIndex   *int              `json:"summary_index"`
	Item           *responsesItemIn  `json:"item"`
	Part           *responsesPartIn  `json:"part"`
	Delta          *string           `json:"delta"`
	Text           *string           `json:"text"`
	Refusal        *string           `json:"refusal"`
	Arguments      *string           `json:"arguments"`
}

type responsesFinalIn struct {
	ID                string               `json:"id"`
	Object            string               `json:"object"`
	CreatedAt         int64                `json:"created_at"`
	Status            string               `json:"status"`
	Model             string               `json:"model"`
	Output            []responsesItemIn    `json:"output"`
	Usage             *responsesUsage      `json:"usage"`
	Error             *responsesFailure    `json:"error"`
	IncompleteDetails *responsesIncomplete `json:"incomplete_details"`
}

type responsesItemIn struct {
	Type             string            `json:"type"`
	ID               string            `json:"id"`
	Status           string            `json:"status"`
	Role             string            `json:"role"`
	Content          []responsesPartIn `json:"content"`
	CallID           string            `json:"call_id"`
	Name             string            `json:"name"`
	Arguments        *string           `json:"arguments"`
	Summary          []summaryPart     `json:"summary"`
	EncryptedContent string            `json:"encrypted_content"`
}

type responsesPartIn struct {
	Type    string `json:"type"`
	Text    string `json:"text"`
	Refusal string `json:"refusal"`
}

type responsesState struct {
	items []*itemState
}

type itemState struct {
	in        responsesItemIn // as added
	open      bool
	parts     []*partState
	args      string
	argsDone  bool
	summary   string
	summaryAt int // 0 none, 1 part added, 2 text done, 3 part done
	done      *responsesItemIn
}

type partState struct {
	typ, text string
	open      bool
	textDone  bool
}

func (st *responsesState) add(r *responsesResult, i int, e *responsesEventIn) error {
	switch {
	case i == 0 && e.Type != "response.created", i == 1 && e.Type != "response.in_progress":
		return fmt.Errorf("event %d must be response.created, then response.in_progress", i)
	}
	switch e.Type {
	case "response.created", "response.in_progress":
		if i > 1 || e.Response == nil || e.Response.Status != "in_progress" || e.Response.Object != "response" ||
			len(e.Response.ID) < 6 || e.Response.ID[:5] != "resp_" || e.Response.Output == nil {
			return fmt.Errorf("a response in progress with id resp_…, object response and an output list")
		}
		r.ID, r.Model = e.Response.ID, e.Response.Model
		return nil
	case "response.output_item.added":
		return st.itemAdded(e)
	case "response.output_item.done":
		return st.itemDone(r, e)
	case "response.completed", "response.incomplete", "response.failed":
		return st.end(r, e)
	}
	it, err := st.item(e)
	if err != nil {
		return err
	}
	switch e.Type {
	case "response.content_part.added", "response.content_part.done", "response.output_text.delta",
		"response.output_text.done", "response.refusal.delta", "response.refusal.done":
		return it.partEvent(e)
	case "response.function_call_arguments.delta", "response.function_call_arguments.done":
		return it.argsEvent(e)
	case "response.reasoning_summary_part.added", "response.reasoning_summary_text.delta",
		"response.reasoning_summary_text.done", "response.reasoning_summary_part.done":
		return it.summaryEvent(e)
	}
	return fmt.Errorf("unknown event")
}

func (st *responsesState) itemAdded(e *responsesEventIn) error {
	it := e.Item
	switch {
	case it == nil || e.OutputIndex == nil || *e.OutputIndex != len(st.items):
		return fmt.Errorf("item added at output_index %v, want %d", e.OutputIndex, len(st.items))
	case it.ID == "" || slices.ContainsFunc(st.items, func(s *itemState) bool { return s.in.ID == it.ID }):
		return fmt.Errorf("item without a fresh id")
	case it.Type == "message" && (it.Role != "assistant" || it.Content == nil || len(it.Content) > 0 || it.Status != "in_progress"):
		return fmt.Errorf("message added with role %q, content %v, status %q", it.Role, it.Content, it.Status)
	case it.Type == "function_call" && (it.CallID == "" || it.Arguments == nil || *it.Arguments != "" || it.Status != "in_progress"):
		return fmt.Errorf("function_call added without call_id, or with arguments, or not in_progress")
	case it.Type == "reasoning" && (it.Summary == nil || len(it.Summary) > 0):
		return fmt.Errorf("reasoning added with a summary")
	case it.Type != "message" && it.Type != "function_call" && it.Type != "reasoning":
		return fmt.Errorf("unknown item type %q", it.Type)
	}
	st.items = append(st.items, &itemState{in: *it, open: true})
	return nil
}

// item finds the open item an event names by item_id and output_index.
func (st *responsesState) item(e *responsesEventIn) (*itemState, error) {
	if e.OutputIndex == nil || *e.OutputIndex < 0 || *e.OutputIndex >= len(st.items) {
		return nil, fmt.Errorf("no item at output_index %v", e.OutputIndex)
	}
	it := st.items[*e.OutputIndex]
	if it.in.ID != e.ItemID || !it.open {
		return nil, fmt.Errorf("item_id %q is not the open item at output_index %d (%q)", e.ItemID, *e.OutputIndex, it.in.ID)
	}
	return it, nil
}

func (it *itemState) partEvent(e *responsesEventIn) error {
	if it.in.Type != "message" || e.ContentIndex == nil {
		return fmt.Errorf("part event for a %s, or without content_index", it.in.Type)
	}
	ci := *e.ContentIndex
	if e.Type == "response.content_part.added" {
		if ci != len(it.parts) || e.Part == nil || e.Part.Text+e.Part.Refusal != "" ||
			(e.Part.Type != "output_text" && e.Part.Type != "refusal") || len(it.parts) > 0 && it.parts[ci-1].open {
			return fmt.Errorf("part added out of order, or not empty, or beside an open part")
		}
		it.parts = append(it.parts, &partState{typ: e.Part.Type, open: true})
		return nil
	}
	if ci < 0 || ci >= len(it.parts) || !it.parts[ci].open {
		return fmt.Errorf("content_index %d is not an open part", ci)
	}
	p := it.parts[ci]
	want := map[string]string{
		"response.output_text.delta": "output_text", "response.output_text.done": "output_text",
		"response.refusal.delta": "refusal", "response.refusal.done": "refusal",
		"response.content_part.done": p.typ,
	}[e.Type]
	switch {
	case want != p.typ:
		return fmt.Errorf("%s in a %s part", e.Type, p.typ)
	case e.Type == "response.output_text.delta" || e.Type == "response.refusal.delta":
		if e.Delta == nil || p.textDone {
			return fmt.Errorf("delta missing, or after the done")
		}
		p.text += *e.Delta
	case e.Type == "response.output_text.done" || e.Type == "response.refusal.done":
		got := e.Text
		if p.typ == "refusal" {
			got = e.Refusal
		}
		if got == nil || *got != p.text || p.textDone {
			return fmt.Errorf("done text differs from the deltas' %q, or comes twice", p.text)
		}
		p.textDone = true
	default: // content_part.done
		if !p.textDone || e.Part == nil || e.Part.Type != p.typ || e.Part.Text+e.Part.Refusal != p.text {
			return fmt.Errorf("part done before its text was, or differing from %q", p.text)
		}
		p.open = false
	}
	return nil
}

func (it *itemState) argsEvent(e *responsesEventIn) error {
	switch {
	case it.in.Type != "function_call" || it.argsDone:
		return fmt.Errorf("arguments event for a %s, or after the arguments were done", it.in.Type)
	case e.Type == "response.function_call_arguments.delta":
		if e.Delta == nil {
			return fmt.Errorf("delta missing")
		}
		it.args += *e.Delta
	default:
		if e.Arguments == nil || *e.Arguments != it.args {
			return fmt.Errorf("done arguments differ from the deltas' %q", it.args)
		}
		it.argsDone = true
	}
	return nil
}

func (it *itemState) summaryEvent(e *responsesEventIn) error {
	if it.in.Type != "reasoning" || e.SummaryIndex == nil || *e.SummaryIndex != 0 {
		return fmt.Errorf("summary event for a %s, or at a summary_index other than 0", it.in.Type)
	}
	switch e.Type {
	case "response.reasoning_summary_part.added":
		if it.summaryAt != 0 || e.Part == nil || e.Part.Type != "summary_text" || e.Part.Text != "" {
			return fmt.Errorf("summary part added twice, or not an empty summary_text")
		}
		it.summaryAt = 1
	case "response.reasoning_summary_text.delta":
		if it.summaryAt != 1 || e.Delta == nil {
			return fmt.Errorf("summary delta outside an open part")
		}
		it.summary += *e.Delta
	case "response.reasoning_summary_text.done":
		if it.summaryAt != 1 || e.Text == nil || *e.Text != it.summary {
			return fmt.Errorf("summary done outside an open part, or differing from %q", it.summary)
		}
		it.summaryAt = 2
	default:
		if it.summaryAt != 2 || e.Part == nil || e.Part.Text != it.summary {
			return fmt.Errorf("summary part done before its text, or differing from %q", it.summary)
		}
		it.summaryAt = 3
	}
	return nil
}

func (st *responsesState) itemDone(r *responsesResult, e *responsesEventIn) error {
	if e.Item == nil {
		return fmt.Errorf("no item")
	}
	e.ItemID = e.Item.ID
	it, err := st.item(e)
	if err != nil {
		return err
	}
	if err := it.check(e.Item); err != nil {
		return err
	}
	it.open, it.done = false, e.Item
	r.Items = append(r.Items, *e.Item)
	for _, p := range e.Item.Content {
		r.Text += p.Text
		r.Refusal += p.Refusal
	}
	for _, s := range e.Item.Summary {
		r.Reasoning += s.Text
	}
	if e.Item.Type == "function_call" {
		r.Calls = append(r.Calls, functionCallItem{Type: "function_call", ID: e.Item.ID, CallID: e.Item.CallID,
			Name: e.Item.Name, Arguments: *e.Item.Arguments, Status: e.Item.Status})
	}
	return nil
}

// check holds a done item to what its events built.
func (it *itemState) check(done *responsesItemIn) error {
	if done.Type != it.in.Type || done.Status == "in_progress" {
		return fmt.Errorf("item done as a %s with status %q", done.Type, done.Status)
	}
	switch done.Type {
	case "message":
		if len(done.Content) != len(it.parts) {
			return fmt.Errorf("message done with %d parts, %d were streamed", len(done.Content), len(it.parts))
		}
		for i, p := range it.parts {
			if p.open || done.Content[i].Type != p.typ || done.Content[i].Text+done.Content[i].Refusal != p.text {
				return fmt.Errorf("part %d open, or differing from %q", i, p.text)
			}
		}
	case "function_call":
		if !it.argsDone || done.Arguments == nil || *done.Arguments != it.args || done.CallID != it.in.CallID || done.Name == "" && it.in.Name != "" {
			return fmt.Errorf("call done before its arguments, or differing from them (%q), or from its call_id", it.args)
		}
	case "reasoning":
		want := 0
		if it.summaryAt > 0 {
			want = 1
		}
		if it.summaryAt%3 != 0 || len(done.Summary) != want || want == 1 && done.Summary[0].Text != it.summary {
			return fmt.Errorf("reasoning done with its summary open, or differing from %q", it.summary)
		}
	}
	return nil
}

func (st *responsesState) end(r *responsesResult, e *responsesEventIn) error {
	resp := e.Response
	want := e.Type[len("response."):]
	if resp == nil || resp.Status != want || resp.ID != r.ID || resp.Usage == nil || resp.Output == nil {
		return fmt.Errorf("a response with status %s, the stream's id, usage and output", want)
	}
	var done []responsesItemIn
	for _, it := range st.items {
		switch {
		case it.done != nil:
			done = append(done, *it.done)
		case want != "failed":
			return fmt.Errorf("item %s is not done", it.in.ID)
		}
	}
	if len(done) != len(resp.Output) {
		return fmt.Errorf("output holds %d items, %d are done", len(resp.Output), len(done))
	}
	for i := range done {
		a, _ := json.Marshal(done[i])
		b, _ := json.Marshal(resp.Output[i])
		if !bytes.Equal(a, b) {
			return fmt.Errorf("output[%d] %s differs from the item done %s", i, b, a)
		}
	}
	switch {
	case want == "failed" && (resp.Error == nil || resp.Error.Code == "" || resp.Error.Message == ""):
		return fmt.Errorf("a failed response without error code and message")
	case want == "incomplete" && (resp.IncompleteDetails == nil || resp.IncompleteDetails.Reason == ""):
		return fmt.Errorf("an incomplete response without incomplete_details.reason")
	case want == "completed" && (resp.Error != nil || resp.IncompleteDetails != nil):
		return fmt.Errorf("a completed response with an error or incomplete_details")
	case resp.Usage.TotalTokens != resp.Usage.InputTokens+resp.Usage.OutputTokens:
		return fmt.Errorf("total_tokens is not input plus output")
	}
	r.Status, r.Usage, r.Error = want, resp.Usage, resp.Error
	if resp.IncompleteDetails != nil {
		r.Incomplete = resp.IncompleteDetails.Reason
	}
	return nil
}
