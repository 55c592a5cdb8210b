package proxy_test

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"gateway/models"
	"gateway/proxy"
)

func TestChatCompletion(t *testing.T) {
	e := newEnv(t, proxy.Options{})
	id := e.addDeployment(models.Deployment{PublicName: "gpt-test", UpstreamModel: "upstream-gpt",
		Prices: models.Prices{InputPrice: ptr(2.0), OutputPrice: ptr(8.0), CacheReadPrice: ptr(0.5)}})
	e.reload()

	var resp *http.Response
	got, err := e.client(
		option.WithHeader("X-Api-Key", e.key),         // must not go upstream either
		option.WithHeader("Cookie", "session=caller"), // nor this
	).Chat.Completions.New(context.Background(), userMessage("gpt-test"), option.WithResponseInto(&resp))
	if err != nil {
		t.Fatal(err)
	}

	if c := got.Choices[0].Message.Content; c != "Hello world" {
		t.Errorf("content: got %q, want %q", c, "Hello world")
	}
	if got.Usage.PromptTokens != fakePromptTokens || got.Usage.CompletionTokens != fakeCompletionTokens ||
		got.Usage.PromptTokensDetails.CachedTokens != fakeCachedTokens {
		t.Errorf("usage: got %+v", got.Usage)
	}
	if got.Model != "upstream-gpt" {
		t.Errorf("body model: got %q, want the upstream's %q", got.Model, "upstream-gpt")
	}
	// (12-4)×2 + 4×0.5 + 5×8 = 58 micro-dollars.
	wantHeaders := map[string]string{
		"X-Gateway-Deployment-Id":  strconv.FormatInt(id, 10),
		"X-Gateway-Upstream-Model": "upstream-gpt",
		"X-Gateway-Provider":       "openai-main",
		"X-Gateway-Attempts":       "1",
		"X-Gateway-Cost-Usd":       "0.000058",
	}
	for name, want := range wantHeaders {
		if got := resp.Header.Get(name); got != want {
			t.Errorf("header %s: got %q, want %q", name, got, want)
		}
	}
	requestID := resp.Header.Get("X-Request-Id")
	if len(requestID) != 32 {
		t.Errorf("x-request-id: got %q, want 32 hex characters", requestID)
	}

	up := e.up.last(t)
	assertUpstreamAuth(t, up, e.key)
	if up.Path != "/v1/chat/completions" {
		t.Errorf("upstream path: got %q", up.Path)
	}
	if up.Body["model"] != "upstream-gpt" {
		t.Errorf("upstream model: got %v, want upstream-gpt", up.Body["model"])
	}

	row := e.waitLogs(1)[0]
	want := models.RequestLog{RequestID: requestID, Model: "gpt-test", UpstreamModel: "upstream-gpt",
		ProviderName: "openai-main", Endpoint: "/v1/chat/completions", Status: 200, Attempts: 1,
		InputTokens: fakePromptTokens, OutputTokens: fakeCompletionTokens, CacheReadTokens: fakeCachedTokens, CostUSD: 0.000058}
	assertLogRow(t, row, want)
	if row.DeploymentID == nil || *row.DeploymentID != id || row.KeyID == nil || row.ProviderID == nil || *row.ProviderID != e.providerID {
		t.Errorf("log ids: deployment %v, key %v, provider %v", row.DeploymentID, row.KeyID, row.ProviderID)
	}
}

// assertUpstreamAuth checks that the provider key arrived and nothing of the
// caller's credentials did.
func assertUpstreamAuth(t *testing.T, up upstreamRequest, virtualKey string) {
	t.Helper()
	if got := up.Header.Get("Authorization"); got != "Bearer "+upstreamKey {
		t.Errorf("upstream Authorization: got %q, want the provider key", got)
	}
	for _, name := range []string{"X-Api-Key", "Cookie"} {
		if v := up.Header.Get(name); v != "" {
			t.Errorf("upstream got the caller's %s: %q", name, v)
		}
	}
	for name, vs := range up.Header {
		if strings.Contains(strings.Join(vs, " "), virtualKey) {
			t.Errorf("the virtual key reached the upstream in %s", name)
		}
	}
}

func assertLogRow(t *testing.T, got, want models.RequestLog) {
	t.Helper()
	if got.RequestID != want.RequestID || got.Model != want.Model || got.UpstreamModel != want.UpstreamModel ||
		got.ProviderName != want.ProviderName || got.Endpoint != want.Endpoint || got.Status != want.Status ||
		got.Attempts != want.Attempts || got.Stream != want.Stream {
		t.Errorf("log row:\n got %+v\nwant %+v", got, want)
	}
	if got.InputTokens != want.InputTokens || got.OutputTokens != want.OutputTokens ||
		got.CacheReadTokens != want.CacheReadTokens || got.CostUSD != want.CostUSD || got.UsageEstimated != want.UsageEstimated {
		t.Errorf("log tokens: got in %d out %d cached %d cost %v estimated %v, want in %d out %d cached %d cost %v estimated %v",
			got.InputTokens, got.OutputTokens, got.CacheReadTokens, got.CostUSD, got.UsageEstimated,
			want.InputTokens, want.OutputTokens, want.CacheReadTokens, want.CostUSD, want.UsageEstimated)
	}
	if got.CreatedAt.IsZero() || got.LatencyMS < 0 || got.KeyID == nil {
		t.Errorf("log row lacks created_at, latency or key: %+v", got)
	}
}

