package proxy

import (
	"bytes"
	"container/list"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"gateway/models"
	"gateway/proxy/jsonscan"
	"gateway/proxy/requestlog"
)

// The Responses API keeps state between requests: an answer is stored
// unless the caller says store: false, and a later request continues it by
// previous_response_id or points at its items by item_reference. The
// gateway keeps that state itself, whatever member answered, so a pool may
// mix providers and translated members: a request is expanded into the whole
// conversation before it is routed, and members are asked with store: false.
// Recent answers are kept in memory, so that a client's next turn to the
// same replica never waits for the database; every answer is written to the
// database with the request logs (spooled through an outage like them), where
// the other replicas find it.

// responseStore is the gateway's memory of stored responses.
type responseStore struct {
	db   responsesDB
	logs *requestlog.Writer
	// limit bounds the bytes kept in memory; the least recently used go
	// first (they are in the database).
	limit int64
	// wait is how long a response missing here and in the database is
	// looked for again: another replica may have answered it an instant ago
	// and not written it yet.
	wait time.Duration

	mu    sync.Mutex
	lru   *list.List // of *keptResponse, most recent first
	byID  map[respKey]*list.Element
	items map[respKey]json.RawMessage // output items of the responses kept, by id
	size  int64
}

type responsesDB interface {
	GetResponse(ctx context.Context, keyID int64, id string) (*models.StoredResponse, error)
	GetResponseItems(ctx context.Context, keyID int64, ids []string) (map[string]string, error)
	DeleteResponse(ctx context.Context, keyID int64, id string) error
}

// respKey names a response or an item: ids are per key, and no key ever sees
// another's.
type respKey struct {
	keyID int64
	id    string
}

type keptResponse struct {
	key      respKey
	input    json.RawMessage // the list of input items, earlier turns first
	response json.RawMessage // the response object
	itemIDs  []string
	size     int64
}

const (
	// responsesMemory is how much of the stored responses one gateway keeps
	// in memory.
	responsesMemory = 64 << 20
	// maxStoredResponse: a response larger than this, with its input, is
	// answered but not stored (the caller's next turn is told so).
	maxStoredResponse = 16 << 20
)

func newResponseStore(db responsesDB, logs *requestlog.Writer) *responseStore {
	return &responseStore{db: db, logs: logs, limit: responsesMemory, wait: time.Second,
		lru: list.New(), byID: make(map[respKey]*list.Element), items: make(map[respKey]json.RawMessage)}
}

// responsesTurn is what a Responses request keeps once it is answered.
type responsesTurn struct {
	keyID int64
	input json.RawMessage // the whole input the members were given
	model string
}

// prepare expands a Responses request from the state it refers to and says
// whether its answer is to be kept (turn nil: not). The body the members
// get holds the whole conversation and asks for store: false; it is nil
// when the request is to go as it came.
func (rs *responseStore) prepare(ctx context.Context, keyID int64, body []byte, model string) ([]byte, *responsesTurn, error) {
	var store, prev, input jsonscan.Span
	sc := jsonscan.NewObject(body, jsonscan.SkipSpace(body, 0))
	for key, val, ok := sc.Next(); ok; key, val, ok = sc.Next() {
		switch {
		case jsonscan.KeyIs(key, "store"):
			store = val
		case jsonscan.KeyIs(key, "previous_response_id"):
			prev = val
		case jsonscan.KeyIs(key, "input"):
			input = val
		}
	}
	raw := func(s jsonscan.Span) []byte { return body[s.Start:s.End] }
	keep := !store.Found() || !bytes.Equal(raw(store), []byte("false"))
	prevID := ""
	if prev.Found() && !bytes.Equal(raw(prev), []byte("null")) {
		if err := json.Unmarshal(raw(prev), &prevID); err != nil {
			return nil, nil, errBadRequest("invalid_request", "previous_response_id: must be a string")
		}
	}
	// A reference is {"type":"item_reference","id":…}, or just {"id":…}
	// (the type is optional): looked for in every request that keeps state,
	// and in the others only when the word is there (Codex's requests, which
	// keep nothing, are not read through).
	refers := input.Found() && (keep || prevID != "" || bytes.Contains(raw(input), []byte("item_reference")))
	if !keep && prevID == "" && !refers {
		return nil, nil, nil // Codex's: nothing to expand, nothing to keep
	}
	items, err := inputItems(raw(input), input.Found())
	if err != nil {
		return nil, nil, err
	}
	if refers {
		if items, err = rs.resolveReferences(ctx, keyID, items); err != nil {
			return nil, nil, err
		}
	}
	if prevID != "" {
		k, err := rs.find(ctx, respKey{keyID, prevID})
		if err != nil {
			return nil, nil, err
		}
		earlier, err := continuation(k)
		if err != nil {
			return nil, nil, err
		}
		items = append(earlier, items...)
	}
	all, err := json.Marshal(items)
	if err != nil {
		return nil, nil, fmt.Errorf("proxy: responses input: %w", err)
	}
	out := rewriteFields(body, map[string][]byte{"input": all, "store": []byte("false"), "previous_response_id": nil})
	if !keep {
		return out, nil, nil
	}
	return out, &responsesTurn{keyID: keyID, input: all, model: model}, nil
}

