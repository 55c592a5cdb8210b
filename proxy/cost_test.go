package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"gateway/models"
	"gateway/proxy"
	"gateway/proxy/upstreamtest"
)

// The Claude Code turn of the cost issue, as each vendor reports it: 3
// input tokens, 2,000 written to the 1-hour cache, 40,000 read from the
// cache, 500 output. At claude-sonnet-4-5's list prices (input $3, output
// $15, 1-hour write $6, read $0.30 per million) the provider bills
// 3×3 + 2,000×6 + 40,000×0.3 + 500×15 = 31,509 micro-dollars.
const claudeCodeTurnCost = "0.031509"

const (
	ccAnthropicUsage = `"usage":{"input_tokens":3,"cache_creation_input_tokens":2000,"cache_read_input_tokens":40000,` +
		`"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":2000},"output_tokens":500}`
	ccConverseUsage = `"usage":{"inputTokens":3,"outputTokens":500,"totalTokens":42503,"cacheReadInputTokens":40000,` +
		`"cacheWriteInputTokens":2000,"cacheDetails":[{"ttl":"1h","inputTokens":2000}]}`
)

// claudeTurnUpstream answers every request with the turn's usage in the
// wire format of kind: "anthropic" (Messages, also Claude on Vertex AI's
// rawPredict and streamRawPredict) or "bedrock" (Converse, ConverseStream).
func claudeTurnUpstream(t *testing.T, kind string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		stream := body["stream"] == true || strings.HasSuffix(r.URL.Path, "/converse-stream")
		switch {
		case kind == "bedrock" && stream:
			s := upstreamtest.NewEventStreamWriter(w)
			for _, ev := range [][2]string{
				{"messageStart", `{"role":"assistant"}`},
				{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"Done."}}`},
				{"contentBlockStop", `{"contentBlockIndex":0}`},
				{"messageStop", `{"stopReason":"end_turn"}`},
				{"metadata", `{` + ccConverseUsage + `,"metrics":{"latencyMs":40}}`},
			} {
				if err := s.Event(ev[0], ev[1]); err != nil {
					t.Errorf("write event: %v", err)
				}
			}
		case kind == "bedrock":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"output":{"message":{"role":"assistant","content":[{"text":"Done."}]}},"stopReason":"end_turn",`+
				ccConverseUsage+`,"metrics":{"latencyMs":40}}`)
		case stream:
			w.Header().Set("Content-Type", "text/event-stream")
			start := strings.Replace(ccAnthropicUsage, `"output_tokens":500`, `"output_tokens":1`, 1)
			for _, ev := range []string{
				`event: message_start` + "\n" + `data: {"type":"message_start","message":{"id":"msg_cc","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,` + start + `}}`,
				`event: content_block_start` + "\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
				`event: content_block_delta` + "\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Done."}}`,
				`event: content_block_stop` + "\n" + `data: {"type":"content_block_stop","index":0}`,
				`event: message_delta` + "\n" + `data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":500}}`,
				`event: message_stop` + "\n" + `data: {"type":"message_stop"}`,
			} {
				io.WriteString(w, ev+"\n\n")
			}
		default:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"msg_cc","type":"message","role":"assistant","model":"claude-sonnet-4-5",`+
				`"content":[{"type":"text","text":"Done."}],"stop_reason":"end_turn","stop_sequence":null,`+ccAnthropicUsage+`}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// claudeMember adds a provider of the type serving Claude as the pool
// "claude", with no price typed: the catalog prices it.
func claudeMember(t *testing.T, e *env, providerType string) {
	t.Helper()
	kind := map[string]string{models.APITypeBedrock: "bedrock"}[providerType]
	up := claudeTurnUpstream(t, kind)
	p := &models.Provider{Name: providerType + "-claude", APIType: providerType, BaseURL: up.URL}
	secrets := models.ProviderSecrets{APIKey: upstreamKey}
	model := map[string]string{
		models.APITypeAnthropic: "claude-sonnet-4-5",
		// A global cross-region profile is billed at the model's price.
		models.APITypeBedrock: "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
		models.APITypeVertex:  "claude-sonnet-4-5@20250929",
	}[providerType]
	switch providerType {
	case models.APITypeAnthropic:
		p.BaseURL = up.URL + "/v1"
	case models.APITypeBedrock:
		p.Region, p.AWSAccessKeyID = bedrockCreds.Region, bedrockCreds.AccessKeyID
		secrets = models.ProviderSecrets{AWSSecretAccessKey: bedrockCreds.SecretAccessKey}
	case models.APITypeVertex:
		p.Project, p.Location = vendorProject, vendorLocation
		secrets = models.ProviderSecrets{CredentialsJSON: upstreamtest.NewGoogleTokenServer(t).KeyFile()}
	}
	if err := e.store.CreateProvider(context.Background(), p, secrets); err != nil {
		t.Fatal(err)
	}
	e.addDeployment(models.Deployment{PublicName: "claude", UpstreamModel: model, ProviderID: p.ID})
	e.reload()
}