func TestChatCompletionStream(t *testing.T) {
	for _, tc := range []struct {
		name       string
		askUsage   bool
		wantUsage  bool
		wantChunks int
	}{
		{name: "caller did not ask for usage", askUsage: false, wantChunks: 4},
		{name: "caller asked for usage", askUsage: true, wantUsage: true, wantChunks: 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, proxy.Options{})
			e.addDeployment(models.Deployment{PublicName: "gpt-stream", UpstreamModel: "upstream-stream", Prices: models.PricesOf(1, 2)})
			e.reload()
			params := userMessage("gpt-stream")
			if tc.askUsage {
				params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
			}
			var resp *http.Response
			stream := e.client().Chat.Completions.NewStreaming(context.Background(), params, option.WithResponseInto(&resp))
			acc := openai.ChatCompletionAccumulator{}
			chunks, usageChunks := 0, 0
			for stream.Next() {
				chunk := stream.Current()
				acc.AddChunk(chunk)
				chunks++
				if chunk.JSON.Usage.Valid() && chunk.Usage.TotalTokens > 0 {
					usageChunks++
				}
			}
			if err := stream.Err(); err != nil {
				t.Fatal(err)
			}
			if c := acc.Choices[0].Message.Content; c != "Hello world" {
				t.Errorf("content: got %q, want %q", c, "Hello world")
			}
			if chunks != tc.wantChunks {
				t.Errorf("chunks: got %d, want %d", chunks, tc.wantChunks)
			}
			if got := usageChunks == 1; got != tc.wantUsage {
				t.Errorf("usage chunks forwarded: got %d, want usage %v", usageChunks, tc.wantUsage)
			}
			if tc.wantUsage && acc.Usage.TotalTokens != fakePromptTokens+fakeCompletionTokens {
				t.Errorf("accumulated usage: got %+v", acc.Usage)
			}
			if resp.Header.Get("X-Gateway-Deployment-Id") == "" || resp.Header.Get("X-Gateway-Provider") != "openai-main" {
				t.Errorf("stream lacks gateway headers: %v", resp.Header)
			}

			up := e.up.last(t)
			assertUpstreamAuth(t, up, e.key)
			if !wantsUsage(up) {
				t.Errorf("upstream was not asked for include_usage: %s", up.Raw)
			}
			if up.Body["model"] != "upstream-stream" {
				t.Errorf("upstream model: got %v", up.Body["model"])
			}
			row := e.waitLogs(1)[0]
			want := models.RequestLog{RequestID: resp.Header.Get("X-Request-Id"), Model: "gpt-stream", UpstreamModel: "upstream-stream",
				ProviderName: "openai-main", Endpoint: "/v1/chat/completions", Status: 200, Attempts: 1, Stream: true,
				InputTokens: fakePromptTokens, OutputTokens: fakeCompletionTokens, CacheReadTokens: fakeCachedTokens,
				CostUSD: (fakePromptTokens*1.0 + fakeCompletionTokens*2.0) / 1e6}
			assertLogRow(t, row, want)
			if row.Error != "" {
				t.Errorf("log error: %q", row.Error)
			}
		})
	}
}