// inputItems reads input: a string is one user message.
func inputItems(raw []byte, found bool) ([]json.RawMessage, error) {
	if !found || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var text string
	if json.Unmarshal(raw, &text) == nil {
		msg, _ := json.Marshal(map[string]any{"type": "message", "role": "user",
			"content": []map[string]string{{"type": "input_text", "text": text}}})
		return []json.RawMessage{msg}, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, errBadRequest("invalid_request", "input: must be a string or a list of items")
	}
	return items, nil
}

// resolveReferences replaces each item_reference by the item it names.
func (rs *responseStore) resolveReferences(ctx context.Context, keyID int64, items []json.RawMessage) ([]json.RawMessage, error) {
	var missing []string
	refs := make(map[int]string)
	for i, it := range items {
		r, ok := asReference(it)
		if !ok {
			continue
		}
		if r.ID == "" {
			return nil, errBadRequest("invalid_request", fmt.Sprintf("input[%d].id: an item_reference needs the id of an item", i))
		}
		refs[i] = r.ID
		rs.mu.Lock()
		found, ok := rs.items[respKey{keyID, r.ID}]
		rs.mu.Unlock()
		if ok {
			items[i] = found
		} else {
			missing = append(missing, r.ID)
		}
	}
	if len(missing) > 0 {
		var stored map[string]string
		err := rs.retry(ctx, func() (bool, error) {
			var err error
			stored, err = rs.db.GetResponseItems(ctx, keyID, missing)
			return len(stored) == len(missing), err
		})
		if err != nil {
			return nil, errStateUnavailable(err)
		}
		for i, id := range refs {
			if it, ok := stored[id]; ok {
				items[i] = json.RawMessage(it)
			}
		}
	}
	for i, id := range refs {
		if _, ok := asReference(items[i]); ok {
			return nil, &apiError{Status: http.StatusNotFound, Type: typeInvalidRequest, Code: "item_not_found",
				Message: fmt.Sprintf("input[%d]: item with id %q not found: it was not stored by this key, or has expired", i, id)}
		}
		items[i] = forUpstream(items[i])
	}
	return items, nil
}