// TestClaudeCodeTurnCost: the turn costs what the provider bills, with no
// price typed, through every front door and provider type that serves
// Claude, streamed or not: the cost header (or trailer), the row and its
// parts agree to the micro-dollar.
func TestClaudeCodeTurnCost(t *testing.T) {
	doors := []struct {
		path, body string
	}{
		{"/v1/messages", `{"model":"claude","max_tokens":1024,"messages":[{"role":"user","content":"Fix the bug."}]%s}`},
		{"/v1/chat/completions", `{"model":"claude","max_tokens":1024,"messages":[{"role":"user","content":"Fix the bug."}]%s}`},
		{"/v1/responses", `{"model":"claude","max_output_tokens":1024,"input":"Fix the bug."%s}`},
	}
	for _, providerType := range []string{models.APITypeAnthropic, models.APITypeBedrock, models.APITypeVertex} {
		for _, door := range doors {
			for _, stream := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s %s stream=%v", providerType, door.path, stream), func(t *testing.T) {
					e := newEnv(t, proxy.Options{})
					claudeMember(t, e, providerType)
					extra := ""
					if stream {
						extra = `,"stream":true`
						if door.path == "/v1/chat/completions" {
							extra += `,"stream_options":{"include_usage":true}`
						}
					}
					resp, body := e.post(door.path, e.key, strings.NewReader(fmt.Sprintf(door.body, extra)))
					wantStatus(t, resp, body, 200)
					got := resp.Header.Get("X-Gateway-Cost-Usd")
					if stream {
						got = resp.Trailer.Get("X-Gateway-Cost-Usd")
					}
					if got != claudeCodeTurnCost {
						t.Errorf("cost %q, want %s", got, claudeCodeTurnCost)
					}
					row := e.waitLogs(1)[0]
					if row.InputTokens != 42003 || row.CacheReadTokens != 40000 || row.CacheWriteTokens != 2000 ||
						row.CacheWrite1hTokens != 2000 || row.OutputTokens != 500 {
						t.Errorf("row tokens: in %d (read %d, written %d, 1h %d), out %d; want 42003 (40000, 2000, 2000), 500",
							row.InputTokens, row.CacheReadTokens, row.CacheWriteTokens, row.CacheWrite1hTokens, row.OutputTokens)
					}
					parts := [4]float64{row.CostInputUSD, row.CostCacheReadUSD, row.CostCacheWriteUSD, row.CostOutputUSD}
					if want := [4]float64{0.000009, 0.012, 0.012, 0.0075}; !near(parts, want) || math.Abs(row.CostUSD-0.031509) > 1e-12 ||
						row.PriceSource != models.PriceSourceCatalog {
						t.Errorf("row cost %v = %v from %q, want 0.031509 = %v from catalog", row.CostUSD, parts, row.PriceSource, want)
					}
				})
			}
		}
	}
}

func near(got, want [4]float64) bool {
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			return false
		}
	}
	return true
}

// TestClaudeCodeFixtureCost: Claude Code's own request, replayed as it
// sends it (its headers, 24 tools, streaming) to an anthropic member
// without a price, costs the turn's bill.
func TestClaudeCodeFixtureCost(t *testing.T) {
	raw, err := os.ReadFile("testdata/claude-code-request.json")
	if err != nil {
		t.Fatal(err)
	}
	var cc claudeCodeRequest
	if err := json.Unmarshal(raw, &cc); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, proxy.Options{})
	claudeMember(t, e, models.APITypeAnthropic)
	cc.Body["model"] = "claude"
	body, _ := json.Marshal(cc.Body)
	req, _ := http.NewRequest("POST", e.gw.URL+cc.Path+"?"+cc.Query, bytes.NewReader(body))
	for k, v := range cc.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("x-api-key", e.key)
	resp, got := e.do(req)
	wantStatus(t, resp, got, 200)
	if c := resp.Trailer.Get("X-Gateway-Cost-Usd") + resp.Header.Get("X-Gateway-Cost-Usd"); c != claudeCodeTurnCost {
		t.Errorf("cost %q, want %s", c, claudeCodeTurnCost)
	}
	if row := e.waitLogs(1)[0]; math.Abs(row.CostUSD-0.031509) > 1e-12 {
		t.Errorf("row cost %v, want 0.031509", row.CostUSD)
	}
}

