package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"gateway/models"
	"gateway/proxy"
)

// slowStart holds a fake upstream's first write back: its headers go out at
// once, its first event after delay, as a reasoning model's do.
type slowStart struct {
	http.ResponseWriter
	r      *http.Request
	delay  time.Duration
	waited bool
}

func delayFirstWrite(w http.ResponseWriter, r *http.Request, delay time.Duration) http.ResponseWriter {
	return &slowStart{ResponseWriter: w, r: r, delay: delay}
}

func (s *slowStart) Write(b []byte) (int, error) {
	if !s.waited {
		s.waited = true
		select {
		case <-time.After(s.delay):
		case <-s.r.Context().Done():
			return 0, s.r.Context().Err()
		}
	}
	return s.ResponseWriter.Write(b)
}

func (s *slowStart) Flush() { s.ResponseWriter.(http.Flusher).Flush() }

// slowProtocolEnv is newProtocolEnv with both fakes holding their first
// event back for delay.
func slowProtocolEnv(t *testing.T, opts proxy.Options, delay time.Duration) (*env, *fakeAnthropic) {
	t.Helper()
	e, an := newProtocolEnvWith(t, opts)
	an.setFirstEventDelay(delay)
	e.up.setRespond(func(w http.ResponseWriter, r *http.Request, req upstreamRequest) {
		openAIWithTools(delayFirstWrite(w, r, delay), r, req)
	})
	return e, an
}

// timedRead posts body to the gateway and reads the answer raw as it
// arrives. It returns the body and the longest the caller went without a
// byte: from the request to the headers, and between two reads.
func (e *env) timedRead(path, body string) (*http.Response, []byte, time.Duration) {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.gw.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.key)
	req.Header.Set("Content-Type", "application/json")
	last := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	longest := time.Since(last)
	last = time.Now()
	var got []byte
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			longest = max(longest, time.Since(last))
			last = time.Now()
			got = append(got, buf[:n]...)
		}
		if err == io.EOF {
			return resp, got, longest
		}
		if err != nil {
			e.t.Fatalf("read the stream: %v (so far %q)", err, got)
		}
	}
}

// sseText is the text a stream carried, in any of the three protocols:
// OpenAI's choices[0].delta.content, Anthropic's text_delta, Responses'
// response.output_text.delta.
func sseText(t *testing.T, body []byte) string {
	t.Helper()
	var b strings.Builder
	for line := range strings.Lines(string(body)) {
		data, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var v struct {
			Type    string `json:"type"`
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
			Delta json.RawMessage `json:"delta"`
		}
		if err := json.Unmarshal([]byte(data), &v); err != nil {
			t.Fatalf("event data is not JSON: %v: %s", err, data)
		}
		switch {
		case len(v.Choices) > 0:
			b.WriteString(v.Choices[0].Delta.Content)
		case v.Type == "content_block_delta":
			var d struct {
				Text string `json:"text"`
			}
			json.Unmarshal(v.Delta, &d) //nolint:errcheck // not text: nothing to add
			b.WriteString(d.Text)
		case v.Type == "response.output_text.delta":
			var d string
			json.Unmarshal(v.Delta, &d) //nolint:errcheck // not text: nothing to add
			b.WriteString(d)
		}
	}
	return b.String()
}

// slowStreamCase is a caller/member pair a slow first event is tried with.
type slowStreamCase struct {
	name, path, body string
	keepAlive        string // in the caller's protocol
}

var (
	openAIOnOpenAI       = slowStreamCase{"openai caller, openai member", "/v1/chat/completions", chatBody("gpt", true), keepAliveComment}
	anthropicOnAnthropic = slowStreamCase{"anthropic caller, anthropic member", "/v1/messages", messagesBody("claude"), keepAlivePing}
	anthropicOnOpenAI    = slowStreamCase{"anthropic caller, openai member", "/v1/messages", messagesBody("gpt"), keepAlivePing}
	openAIOnAnthropic    = slowStreamCase{"openai caller, anthropic member", "/v1/chat/completions", chatBody("claude", true), keepAliveComment}
	responsesOnOpenAI    = slowStreamCase{"responses caller, openai member", "/v1/responses",
		`{"model":"gpt","stream":true,"store":false,"input":"hi"}`, keepAliveComment}
)