type itemReference struct {
	Type    string          `json:"type"`
	ID      string          `json:"id"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// asReference reads an item_reference: its type says so, or it has an id
// and nothing else a message or another item would have.
func asReference(item json.RawMessage) (itemReference, bool) {
	var r itemReference
	if json.Unmarshal(item, &r) != nil {
		return r, false
	}
	return r, r.Type == "item_reference" || r.Type == "" && r.ID != "" && r.Role == "" && len(r.Content) == 0
}

// continuation is what a response continued from gives the next turn: its
// input, then its output.
func continuation(k *keptResponse) ([]json.RawMessage, error) {
	var input []json.RawMessage
	var resp struct {
		Output []json.RawMessage `json:"output"`
	}
	if err := json.Unmarshal(k.input, &input); err != nil {
		return nil, fmt.Errorf("proxy: stored response %s: %w", k.key.id, err)
	}
	if err := json.Unmarshal(k.response, &resp); err != nil {
		return nil, fmt.Errorf("proxy: stored response %s: %w", k.key.id, err)
	}
	out := make([]json.RawMessage, 0, len(input)+len(resp.Output))
	for _, it := range append(input, resp.Output...) {
		if it = forUpstream(it); it != nil {
			out = append(out, it)
		}
	}
	return out, nil
}

// forUpstream readies a stored item to be sent again to a member that keeps
// nothing: without its id (a member asked with store: false knows no item
// by id), and without a reasoning item that carries no encrypted content
// (no one could read it back); nil drops the item.
func forUpstream(item json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(item, &m) != nil {
		return item
	}
	if string(m["type"]) == `"reasoning"` {
		if ec, ok := m["encrypted_content"]; !ok || string(ec) == "null" {
			return nil
		}
	}
	if _, ok := m["id"]; !ok {
		return item
	}
	delete(m, "id")
	out, err := json.Marshal(m)
	if err != nil {
		return item
	}
	return out
}

// rewriteFields returns body with the fields of set replaced (added when
// missing; nil removes one), the others as they were.
func rewriteFields(body []byte, set map[string][]byte) []byte {
	out := make([]byte, 0, len(body)+256)
	out = append(out, '{')
	done := make(map[string]bool, len(set))
	sc := jsonscan.NewObject(body, jsonscan.SkipSpace(body, 0))
	for key, val, ok := sc.Next(); ok; key, val, ok = sc.Next() {
		value := body[val.Start:val.End]
		if v, replaced := set[string(key)]; replaced {
			done[string(key)] = true
			if v == nil {
				continue
			}
			value = v
		}
		out = appendField(out, key, value)
	}
	for name, v := range set {
		if !done[name] && v != nil {
			out = appendField(out, []byte(name), v)
		}
	}
	return append(out, '}')
}

func appendField(out, key, value []byte) []byte {
	if len(out) > 1 {
		out = append(out, ',')
	}
	out = append(append(append(out, '"'), key...), '"', ':')
	return append(out, value...)
}

// keep stores the answer to a turn: in memory at once, in the database with
// the request logs.
func (rs *responseStore) keep(t *responsesTurn, response []byte) {
	var resp struct {
		ID     string            `json:"id"`
		Model  string            `json:"model"`
		Output []json.RawMessage `json:"output"`
	}
	size := int64(len(t.input) + len(response))
	if size > maxStoredResponse || json.Unmarshal(response, &resp) != nil || resp.ID == "" {
		return
	}
	now := time.Now().UTC()
	k := &keptResponse{key: respKey{t.keyID, resp.ID}, input: withIDs(t.input), response: bytes.Clone(response), size: size}
	row := &models.StoredResponse{KeyID: t.keyID, ID: resp.ID, CreatedAt: now, Model: cmpStr(resp.Model, t.model),
		Input: string(k.input), Response: string(k.response)}
	var items []json.RawMessage // those with an id, in step with k.itemIDs
	for _, it := range resp.Output {
		var head struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(it, &head) != nil || head.ID == "" {
			continue
		}
		k.itemIDs, items = append(k.itemIDs, head.ID), append(items, it)
		row.Items = append(row.Items, models.StoredResponseItem{KeyID: t.keyID, ID: head.ID, ResponseID: resp.ID,
			CreatedAt: now, Item: string(it)})
	}
	rs.remember(k, items)
	rs.logs.Enqueue(models.LogEntry{Response: row})
}

// withIDs gives every input item without an id one, for listing them.
func withIDs(input json.RawMessage) json.RawMessage {
	var items []map[string]json.RawMessage
	if json.Unmarshal(input, &items) != nil {
		return input
	}
	for _, it := range items {
		if _, ok := it["id"]; !ok {
			id, _ := json.Marshal("msg_" + randomHex(12))
			it["id"] = id
		}
	}
	out, err := json.Marshal(items)
	if err != nil {
		return input
	}
	return out
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) //nolint:errcheck // crypto/rand never fails on supported platforms
	return hex.EncodeToString(b)
}

// remember puts a response in memory, most recent first, with its output
// items (in step with k.itemIDs), and lets the least recent go past the
// limit.
func (rs *responseStore) remember(k *keptResponse, items []json.RawMessage) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if old, ok := rs.byID[k.key]; ok {
		rs.dropLocked(old)
	}
	rs.byID[k.key] = rs.lru.PushFront(k)
	rs.size += k.size
	for i, id := range k.itemIDs {
		rs.items[respKey{k.key.keyID, id}] = items[i]
	}
	for rs.size > rs.limit && rs.lru.Len() > 1 {
		rs.dropLocked(rs.lru.Back())
	}
}

func (rs *responseStore) dropLocked(e *list.Element) {
	k := rs.lru.Remove(e).(*keptResponse)
	delete(rs.byID, k.key)
	for _, id := range k.itemIDs {
		delete(rs.items, respKey{k.key.keyID, id})
	}
	rs.size -= k.size
}

// find returns a stored response of the key: from memory, or else from the
// database, looked for again for a moment in case another replica has just
// answered it.
func (rs *responseStore) find(ctx context.Context, k respKey) (*keptResponse, error) {
	rs.mu.Lock()
	if e, ok := rs.byID[k]; ok {
		rs.lru.MoveToFront(e)
		kept := e.Value.(*keptResponse)
		rs.mu.Unlock()
		return kept, nil
	}
	rs.mu.Unlock()
	var row *models.StoredResponse
	err := rs.retry(ctx, func() (bool, error) {
		var err error
		row, err = rs.db.GetResponse(ctx, k.keyID, k.id)
		if errors.Is(err, models.ErrNotFound) {
			return false, nil
		}
		return err == nil, err
	})
	switch {
	case err != nil:
		return nil, errStateUnavailable(err)
	case row == nil:
		return nil, &apiError{Status: http.StatusNotFound, Type: typeInvalidRequest, Code: "previous_response_not_found",
			Message: fmt.Sprintf("previous response with id %q not found: it was not stored by this key, was deleted, or has expired", k.id)}
	}
	return &keptResponse{key: k, input: json.RawMessage(row.Input), response: json.RawMessage(row.Response)}, nil
}

// retry runs look until it finds what it looks for, fails, or rs.wait has
// passed.
func (rs *responseStore) retry(ctx context.Context, look func() (bool, error)) error {
	deadline := time.Now().Add(rs.wait)
	for {
		found, err := look()
		if err != nil || found || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// forget deletes a response of the key: at once from memory, and from the
// database after its row is written if it is still on its way; it reports
// whether there was one.
func (rs *responseStore) forget(ctx context.Context, k respKey) (bool, error) {
	rs.mu.Lock()
	e, inMemory := rs.byID[k]
	if inMemory {
		rs.dropLocked(e)
	}
	rs.mu.Unlock()
	err := rs.db.DeleteResponse(ctx, k.keyID, k.id)
	switch {
	case err == nil:
		return true, nil
	case !errors.Is(err, models.ErrNotFound):
		return false, errStateUnavailable(err)
	case inMemory:
		// Not written yet: delete it once it is.
		rs.logs.Enqueue(models.LogEntry{ForgetResponse: &models.ResponseRef{KeyID: k.keyID, ID: k.id}})
		return true, nil
	}
	return false, nil
}

func errStateUnavailable(err error) *apiError {
	return &apiError{Status: http.StatusServiceUnavailable, Type: typeServer, Code: "state_unavailable",
		Message: "the stored responses cannot be read now (the database does not answer); try again", cause: err}
}

// finalResponse returns the response object of a response.completed or
// response.incomplete event among the events of out, or nil.
func finalResponse(out []byte) []byte {
	if !bytes.Contains(out, []byte("response.completed")) && !bytes.Contains(out, []byte("response.incomplete")) {
		return nil
	}
	for _, line := range bytes.Split(out, []byte("\n")) {
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		var ev struct {
			Type     string          `json:"type"`
			Response json.RawMessage `json:"response"`
		}
		if json.Unmarshal(bytes.TrimSpace(data), &ev) == nil &&
			(ev.Type == "response.completed" || ev.Type == "response.incomplete") && len(ev.Response) > 0 {
			return ev.Response
		}
	}
	return nil
}

// stateKey authenticates a request for stored state and names the response
// its path asks for.
func (s *Server) stateKey(w http.ResponseWriter, r *http.Request) (respKey, bool) {
	snap := s.snap.Load()
	if snap == nil {
		writeError(w, protoResponses, errNotReady())
		return respKey{}, false
	}
	key, err := snap.authenticate(r.Header, s.now())
	if err != nil {
		writeError(w, protoResponses, asAPIError(err))
		return respKey{}, false
	}
	return respKey{key.id, r.PathValue("id")}, true
}

func errResponseNotFound(id string) *apiError {
	return &apiError{Status: http.StatusNotFound, Type: typeInvalidRequest, Code: "not_found",
		Message: fmt.Sprintf("no response with id %q: it was not stored by this key, was deleted, or has expired", id)}
}

// lookUp finds a stored response for GET and its input items, writing the
// error when there is none.
func (s *Server) lookUp(w http.ResponseWriter, r *http.Request) (*keptResponse, bool) {
	k, ok := s.stateKey(w, r)
	if !ok {
		return nil, false
	}
	kept, err := s.responses.find(r.Context(), k)
	if err != nil {
		if ae := asAPIError(err); ae.Status == http.StatusNotFound {
			err = errResponseNotFound(k.id)
		}
		writeError(w, protoResponses, asAPIError(err))
		return nil, false
	}
	return kept, true
}

// getResponse answers GET /v1/responses/{id}: the response as it was sent.
func (s *Server) getResponse(w http.ResponseWriter, r *http.Request) {
	if kept, ok := s.lookUp(w, r); ok {
		writeJSON(w, http.StatusOK, kept.response)
	}
}

// deleteResponse answers DELETE /v1/responses/{id}.
func (s *Server) deleteResponse(w http.ResponseWriter, r *http.Request) {
	k, ok := s.stateKey(w, r)
	if !ok {
		return
	}
	found, err := s.responses.forget(r.Context(), k)
	switch {
	case err != nil:
		writeError(w, protoResponses, asAPIError(err))
	case !found:
		writeError(w, protoResponses, errResponseNotFound(k.id))
	default:
		out, _ := json.Marshal(map[string]any{"id": k.id, "object": "response.deleted", "deleted": true})
		writeJSON(w, http.StatusOK, out)
	}
}

// listInputItems answers GET /v1/responses/{id}/input_items: the input the
// model was given, earlier turns included, as OpenAI pages it (limit 1–100,
// default 20; order desc by default, or asc; after an item id).
func (s *Server) listInputItems(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := 20
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			writeError(w, protoResponses, errBadRequest("invalid_request", "limit: must be a whole number from 1 to 100"))
			return
		}
		limit = n
	}
	order := cmpStr(q.Get("order"), "desc")
	if order != "asc" && order != "desc" {
		writeError(w, protoResponses, errBadRequest("invalid_request", `order: must be "asc" or "desc"`))
		return
	}
	kept, ok := s.lookUp(w, r)
	if !ok {
		return
	}
	var items []json.RawMessage
	json.Unmarshal(kept.input, &items) //nolint:errcheck // stored by keep, a list
	if order == "desc" {
		slices.Reverse(items)
	}
	if after := q.Get("after"); after != "" {
		for i, it := range items {
			var head struct {
				ID string `json:"id"`
			}
			if json.Unmarshal(it, &head) == nil && head.ID == after {
				items = items[i+1:]
				break
			}
		}
	}
	more := len(items) > limit
	items = items[:min(limit, len(items))]
	page := map[string]any{"object": "list", "data": items, "has_more": more, "first_id": nil, "last_id": nil}
	if len(items) > 0 {
		var first, last struct {
			ID string `json:"id"`
		}
		json.Unmarshal(items[0], &first)           //nolint:errcheck // an item without an id has none
		json.Unmarshal(items[len(items)-1], &last) //nolint:errcheck // as above
		page["first_id"], page["last_id"] = first.ID, last.ID
	}
	out, _ := json.Marshal(page)
	writeJSON(w, http.StatusOK, out)
}