// The other vendors' counting, one turn each: 1,200 prompt tokens of which
// 1,000 cached, 300 output. OpenAI counts the cached tokens in
// prompt_tokens and reasoning in completion_tokens; Gemini counts the
// cached content in promptTokenCount and the thoughts apart from the
// candidates.
const (
	otherChatUsage = `"usage":{"prompt_tokens":1200,"completion_tokens":300,"total_tokens":1500,` +
		`"prompt_tokens_details":{"cached_tokens":1000},"completion_tokens_details":{"reasoning_tokens":200}}`
	otherGeminiUsage = `"usageMetadata":{"promptTokenCount":1200,"cachedContentTokenCount":1000,"candidatesTokenCount":200,` +
		`"thoughtsTokenCount":100,"totalTokenCount":1500}`
)

// otherTurnUpstream answers in OpenAI's chat or Gemini's wire format.
func otherTurnUpstream(t *testing.T, wire string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		switch {
		case wire == "gemini" && strings.Contains(r.URL.Path, ":streamGenerateContent"):
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, `data: {"candidates":[{"content":{"parts":[{"text":"Do"}],"role":"model"},"index":0}]}`+"\n\n")
			io.WriteString(w, `data: {"candidates":[{"content":{"parts":[{"text":"ne."}],"role":"model"},"finishReason":"STOP","index":0}],`+otherGeminiUsage+`}`+"\n\n")
		case wire == "gemini":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"candidates":[{"content":{"parts":[{"text":"Done."}],"role":"model"},"finishReason":"STOP","index":0}],`+otherGeminiUsage+`}`)
		case body["stream"] == true:
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":"Done."},"finish_reason":null}]}`+"\n\n")
			io.WriteString(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n")
			io.WriteString(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[],`+otherChatUsage+`}`+"\n\n")
			io.WriteString(w, "data: [DONE]\n\n")
		default:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"c1","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,`+
				`"message":{"role":"assistant","content":"Done."},"finish_reason":"stop"}],`+otherChatUsage+`}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestOtherVendorsTurnCost: the same cost through every front door,
// streamed or not, translated or not, by each vendor's counting at the
// catalog's prices (hand-computed in micro-dollars).
func TestOtherVendorsTurnCost(t *testing.T) {
	for _, m := range []struct {
		providerType, model, wire, cost string
		cached, output                  int64
	}{
		// 200 × 2.5 + 1,000 × 1.25 + 300 × 10.
		{models.APITypeOpenAI, "gpt-4o", "openai", "0.00475", 1000, 300},
		// 200 × 0.3 + 1,000 × 0.03 + (200 + 100) × 2.5.
		{models.APITypeGemini, "gemini-2.5-flash", "gemini", "0.00084", 1000, 300},
	} {
		for _, path := range []string{"/v1/chat/completions", "/v1/messages", "/v1/responses"} {
			for _, stream := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s %s stream=%v", m.providerType, path, stream), func(t *testing.T) {
					e := newEnv(t, proxy.Options{})
					up := otherTurnUpstream(t, m.wire)
					base := up.URL
					if m.wire == "openai" {
						base += "/v1"
					}
					pid := e.addProvider(m.providerType+"-turn", m.providerType, base)
					e.addDeployment(models.Deployment{PublicName: "m", UpstreamModel: m.model, ProviderID: pid})
					e.reload()
					body := `{"model":"m","max_tokens":1024,"messages":[{"role":"user","content":"Fix the bug."}]%s}`
					if path == "/v1/responses" {
						body = `{"model":"m","input":"Fix the bug."%s}`
					}
					extra := ""
					if stream {
						extra = `,"stream":true`
					}
					resp, got := e.post(path, e.key, strings.NewReader(fmt.Sprintf(body, extra)))
					wantStatus(t, resp, got, 200)
					cost := resp.Header.Get("X-Gateway-Cost-Usd")
					if stream {
						cost = resp.Trailer.Get("X-Gateway-Cost-Usd")
					}
					row := e.waitLogs(1)[0]
					if cost != m.cost || row.InputTokens != 1200 || row.CacheReadTokens != m.cached || row.OutputTokens != m.output {
						t.Errorf("cost %q, row in %d (cached %d) out %d; want %s, 1200 (%d), %d",
							cost, row.InputTokens, row.CacheReadTokens, row.OutputTokens, m.cost, m.cached, m.output)
					}
				})
			}
		}
	}
}
