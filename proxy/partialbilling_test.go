package proxy_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"gateway/models"
	"gateway/proxy"
)

// The two deltas a cut stream delivers: 25 bytes, 7 tokens at 4 bytes a
// token rounded up.
const (
	partialFirst, partialSecond = "The quick brown ", "fox jumps"
	partialTokens               = 7
)

// Prices high enough for the spend to show in the budget: USD per million.
const partialInputPrice, partialOutputPrice = 3000.0, 15000.0

// partialUpstream streams the two deltas in its wire format ("openai",
// "anthropic" or "responses") and then ends as asked: "complete" (with its
// usage: 17 tokens in and 42 out), "cut" (the connection drops) or "hang"
// (it waits for the gateway to go away).
func partialUpstream(t *testing.T, wire, end string) *httptest.Server {
	t.Helper()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) //nolint:errcheck // the request does not matter
		startStream(w)
		send := func(ev string) {
			io.WriteString(w, ev)
			w.(http.Flusher).Flush()
		}
		for _, ev := range partialEvents(wire, "start") {
			send(ev)
		}
		for _, text := range []string{partialFirst, partialSecond} {
			send(partialDelta(wire, text))
		}
		switch end {
		case "cut":
			panic(http.ErrAbortHandler)
		case "hang":
			<-r.Context().Done()
			return
		}
		for _, ev := range partialEvents(wire, "end") {
			send(ev)
		}
	}))
	t.Cleanup(up.Close)
	return up
}

// partialEvents are a stream's events before its deltas, or after them.
func partialEvents(wire, part string) []string {
	chunk := func(delta, finish string) string {
		return fmt.Sprintf(`data: {"id":"chatcmpl-p","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`+"\n\n", delta, finish)
	}
	switch wire + " " + part {
	case "openai start":
		return []string{chunk(`{"role":"assistant","content":""}`, "null")}
	case "openai end":
		return []string{chunk(`{}`, `"stop"`),
			`data: {"id":"chatcmpl-p","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":17,"completion_tokens":42,"total_tokens":59}}` + "\n\n",
			"data: [DONE]\n\n"}
	case "anthropic start":
		return []string{
			`event: message_start` + "\n" + `data: {"type":"message_start","message":{"id":"msg_p","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"cache_read_input_tokens":5,"cache_creation_input_tokens":2,"output_tokens":1}}}` + "\n\n",
			`event: content_block_start` + "\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}` + "\n\n"}
	case "anthropic end":
		return []string{
			`event: content_block_stop` + "\n" + `data: {"type":"content_block_stop","index":0}` + "\n\n",
			`event: message_delta` + "\n" + `data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":42}}` + "\n\n",
			`event: message_stop` + "\n" + `data: {"type":"message_stop"}` + "\n\n"}
	case "responses start":
		return []string{`event: response.created` + "\n" + `data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_p","object":"response","created_at":1,"status":"in_progress","model":"m","output":[],"usage":null}}` + "\n\n"}
	case "responses end":
		return []string{`event: response.completed` + "\n" + `data: {"type":"response.completed","sequence_number":9,"response":{"id":"resp_p","object":"response","created_at":1,"status":"completed","model":"m","output":[],"usage":{"input_tokens":17,"input_tokens_details":{"cached_tokens":0},"output_tokens":42,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":59}}}` + "\n\n"}
	}
	panic("no events for " + wire + " " + part)
}

func partialDelta(wire, text string) string {
	switch wire {
	case "anthropic":
		return fmt.Sprintf("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":%q}}\n\n", text)
	case "responses":
		return fmt.Sprintf("event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":1,\"item_id\":\"msg_p\",\"output_index\":0,\"content_index\":0,\"delta\":%q}\n\n", text)
	}
	return fmt.Sprintf("data: {\"id\":\"chatcmpl-p\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q},\"finish_reason\":null}]}\n\n", text)
}

// partialEnv is a gateway whose pool "p" has one member on an upstream of
// wire format wire, and a key with a budget, whose id it returns.
func partialEnv(t *testing.T, wire, end string) (*env, string, int64) {
	t.Helper()
	e := newEnv(t, proxy.Options{})
	up := partialUpstream(t, wire, end)
	p := &models.Provider{Name: "partial", APIType: models.APITypeOpenAI, BaseURL: up.URL + "/v1", SupportsResponses: wire == "responses"}
	if wire == "anthropic" {
		p.APIType, p.BaseURL = models.APITypeAnthropic, up.URL
	}
	if err := e.store.CreateProvider(context.Background(), p, models.ProviderSecrets{APIKey: upstreamKey}); err != nil {
		t.Fatal(err)
	}
	e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: "m", ProviderID: p.ID,
		Prices: models.PricesOf(partialInputPrice, partialOutputPrice)})
	key, id := e.keyWith(models.VirtualKey{Budget: models.Budget{MaxBudgetUSD: ptr(1000.0)}})
	return e, key, id
}

// callerBody is a streaming request for pool "p" in the caller's protocol.
func callerBody(caller string) (path, body string) {
	switch caller {
	case "anthropic":
		return "/v1/messages", messagesBody("p")
	case "responses":
		return "/v1/responses", `{"model":"p","stream":true,"store":false,"input":"hi"}`
	}
	return "/v1/chat/completions", chatBody("p", true)
}