// TestStreamFlushesEachEvent proves there is no buffering: the upstream sends
// one chunk and then waits until the caller has read it through the gateway.
func TestStreamFlushesEachEvent(t *testing.T) {
	e := newEnv(t, proxy.Options{})
	e.addDeployment(models.Deployment{PublicName: "gpt-stream", UpstreamModel: "upstream-stream"})
	e.reload()
	release := make(chan struct{})
	t.Cleanup(func() { closeOnce(release) })
	e.up.setRespond(func(w http.ResponseWriter, r *http.Request, req upstreamRequest) {
		events := fakeStreamEvents(req)
		startStream(w)
		io.WriteString(w, events[1]) // "Hello"
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		for _, ev := range events[2:] {
			io.WriteString(w, ev)
		}
	})

	type first struct {
		content string
		ok      bool
	}
	firstc := make(chan first, 1)
	var stream interface {
		Next() bool
		Current() openai.ChatCompletionChunk
		Err() error
	}
	go func() {
		s := e.client().Chat.Completions.NewStreaming(context.Background(), userMessage("gpt-stream"))
		stream = s
		ok := s.Next()
		firstc <- first{s.Current().Choices[0].Delta.Content, ok}
	}()
	select {
	case f := <-firstc:
		if !f.ok || f.content != "Hello" {
			t.Fatalf("first chunk: got %q (ok %v)", f.content, f.ok)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the first chunk did not reach the caller while the upstream held the rest: the gateway buffers")
	}
	closeOnce(release)
	var rest strings.Builder
	for stream.Next() {
		for _, c := range stream.Current().Choices {
			rest.WriteString(c.Delta.Content)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if rest.String() != " world" {
		t.Errorf("rest of the stream: got %q", rest.String())
	}
}

func closeOnce(c chan struct{}) {
	select {
	case <-c:
	default:
		close(c)
	}
}

func TestStreamCutMidway(t *testing.T) {
	e := newEnv(t, proxy.Options{})
	e.addDeployment(models.Deployment{PublicName: "gpt-stream", UpstreamModel: "upstream-stream"})
	e.reload()
	e.up.setRespond(func(w http.ResponseWriter, r *http.Request, req upstreamRequest) {
		startStream(w)
		io.WriteString(w, fakeStreamEvents(req)[1])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // drop the connection mid-stream
	})

	stream := e.client().Chat.Completions.NewStreaming(context.Background(), userMessage("gpt-stream"))
	var content strings.Builder
	for stream.Next() {
		content.WriteString(stream.Current().Choices[0].Delta.Content)
	}
	if content.String() != "Hello" {
		t.Errorf("content before the cut: got %q", content.String())
	}
	err := stream.Err()
	if err == nil {
		t.Fatal("the stream ended without an error: the caller would take half an answer for a whole one")
	}
	mustContain(t, "stream error", err.Error(), "broke off the stream")
	mustContain(t, "stream error", err.Error(), "openai-main")
	row := e.waitLogs(1)[0]
	if row.Status != 200 || !strings.Contains(row.Error, "broke off the stream") {
		t.Errorf("log row: status %d, error %q", row.Status, row.Error)
	}
	mustContain(t, "error line", e.logs.String(), row.RequestID)
}

// TestAnswerDoesNotWaitForTheLog: a JSON answer, and an error, reach the
// caller while the access log cannot be written (a stalled stderr pipe),
// and the line and the row follow once it can.
func TestAnswerDoesNotWaitForTheLog(t *testing.T) {
	e := newEnv(t, proxy.Options{})
	e.addDeployment(models.Deployment{PublicName: "gpt-test", UpstreamModel: "upstream-gpt"})
	e.reload()
	release := e.logs.hold()
	defer release()

	// A connection per request: the first one's handler is still busy.
	client := e.client(option.WithHTTPClient(&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}))
	var ids []string
	for _, model := range []string{"gpt-test", "no-such-model"} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		var resp *http.Response
		_, err := client.Chat.Completions.New(ctx, userMessage(model), option.WithResponseInto(&resp))
		cancel()
		switch {
		case resp == nil:
			t.Fatalf("%s: no answer while the log was stalled: %v", model, err)
		case (err == nil) != (model == "gpt-test"):
			t.Fatalf("%s: status %d, error %v", model, resp.StatusCode, err)
		}
		ids = append(ids, resp.Header.Get("X-Request-Id"))
	}
	release()
	e.waitLogs(2)
	for _, id := range ids {
		mustContain(t, "access log", e.logs.String(), id)
	}
}

// TestCallerDisconnectCancelsUpstream: a caller that goes away mid-stream
// cancels the upstream request, and is logged as 499.
func TestCallerDisconnectCancelsUpstream(t *testing.T) {
	e := newEnv(t, proxy.Options{})
	e.addDeployment(models.Deployment{PublicName: "gpt-stream", UpstreamModel: "upstream-stream"})
	e.reload()
	cancelled := make(chan struct{})
	e.up.setRespond(func(w http.ResponseWriter, r *http.Request, req upstreamRequest) {
		startStream(w)
		io.WriteString(w, fakeStreamEvents(req)[1])
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			close(cancelled)
		case <-time.After(10 * time.Second):
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	stream := e.client().Chat.Completions.NewStreaming(ctx, userMessage("gpt-stream"))
	if !stream.Next() {
		t.Fatalf("no first chunk: %v", stream.Err())
	}
	cancel()
	stream.Close()
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream request was not cancelled when the caller left")
	}
	if row := e.waitLogs(1)[0]; row.Status != 499 {
		t.Errorf("log status: got %d, want 499", row.Status)
	}
	// Never counted against the member.
	for _, st := range e.proxy.Stats() {
		if st.Requests != 0 || st.LastError != "" {
			t.Errorf("a caller's disconnect was counted against the member: %+v", st)
		}
	}
	if st, _ := e.proxy.PoolStatus("gpt-stream", nil); st.Members[0].CoolingDown {
		t.Error("a caller's disconnect cooled the member down")
	}
}
