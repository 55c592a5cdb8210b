package proxy_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"gateway/models"
)

// fakeResponsesAPI makes the fake OpenAI upstream also serve /v1/responses,
// as providers that support the Responses API do.
func fakeResponsesAPI(w http.ResponseWriter, r *http.Request, req upstreamRequest) {
	if r.URL.Path != "/v1/responses" {
		openAIWithTools(w, r, req)
		return
	}
	model := fmt.Sprint(req.Body["model"])
	final := fmt.Sprintf(`{"id":"resp_up","object":"response","created_at":1,"status":"completed","model":%q,"output":[{"type":"message","id":"msg_up","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hello from Responses","annotations":[]}]}],"usage":{"input_tokens":9,"input_tokens_details":{"cached_tokens":0},"output_tokens":4,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":13}}`, model)
	if req.Body["stream"] != true {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, final)
		return
	}
	startStream(w)
	for i, ev := range []struct{ name, data string }{
		{"response.created", `{"type":"response.created","sequence_number":0,"response":{"id":"resp_up","object":"response","created_at":1,"status":"in_progress","model":"` + model + `","output":[]}}`},
		{"response.output_text.delta", `{"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_up","output_index":0,"content_index":0,"delta":"Hello from Responses"}`},
		{"response.completed", `{"type":"response.completed","sequence_number":2,"response":` + final + `}`},
	} {
		_ = i
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev.name, ev.data)
	}
}

func responseParams(model string, input ...responses.ResponseInputItemUnionParam) responses.ResponseNewParams {
	p := responses.ResponseNewParams{Model: model, Instructions: param.NewOpt("You are terse."), Store: param.NewOpt(false),
		Tools: []responses.ToolUnionParam{responses.ToolParamOfFunction("get_weather",
			map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}, false)}}
	if len(input) == 0 {
		p.Input = responses.ResponseNewParamsInputUnion{OfString: param.NewOpt("What is the weather in Paris?")}
	} else {
		p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input}
	}
	return p
}

// TestResponsesCallerBothUpstreams: the official openai-go Responses client,
// streaming and not, with a tool round trip, against an openai-type member
// without the Responses API (translated to chat) and an anthropic-type one
// (translated to messages).
func TestResponsesCallerBothUpstreams(t *testing.T) {
	for _, pool := range []string{"gpt", "claude"} {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s stream=%v", pool, stream), func(t *testing.T) {
				e, _ := newProtocolEnv(t)
				client := e.client()
				ctx := context.Background()
				send := func(p responses.ResponseNewParams) *responses.Response {
					t.Helper()
					if !stream {
						r, err := client.Responses.New(ctx, p)
						if err != nil {
							t.Fatal(err)
						}
						return r
					}
					final, err := streamResponse(client, p)
					if err != nil {
						t.Fatal(err)
					}
					return final
				}
				first := send(responseParams(pool))
				var call responses.ResponseFunctionToolCall
				for _, item := range first.Output {
					if item.Type == "function_call" {
						call = item.AsFunctionCall()
					}
				}
				if call.Name != "get_weather" || call.CallID == "" || !strings.Contains(call.Arguments, "Paris") {
					t.Fatalf("no tool call in %+v", first.Output)
				}
				out := responses.ResponseInputItemParamOfFunctionCallOutput("sunny, 24 °C")
				out.OfFunctionCallOutput.CallID = param.NewOpt(call.CallID)
				second := send(responseParams(pool,
					responses.ResponseInputItemParamOfMessage("What is the weather in Paris?", responses.EasyInputMessageRoleUser),
					responses.ResponseInputItemParamOfFunctionCall(call.Arguments, call.CallID, call.Name),
					out))
				if got := second.OutputText(); got != "It is sunny in Paris" {
					t.Fatalf("second answer %q", got)
				}
				if second.Usage.OutputTokens == 0 {
					t.Fatalf("no usage: %+v", second.Usage)
				}
				logs := e.waitLogs(2)
				if logs[0].Endpoint != "/v1/responses" || logs[0].OutputTokens == 0 {
					t.Fatalf("log row %+v", logs[0])
				}
			})
		}
	}
}

// TestResponsesPassThrough: a provider that serves the Responses API itself
// gets the caller's request untouched but for the model.
func TestResponsesPassThrough(t *testing.T) {
	e, _ := newProtocolEnv(t)
	pid := e.addResponsesProvider()
	e.addDeployment(models.Deployment{PublicName: "native", UpstreamModel: "gpt-native", ProviderID: pid, Prices: models.PricesOf(0, 1e6)})
	e.reload()
	e.up.setRespond(fakeResponsesAPI)
	client := e.client()
	r, err := client.Responses.New(context.Background(), responseParams("native"))
	if err != nil {
		t.Fatal(err)
	}
	if r.OutputText() != "Hello from Responses" {
		t.Fatalf("answer %q", r.OutputText())
	}
	sent := e.up.last(t)
	if sent.Path != "/v1/responses" || sent.Body["model"] != "gpt-native" || sent.Body["instructions"] != "You are terse." {
		t.Fatalf("upstream got %s %v", sent.Path, sent.Body)
	}
	s := client.Responses.NewStreaming(context.Background(), responseParams("native"))
	var text string
	for s.Next() {
		if ev := s.Current(); ev.Type == "response.output_text.delta" {
			text += ev.AsResponseOutputTextDelta().Delta
		}
	}
	if s.Err() != nil || text != "Hello from Responses" {
		t.Fatalf("stream %q, %v", text, s.Err())
	}
	if logs := e.waitLogs(2); logs[0].OutputTokens != 4 || logs[0].CostUSD != 4 {
		t.Fatalf("stream usage and cost not read from response.completed: %+v", logs[0])
	}
}

// TestResponsesStatefulRefused: a previous_response_id this gateway never
// stored is a 404 that names it, and what needs other server-side state
// (background responses) a clear 400; neither reaches the member.
func TestResponsesStatefulRefused(t *testing.T) {
	e, _ := newProtocolEnv(t)
	p := responseParams("gpt")
	p.PreviousResponseID = param.NewOpt("resp_123")
	_, err := e.client().Responses.New(context.Background(), p, option.WithMaxRetries(0))
	var oerr *openai.Error
	if !errors.As(err, &oerr) || oerr.StatusCode != 404 || oerr.Code != "previous_response_not_found" || !strings.Contains(oerr.Message, "resp_123") {
		t.Fatalf("got %v", err)
	}
	p = responseParams("gpt")
	p.Background = param.NewOpt(true)
	_, err = e.client().Responses.New(context.Background(), p, option.WithMaxRetries(0))
	if !errors.As(err, &oerr) || oerr.StatusCode != 400 || !strings.Contains(oerr.Message, "background") {
		t.Fatalf("background: got %v", err)
	}
	if n := e.up.count(); n != 0 {
		t.Fatalf("the member was called %d times", n)
	}
}

// addResponsesProvider adds an openai-type provider on the fake upstream
// that serves the Responses API itself.
func (e *env) addResponsesProvider() int64 {
	e.t.Helper()
	pid := e.addProvider("openai-responses", models.APITypeOpenAI, e.up.URL+"/v1")
	if _, err := e.store.UpdateProvider(context.Background(), pid, models.ProviderSecrets{}, func(p *models.Provider) error {
		p.SupportsResponses = true
		return nil
	}); err != nil {
		e.t.Fatal(err)
	}
	return pid
}
