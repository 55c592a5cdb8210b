package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// fakeOpenAI is an upstream that speaks OpenAI's chat completions wire format
// and records what it was sent.
type fakeOpenAI struct {
	*httptest.Server
	mu       sync.Mutex
	auth     []string
	bodies   []map[string]any
	chunkGap time.Duration // pause between stream chunks
}

func newFakeOpenAI(t *testing.T) *fakeOpenAI {
	f := &fakeOpenAI{}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeOpenAI) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"no such path","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, `{"error":{"message":"bad json","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.bodies = append(f.bodies, body)
	gap := f.chunkGap
	f.mu.Unlock()
	model, _ := body["model"].(string)
	if stream, _ := body["stream"].(bool); stream {
		f.stream(w, model, gap)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1760000000,"model":%q,`+
		`"choices":[{"index":0,"message":{"role":"assistant","content":"hello from upstream"},"finish_reason":"stop"}],`+
		`"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}}`, model)
}

// streamWords are the content deltas of every stream.
var streamWords = []string{"one ", "two ", "three ", "four ", "five"}

func (f *fakeOpenAI) stream(w http.ResponseWriter, model string, gap time.Duration) {
	w.Header().Set("Content-Type", "text/event-stream")
	flusher := w.(http.Flusher)
	chunk := func(delta, finish, usage string) {
		fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-2\",\"object\":\"chat.completion.chunk\",\"created\":1760000000,\"model\":%q,\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]%s}\n\n", model, delta, finish, usage)
		flusher.Flush()
	}
	chunk(`{"role":"assistant","content":""}`, "null", "")
	for _, word := range streamWords {
		time.Sleep(gap)
		chunk(fmt.Sprintf(`{"content":%q}`, word), "null", "")
	}
	chunk(`{}`, `"stop"`, "")
	fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-2\",\"object\":\"chat.completion.chunk\",\"created\":1760000000,\"model\":%q,\"choices\":[],\"usage\":{\"prompt_tokens\":13,\"completion_tokens\":5,\"total_tokens\":18}}\n\n", model)
	fmt.Fprint(w, "data: [DONE]\n\n")
	flusher.Flush()
}

func (f *fakeOpenAI) received() ([]string, []map[string]any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.auth...), append([]map[string]any(nil), f.bodies...)
}