// streamUntil streams body and reads the answer until a line holds stop,
// then hangs up; stop "" reads it all.
func streamUntil(t *testing.T, e *env, key, path, body, stop string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.gw.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	wantStatus(t, resp, nil, http.StatusOK)
	var got strings.Builder
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadString('\n')
		got.WriteString(line)
		if stop != "" && strings.Contains(line, stop) || err != nil {
			return got.String()
		}
	}
}

// TestPartialStreamsBilledForWhatWasDelivered: a stream that ends before
// the upstream's final usage (the caller hangs up after two deltas, or the
// upstream drops the connection) is billed for the two deltas' text at 4
// bytes a token, its input as message_start gave it or else the request's
// estimate, and its row says the usage is an estimate; the cost reaches
// the key's spend. A complete stream keeps the upstream's usage.
func TestPartialStreamsBilledForWhatWasDelivered(t *testing.T) {
	for _, tc := range []struct {
		caller, wire, end string
	}{
		{"anthropic", "anthropic", "hang"},
		{"anthropic", "anthropic", "cut"},
		{"openai", "openai", "cut"},
		{"openai", "openai", "hang"},
		{"responses", "responses", "cut"},
		{"anthropic", "openai", "cut"},
		{"openai", "anthropic", "hang"},
		{"responses", "openai", "hang"},
		{"responses", "anthropic", "cut"},
		{"openai", "openai", "complete"},
		{"anthropic", "anthropic", "complete"},
		{"responses", "responses", "complete"},
		{"anthropic", "openai", "complete"},
	} {
		t.Run(fmt.Sprintf("%s caller, %s member, %s", tc.caller, tc.wire, tc.end), func(t *testing.T) {
			e, key, keyID := partialEnv(t, tc.wire, tc.end)
			path, body := callerBody(tc.caller)
			stop := ""
			if tc.end == "hang" {
				stop = "fox"
			}
			got := streamUntil(t, e, key, path, body, stop)
			if !strings.Contains(got, "fox") {
				t.Fatalf("the caller did not get both deltas:\n%s", got)
			}
			row := e.waitLogs(1)[0]
			wantIn, wantOut, estimated := int64(17), int64(42), false
			if tc.end != "complete" {
				wantOut, estimated = partialTokens, true
				if tc.wire != "anthropic" {
					wantIn = int64(len(body) / 4) // no message_start: the request's estimate
				}
			}
			wantCost := (float64(wantIn)*partialInputPrice + float64(wantOut)*partialOutputPrice) / 1e6
			if tc.wire == "anthropic" {
				wantCost = anthropicPartialCost(wantOut)
			}
			if row.InputTokens != wantIn || row.OutputTokens != wantOut || row.UsageEstimated != estimated ||
				math.Abs(row.CostUSD-wantCost) > 1e-9 {
				t.Errorf("row: in %d out %d estimated %v cost %v, want in %d out %d estimated %v cost %v",
					row.InputTokens, row.OutputTokens, row.UsageEstimated, row.CostUSD, wantIn, wantOut, estimated, wantCost)
			}
			wantStatus := map[string]int{"hang": 499, "cut": 200, "complete": 200}[tc.end]
			if row.Status != wantStatus {
				t.Errorf("row status %d, want %d", row.Status, wantStatus)
			}
			if spend := e.waitSpend(keyID, wantCost); math.Abs(spend-wantCost) > 0.005 {
				t.Errorf("the key's spend is %v, want %v", spend, wantCost)
			}
		})
	}
}

// TestAnthropicSDKAbortBilledForTwoDeltas: Claude Code's case with the
// official SDK: it stops reading after two text deltas; the row has the
// two deltas' tokens, not message_start's placeholder of 1.
func TestAnthropicSDKAbortBilledForTwoDeltas(t *testing.T) {
	e, key, _ := partialEnv(t, "anthropic", "hang")
	e.key = key
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := e.anthropicClient()
	s := client.Messages.NewStreaming(ctx, messageParams("p", false))
	var text strings.Builder
	for s.Next() {
		ev := s.Current()
		if ev.Type == "content_block_delta" {
			text.WriteString(ev.Delta.Text)
		}
		if text.String() == partialFirst+partialSecond {
			break
		}
	}
	cancel()
	s.Close()
	if text.String() != partialFirst+partialSecond {
		t.Fatalf("read %q before hanging up (%v)", text.String(), s.Err())
	}
	row := e.waitLogs(1)[0]
	wantCost := anthropicPartialCost(partialTokens)
	if row.OutputTokens != partialTokens || row.InputTokens != 17 || !row.UsageEstimated || row.CostUSD != wantCost {
		t.Errorf("row: in %d out %d estimated %v cost %v, want in 17 out %d estimated, cost %v",
			row.InputTokens, row.OutputTokens, row.UsageEstimated, row.CostUSD, partialTokens, wantCost)
	}
}

// anthropicPartialCost is the bill of the anthropic upstream's usage (10
// uncached input tokens, 5 read from the cache, 2 written to it) and out
// output tokens: Claude's cache reads at a tenth of the input price and
// its 5-minute writes at 1.25 times it, as the entry names no cache price.
func anthropicPartialCost(out int64) float64 {
	return (10*partialInputPrice + 5*partialInputPrice/10 + 2*partialInputPrice*1.25 + float64(out)*partialOutputPrice) / 1e6
}