const (
	keepAliveComment = ": keep-alive\n\n"
	keepAlivePing    = "event: ping\ndata: {\"type\": \"ping\"}\n\n"
)

func messagesBody(model string) string {
	return fmt.Sprintf(`{"model":%q,"max_tokens":64,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, model)
}

// TestSlowFirstEventIsKeptAlive, with the real defaults: a member that
// answers at once but sends its first event after 25 s (a reasoning model
// thinking) is waited for, not retried, and the caller never goes more than
// the keep-alive interval of 10 s without a byte.
func TestSlowFirstEventIsKeptAlive(t *testing.T) {
	t.Parallel()
	for _, tc := range []slowStreamCase{openAIOnOpenAI, anthropicOnOpenAI} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			testSlowFirstEvent(t, tc, proxy.Options{}, 25*time.Second, 10*time.Second+2*time.Second)
		})
	}
}

// TestSlowFirstEventKeepAlives: the same with short intervals (250 ms
// keep-alives, the first event after 4 s), for both pass-throughs and three
// translations; the keep-alives are in the caller's own protocol.
func TestSlowFirstEventKeepAlives(t *testing.T) {
	t.Parallel()
	for _, tc := range []slowStreamCase{openAIOnOpenAI, anthropicOnAnthropic, anthropicOnOpenAI, openAIOnAnthropic, responsesOnOpenAI} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			keepAlive := 250 * time.Millisecond
			testSlowFirstEvent(t, tc, proxy.Options{StreamKeepAlive: keepAlive}, 4*time.Second, keepAlive+1500*time.Millisecond)
		})
	}
}

// testSlowFirstEvent streams tc from members whose first event comes after
// firstEvent: one upstream call, the whole text, the keep-alives in the
// caller's protocol, and never a silence longer than maxGap.
func testSlowFirstEvent(t *testing.T, tc slowStreamCase, opts proxy.Options, firstEvent, maxGap time.Duration) {
	t.Helper()
	e, an := slowProtocolEnv(t, opts, firstEvent)
	resp, body, longest := e.timedRead(tc.path, tc.body)
	wantStatus(t, resp, body, http.StatusOK)
	if hits := e.up.count() + an.count(); hits != 1 {
		t.Fatalf("the upstream was called %d times, want once", hits)
	}
	if got := sseText(t, body); got != "Hello from Claude" {
		t.Errorf("text %q, want %q; stream:\n%s", got, "Hello from Claude", body)
	}
	if longest > maxGap {
		t.Errorf("the caller went %s without a byte, more than %s", longest, maxGap)
	}
	other := map[string]string{keepAliveComment: keepAlivePing, keepAlivePing: keepAliveComment}[tc.keepAlive]
	if !strings.Contains(string(body), tc.keepAlive) || strings.Contains(string(body), other) {
		t.Errorf("want keep-alives %q, and not %q, in the stream:\n%s", tc.keepAlive, other, body)
	}
	if row := e.waitLogs(1)[0]; row.Status != http.StatusOK || row.Attempts != 1 || row.Error != "" {
		t.Errorf("log row: status %d, attempts %d, error %q", row.Status, row.Attempts, row.Error)
	}
}

// rawRecorder is an SDK's HTTP transport that keeps a copy of the answer
// bodies the SDK reads.
type rawRecorder struct {
	mu  sync.Mutex
	raw bytes.Buffer
}

func (rr *rawRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.TeeReader(resp.Body, rr), resp.Body}
	return resp, nil
}

func (rr *rawRecorder) Write(p []byte) (int, error) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	return rr.raw.Write(p)
}

func (rr *rawRecorder) String() string {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	return rr.raw.String()
}

// TestSDKsReadKeepAlives: the official SDKs read a stream whose first
// event came after keep-alives in their protocol (short intervals here) as
// an ordinary one, translated or not.
func TestSDKsReadKeepAlives(t *testing.T) {
	opts := proxy.Options{StreamKeepAlive: 50 * time.Millisecond}
	const delay = 400 * time.Millisecond
	ctx := context.Background()
	for _, pool := range []string{"gpt", "claude"} {
		t.Run("openai chat from "+pool, func(t *testing.T) {
			e, _ := slowProtocolEnv(t, opts, delay)
			rr := &rawRecorder{}
			s := e.client(option.WithHTTPClient(&http.Client{Transport: rr})).Chat.Completions.NewStreaming(ctx, userMessage(pool))
			acc := openai.ChatCompletionAccumulator{}
			for s.Next() {
				acc.AddChunk(s.Current())
			}
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			if got := acc.Choices[0].Message.Content; got != "Hello from Claude" {
				t.Errorf("content %q", got)
			}
			mustContain(t, "the stream the SDK read", rr.String(), keepAliveComment)
		})
		t.Run("anthropic from "+pool, func(t *testing.T) {
			e, _ := slowProtocolEnv(t, opts, delay)
			rr := &rawRecorder{}
			client := anthropic.NewClient(aoption.WithBaseURL(e.gw.URL), aoption.WithAPIKey(e.key), aoption.WithMaxRetries(0),
				aoption.WithHTTPClient(&http.Client{Transport: rr}))
			s := client.Messages.NewStreaming(ctx, messageParams(pool, false))
			var m anthropic.Message
			for s.Next() {
				if err := m.Accumulate(s.Current()); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			if got := messageText(&m); got != "Hello from Claude" {
				t.Errorf("text %q", got)
			}
			mustContain(t, "the stream the SDK read", rr.String(), keepAlivePing)
		})
		t.Run("responses from "+pool, func(t *testing.T) {
			e, _ := slowProtocolEnv(t, opts, delay)
			rr := &rawRecorder{}
			p := responses.ResponseNewParams{Model: pool, Store: param.NewOpt(false),
				Input: responses.ResponseNewParamsInputUnion{OfString: param.NewOpt("hi")}}
			s := e.client(option.WithHTTPClient(&http.Client{Transport: rr})).Responses.NewStreaming(ctx, p)
			var text string
			for s.Next() {
				if ev := s.Current(); ev.Type == "response.completed" {
					text = ev.AsResponseCompleted().Response.OutputText()
				}
			}
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			if text != "Hello from Claude" {
				t.Errorf("text %q", text)
			}
			mustContain(t, "the stream the SDK read", rr.String(), keepAliveComment)
		})
	}
}

// dyingUpstream answers a stream's headers at once and, after a while,
// fails in the way asked for: it drops the connection, sends an error event
// in its protocol, or stays silent. It counts its requests.
type dyingUpstream struct {
	*httptest.Server
	hits atomic.Int32
}

func newDyingUpstream(t *testing.T, anthropicWire bool, how string, after time.Duration) *dyingUpstream {
	t.Helper()
	d := &dyingUpstream{}
	d.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) //nolint:errcheck // the request does not matter
		d.hits.Add(1)
		startStream(w)
		select {
		case <-time.After(after):
		case <-r.Context().Done():
			return
		}
		switch how {
		case "drop":
			panic(http.ErrAbortHandler)
		case "error event":
			if anthropicWire {
				io.WriteString(w, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n")
			} else {
				io.WriteString(w, "data: {\"error\":{\"message\":\"Overloaded\",\"type\":\"server_error\",\"code\":null}}\n\n")
			}
		case "silent":
			<-r.Context().Done()
		}
	}))
	t.Cleanup(d.Close)
	return d
}

// TestCommittedStreamFailsInItsProtocol: once keep-alives went out, a
// member that then fails (drops the connection, sends an error event, or
// misses its first event's deadline) is not retried although another member
// could serve; the caller's SDK gets an error in its protocol, and the
// failure counts against the member.
func TestCommittedStreamFailsInItsProtocol(t *testing.T) {
	for _, tc := range []struct {
		caller        string // chat, messages, responses
		anthropicWire bool
		how           string
		wantErr       string
	}{
		{"chat", false, "drop", "broke off the stream"},
		{"messages", true, "error event", "Overloaded"},
		{"messages", false, "silent", "broke off the stream"},
		{"chat", true, "drop", "broke off the stream"},
		{"responses", false, "silent", "broke off the stream"},
		{"responses", true, "error event", "Overloaded"},
	} {
		t.Run(fmt.Sprintf("%s caller, anthropic member %v, %s", tc.caller, tc.anthropicWire, tc.how), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, proxy.Options{StreamKeepAlive: 50 * time.Millisecond})
			up := newDyingUpstream(t, tc.anthropicWire, tc.how, 300*time.Millisecond)
			apiType, base := models.APITypeOpenAI, up.URL+"/v1"
			if tc.anthropicWire {
				apiType, base = models.APITypeAnthropic, up.URL
			}
			pid := e.addProvider("dying", apiType, base)
			// timeout_seconds 1: the silent member misses its first event's
			// deadline well after the stream was committed.
			for _, m := range []string{"a", "b"} {
				e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: m, ProviderID: pid, Weight: ptr(1.0),
					TimeoutSeconds: ptr(1), CooldownSeconds: ptr(0)})
			}
			e.reload()
			err := streamError(t, e, tc.caller)
			if err == "" {
				t.Fatal("the stream ended without an error: the caller would take it for a whole answer")
			}
			mustContain(t, "stream error", err, tc.wantErr)
			if hits := up.hits.Load(); hits != 1 {
				t.Fatalf("the upstream was called %d times: a committed stream was retried", hits)
			}
			row := e.waitLogs(1)[0]
			if row.Status != http.StatusOK || row.Attempts != 1 || row.Error == "" {
				t.Errorf("log row: status %d, attempts %d, error %q", row.Status, row.Attempts, row.Error)
			}
			// The upstream never answered: nothing to bill.
			if row.InputTokens != 0 || row.OutputTokens != 0 || row.CostUSD != 0 || row.UsageEstimated {
				t.Errorf("log row billed %d in, %d out, %v USD (estimated %v)", row.InputTokens, row.OutputTokens, row.CostUSD, row.UsageEstimated)
			}
			failed := 0
			for _, st := range e.proxy.Stats() {
				if st.LastError != "" {
					failed++
				}
			}
			if failed != 1 {
				t.Errorf("%d members have a failure recorded, want 1: %+v", failed, e.proxy.Stats())
			}
		})
	}
}

// streamError streams pool "p" with caller's official SDK and returns the
// error the stream ended with, "" if none.
func streamError(t *testing.T, e *env, caller string) string {
	t.Helper()
	ctx := context.Background()
	switch caller {
	case "chat":
		s := e.client().Chat.Completions.NewStreaming(ctx, userMessage("p"))
		for s.Next() {
		}
		if err := s.Err(); err != nil {
			return err.Error()
		}
	case "messages":
		client := e.anthropicClient()
		s := client.Messages.NewStreaming(ctx, messageParams("p", false))
		for s.Next() {
		}
		if err := s.Err(); err != nil {
			return err.Error()
		}
	default:
		// A Responses stream ends in an error event or response.failed,
		// both events the SDK hands over.
		p := responses.ResponseNewParams{Model: "p", Store: param.NewOpt(false),
			Input: responses.ResponseNewParamsInputUnion{OfString: param.NewOpt("hi")}}
		s := e.client().Responses.NewStreaming(ctx, p)
		msg := ""
		for s.Next() {
			switch ev := s.Current(); ev.Type {
			case "error":
				msg = ev.AsError().Message
			case "response.failed":
				msg = ev.AsResponseFailed().Response.Error.Message
			}
		}
		if err := s.Err(); err != nil {
			return err.Error()
		}
		return msg
	}
	return ""
}

// TestUncommittedStreamIsRetried: before the stream is committed (no
// keep-alive went out yet), a member that answers 200 and then fails (an
// error event, a dropped connection) is still retried on another member.
func TestUncommittedStreamIsRetried(t *testing.T) {
	for _, tc := range []struct {
		anthropicWire bool
		how           string
	}{{true, "error event"}, {false, "drop"}, {true, "drop"}} {
		t.Run(fmt.Sprintf("anthropic %v %s", tc.anthropicWire, tc.how), func(t *testing.T) {
			e, an := newProtocolEnv(t)
			up := newDyingUpstream(t, tc.anthropicWire, tc.how, 0)
			apiType, base, good := models.APITypeOpenAI, up.URL+"/v1", e.providerID
			if tc.anthropicWire {
				apiType, base = models.APITypeAnthropic, up.URL
				good = e.addProvider("anthropic-good", models.APITypeAnthropic, an.URL)
			}
			pid := e.addProvider("dying", apiType, base)
			e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: "dies", ProviderID: pid, Weight: ptr(1.0)})
			e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: "claude-up", ProviderID: good, Weight: ptr(0.0)})
			e.reload()
			resp, body := e.post("/v1/messages", e.key, strings.NewReader(messagesBody("p")))
			wantStatus(t, resp, body, http.StatusOK)
			if resp.Header.Get("X-Gateway-Attempts") != "2" || up.hits.Load() != 1 {
				t.Fatalf("attempts %s, dying member called %d times", resp.Header.Get("X-Gateway-Attempts"), up.hits.Load())
			}
			if got := sseText(t, body); got != "Hello from Claude" {
				t.Errorf("text %q", got)
			}
		})
	}
}

// TestSilentBeforeHeadersIsRetried: a member that sends no response headers
// within the header timeout failed, and another serves the stream.
func TestSilentBeforeHeadersIsRetried(t *testing.T) {
	e := newEnv(t, proxy.Options{StreamHeaderTimeout: 200 * time.Millisecond})
	mute := e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: "mute", Weight: ptr(1.0)})
	e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: "talks", Weight: ptr(0.0)})
	e.reload()
	e.up.setRespond(func(w http.ResponseWriter, r *http.Request, req upstreamRequest) {
		if req.Body["model"] == "mute" {
			<-r.Context().Done()
			return
		}
		writeFakeStream(w, req)
	})
	resp, body := e.post("/v1/chat/completions", e.key, strings.NewReader(chatBody("p", true)))
	wantStatus(t, resp, body, http.StatusOK)
	if resp.Header.Get("X-Gateway-Upstream-Model") != "talks" || resp.Header.Get("X-Gateway-Attempts") != "2" {
		t.Fatalf("served by %s after %s attempts", resp.Header.Get("X-Gateway-Upstream-Model"), resp.Header.Get("X-Gateway-Attempts"))
	}
	for _, st := range e.proxy.Stats() {
		if st.ID == mute && (st.Requests != 1 || !strings.Contains(st.LastError, "did not answer within 200ms")) {
			t.Errorf("the mute member's record: %+v", st)
		}
	}
}

// TestCallerLeavesDuringKeepAlives: a caller that hangs up while the
// stream is kept alive cancels the upstream request, is logged as 499 and
// is not counted against the member.
func TestCallerLeavesDuringKeepAlives(t *testing.T) {
	e := newEnv(t, proxy.Options{StreamKeepAlive: 50 * time.Millisecond})
	e.addDeployment(models.Deployment{PublicName: "p", UpstreamModel: "thinks"})
	e.reload()
	cancelled := make(chan struct{})
	e.up.setRespond(func(w http.ResponseWriter, r *http.Request, req upstreamRequest) {
		startStream(w)
		select {
		case <-r.Context().Done():
			close(cancelled)
		case <-time.After(10 * time.Second):
		}
	})
	got := streamUntil(t, e, e.key, "/v1/chat/completions", chatBody("p", true), "keep-alive")
	mustContain(t, "the stream before hanging up", got, ": keep-alive")
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream request was not cancelled when the caller left")
	}
	if row := e.waitLogs(1)[0]; row.Status != 499 || row.CostUSD != 0 {
		t.Errorf("log row: status %d, cost %v", row.Status, row.CostUSD)
	}
	for _, st := range e.proxy.Stats() {
		if st.Requests != 0 || st.LastError != "" {
			t.Errorf("the caller's leaving was counted against the member: %+v", st)
		}
	}
}
