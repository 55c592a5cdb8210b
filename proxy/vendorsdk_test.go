package proxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"cloud.google.com/go/auth/credentials"
	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/vertex"
	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/aws/smithy-go"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/azure"
	"golang.org/x/oauth2/google"
	"google.golang.org/genai"

	"gateway/proxy/upstreamtest"
)

// The vendor fakes driven by the vendors' own Go SDKs, not through the
// gateway: if the SDK's request passes the fake's checks and the SDK
// decodes the fake's answer, the fake speaks the vendor's wire format.

// bedrockSDK is bedrockruntime's client for the fake with static
// credentials (session token too) signed with secret.
func bedrockSDK(f *fakeVendor, secret string) *bedrockruntime.Client {
	creds := aws.Credentials{AccessKeyID: bedrockCreds.AccessKeyID, SecretAccessKey: secret, SessionToken: bedrockCreds.SessionToken, Source: "test"}
	return bedrockruntime.New(bedrockruntime.Options{
		Region:           bedrockCreds.Region,
		BaseEndpoint:     aws.String(f.URL),
		Credentials:      aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return creds, nil }),
		RetryMaxAttempts: 1,
	})
}

// bedrockAnswer is what a Converse call or a ConverseStream's events said.
type bedrockAnswer struct {
	text        string
	toolID      string
	toolName    string
	toolInput   map[string]any
	stop        types.StopReason
	in, out     int32
	streamEvent int
}

func bedrockConverse(t *testing.T, c *bedrockruntime.Client, in *bedrockruntime.ConverseInput) bedrockAnswer {
	t.Helper()
	out, err := c.Converse(context.Background(), in)
	if err != nil {
		t.Fatalf("Converse: %v", err)
	}
	var a bedrockAnswer
	msg, ok := out.Output.(*types.ConverseOutputMemberMessage)
	if !ok {
		t.Fatalf("output %T", out.Output)
	}
	for _, b := range msg.Value.Content {
		switch b := b.(type) {
		case *types.ContentBlockMemberText:
			a.text += b.Value
		case *types.ContentBlockMemberToolUse:
			a.toolID, a.toolName = aws.ToString(b.Value.ToolUseId), aws.ToString(b.Value.Name)
			if err := b.Value.Input.UnmarshalSmithyDocument(&a.toolInput); err != nil {
				t.Fatalf("tool input: %v", err)
			}
		}
	}
	a.stop = out.StopReason
	a.in, a.out = aws.ToInt32(out.Usage.InputTokens), aws.ToInt32(out.Usage.OutputTokens)
	return a
}

func bedrockConverseStream(t *testing.T, c *bedrockruntime.Client, in *bedrockruntime.ConverseInput) bedrockAnswer {
	t.Helper()
	out, err := c.ConverseStream(context.Background(), &bedrockruntime.ConverseStreamInput{
		ModelId: in.ModelId, Messages: in.Messages, System: in.System, ToolConfig: in.ToolConfig})
	if err != nil {
		t.Fatalf("ConverseStream: %v", err)
	}
	stream := out.GetStream()
	defer stream.Close()
	var a bedrockAnswer
	var input string
	for ev := range stream.Events() {
		a.streamEvent++
		switch ev := ev.(type) {
		case *types.ConverseStreamOutputMemberContentBlockStart:
			if tu, ok := ev.Value.Start.(*types.ContentBlockStartMemberToolUse); ok {
				a.toolID, a.toolName = aws.ToString(tu.Value.ToolUseId), aws.ToString(tu.Value.Name)
			}
		case *types.ConverseStreamOutputMemberContentBlockDelta:
			switch d := ev.Value.Delta.(type) {
			case *types.ContentBlockDeltaMemberText:
				a.text += d.Value
			case *types.ContentBlockDeltaMemberToolUse:
				input += aws.ToString(d.Value.Input)
			}
		case *types.ConverseStreamOutputMemberMessageStop:
			a.stop = ev.Value.StopReason
		case *types.ConverseStreamOutputMemberMetadata:
			a.in, a.out = aws.ToInt32(ev.Value.Usage.InputTokens), aws.ToInt32(ev.Value.Usage.OutputTokens)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	if input != "" {
		if err := json.Unmarshal([]byte(input), &a.toolInput); err != nil {
			t.Fatalf("streamed tool input %q: %v", input, err)
		}
	}
	return a
}

func weatherConverseInput() *bedrockruntime.ConverseInput {
	schema := document.NewLazyDocument(map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}})
	return &bedrockruntime.ConverseInput{
		ModelId: aws.String(bedrockModel),
		System:  []types.SystemContentBlock{&types.SystemContentBlockMemberText{Value: "You are terse."}},
		Messages: []types.Message{{Role: types.ConversationRoleUser,
			Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: "Weather in Paris?"}}}},
		ToolConfig: &types.ToolConfiguration{Tools: []types.Tool{&types.ToolMemberToolSpec{Value: types.ToolSpecification{
			Name: aws.String("get_weather"), InputSchema: &types.ToolInputSchemaMemberJson{Value: schema}}}}},
	}
}

// TestBedrockFakeWithSDK: bedrockruntime's Converse and ConverseStream,
// signed by the SDK with a session token, pass the fake's SigV4 check; the
// SDK decodes its JSON and its event stream: a tool call, the answer after
// the tool's result goes back under the call's id, usage.
func TestBedrockFakeWithSDK(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "Converse", true: "ConverseStream"}[stream], func(t *testing.T) {
			f := newFakeVendor(t, "bedrock")
			c := bedrockSDK(f, bedrockCreds.SecretAccessKey)
			call := bedrockConverse
			if stream {
				call = bedrockConverseStream
			}
			in := weatherConverseInput()
			first := call(t, c, in)
			if first.toolID != "tooluse_fake1" || first.toolName != "get_weather" || first.toolInput["city"] != "Paris" || first.stop != types.StopReasonToolUse {
				t.Fatalf("no tool call: %+v", first)
			}
			in.Messages = append(in.Messages,
				types.Message{Role: types.ConversationRoleAssistant, Content: []types.ContentBlock{&types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{
					ToolUseId: aws.String(first.toolID), Name: aws.String(first.toolName), Input: document.NewLazyDocument(first.toolInput)}}}},
				types.Message{Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberToolResult{Value: types.ToolResultBlock{
					ToolUseId: aws.String(first.toolID), Content: []types.ToolResultContentBlock{&types.ToolResultContentBlockMemberText{Value: "sunny"}}}}}})
			second := call(t, c, in)
			if second.text != "It is sunny in Paris" || second.stop != types.StopReasonEndTurn || second.in != 12 || second.out != 5 {
				t.Errorf("answer %+v", second)
			}
			if stream && second.streamEvent != 6 {
				t.Errorf("%d events, want 6", second.streamEvent)
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if len(f.reqs) != 2 {
				t.Fatalf("the fake got %d requests, want 2", len(f.reqs))
			}
			for _, r := range f.reqs {
				if !strings.Contains(r.Header.Get("Authorization"), "Credential="+bedrockCreds.AccessKeyID+"/") || r.Header.Get("X-Amz-Security-Token") != bedrockCreds.SessionToken {
					t.Errorf("request not signed with the session's credentials: %v", r.Header)
				}
			}
		})
	}
}

// TestBedrockFakeRefusalsWithSDK: a wrong secret gets the fake's 403
// InvalidSignatureException as the SDK's API error (AWS does not model
// it for bedrock-runtime: a generic one with its code); AccessDenied comes
// as the SDK's typed *types.AccessDeniedException.
func TestBedrockFakeRefusalsWithSDK(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "Converse", true: "ConverseStream"}[stream], func(t *testing.T) {
			f := newFakeVendor(t, "bedrock")
			in := weatherConverseInput()
			send := func(c *bedrockruntime.Client) error {
				if stream {
					out, err := c.ConverseStream(context.Background(), &bedrockruntime.ConverseStreamInput{ModelId: in.ModelId, Messages: in.Messages})
					if err == nil {
						out.GetStream().Close()
					}
					return err
				}
				_, err := c.Converse(context.Background(), in)
				return err
			}
			err := send(bedrockSDK(f, "another/secret+key"))
			var apiErr smithy.APIError
			var respErr *awshttp.ResponseError
			if !errors.As(err, &apiErr) || apiErr.ErrorCode() != "InvalidSignatureException" || !strings.Contains(apiErr.ErrorMessage(), "signature") {
				t.Errorf("wrong secret: %v", err)
			}
			if !errors.As(err, &respErr) || respErr.HTTPStatusCode() != http.StatusForbidden {
				t.Errorf("wrong secret: not a 403: %v", err)
			}
			f.queue(func(w http.ResponseWriter) {
				upstreamtest.WriteAWSError(w, 403, "AccessDeniedException", "You don't have access to the model with the specified model ID.")
			})
			err = send(bedrockSDK(f, bedrockCreds.SecretAccessKey))
			var denied *types.AccessDeniedException
			if !errors.As(err, &denied) || !strings.Contains(denied.ErrorMessage(), "access to the model") {
				t.Errorf("access denied: %v", err)
			}
		})
	}
}

// geminiSDK is genai's client for the fake: the Gemini API with its key,
// or Vertex AI with credentials from the fake's key file, whose token_uri
// is the fake's token endpoint; the base URL is the fake's either way.
func geminiSDK(t *testing.T, f *fakeVendor) *genai.Client {
	t.Helper()
	cfg := &genai.ClientConfig{Backend: genai.BackendGeminiAPI, APIKey: upstreamKey, HTTPOptions: genai.HTTPOptions{BaseURL: f.URL}}
	if f.kind == "vertex" {
		creds, err := credentials.DetectDefault(&credentials.DetectOptions{CredentialsJSON: []byte(f.google.KeyFile()),
			Scopes: []string{"https://www.googleapis.com/auth/cloud-platform"}})
		if err != nil {
			t.Fatal(err)
		}
		// The SDK's default for Vertex is v1beta1; the gateway (and so the
		// fake) speaks v1.
		cfg = &genai.ClientConfig{Backend: genai.BackendVertexAI, Project: vendorProject, Location: vendorLocation,
			Credentials: creds, HTTPOptions: genai.HTTPOptions{BaseURL: f.URL, APIVersion: "v1"}}
	}
	c, err := genai.NewClient(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// geminiGenerate calls generateContent, or streamGenerateContent and
// gathers its chunks into one answer: the parts in order, the last usage
// and finish reason.
func geminiGenerate(t *testing.T, c *genai.Client, contents []*genai.Content, cfg *genai.GenerateContentConfig, stream bool) (*genai.Content, *genai.GenerateContentResponse) {
	t.Helper()
	ctx := context.Background()
	if !stream {
		resp, err := c.Models.GenerateContent(ctx, "gemini-2.5-flash", contents, cfg)
		if err != nil {
			t.Fatalf("GenerateContent: %v", err)
		}
		return resp.Candidates[0].Content, resp
	}
	var last *genai.GenerateContentResponse
	answer := &genai.Content{Role: genai.RoleModel}
	chunks := 0
	for resp, err := range c.Models.GenerateContentStream(ctx, "gemini-2.5-flash", contents, cfg) {
		if err != nil {
			t.Fatalf("GenerateContentStream: %v", err)
		}
		chunks++
		answer.Parts = append(answer.Parts, resp.Candidates[0].Content.Parts...)
		last = resp
	}
	if chunks == 0 {
		t.Fatal("no chunk")
	}
	return answer, last
}

// TestGeminiFakeWithSDK: genai's GenerateContent and
// GenerateContentStream against the Gemini fake (its API key) and the
// Vertex fake (a bearer token the SDK's credentials fetched from the
// fake's token endpoint): a function call and its thoughtSignature, the
// answer once the function's response goes back with them, usage.
func TestGeminiFakeWithSDK(t *testing.T) {
	for _, kind := range []string{"gemini", "vertex"} {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s stream=%v", kind, stream), func(t *testing.T) {
				f := newFakeVendor(t, kind)
				c := geminiSDK(t, f)
				cfg := &genai.GenerateContentConfig{
					SystemInstruction: genai.NewContentFromText("You are terse.", genai.RoleUser),
					Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "get_weather",
						ParametersJsonSchema: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}}}},
				}
				contents := []*genai.Content{genai.NewContentFromText("Weather in Paris?", genai.RoleUser)}
				turn, resp := geminiGenerate(t, c, contents, cfg, stream)
				calls := resp.FunctionCalls()
				if len(calls) != 1 || calls[0].Name != "get_weather" || calls[0].Args["city"] != "Paris" || string(turn.Parts[0].ThoughtSignature) != "signature-1" {
					t.Fatalf("no function call with its signature: %+v", turn.Parts)
				}
				contents = append(contents, turn, genai.NewContentFromParts([]*genai.Part{
					genai.NewPartFromFunctionResponse("get_weather", map[string]any{"output": "sunny"})}, genai.RoleUser))
				turn, resp = geminiGenerate(t, c, contents, cfg, stream)
				var text string
				for _, p := range turn.Parts {
					text += p.Text
				}
				if text != "It is sunny in Paris" || resp.Candidates[0].FinishReason != genai.FinishReasonStop {
					t.Errorf("answer %q, finish %q", text, resp.Candidates[0].FinishReason)
				}
				if u := resp.UsageMetadata; u == nil || u.PromptTokenCount != 12 || u.CandidatesTokenCount != 5 || u.TotalTokenCount != 17 {
					t.Errorf("usage %+v", resp.UsageMetadata)
				}
				if kind == "vertex" && f.google.Fetches() != 1 {
					t.Errorf("%d tokens fetched, want 1", f.google.Fetches())
				}
			})
		}
	}
}

// TestGeminiFakeRefusalWithSDK: a wrong key gets the fake's 400
// API_KEY_INVALID as genai's APIError.
func TestGeminiFakeRefusalWithSDK(t *testing.T) {
	f := newFakeVendor(t, "gemini")
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{Backend: genai.BackendGeminiAPI, APIKey: "wrong-key",
		HTTPOptions: genai.HTTPOptions{BaseURL: f.URL}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Models.GenerateContent(context.Background(), "gemini-2.5-flash", genai.Text("hi"), nil)
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) || apiErr.Code != 400 || apiErr.Status != "INVALID_ARGUMENT" || !strings.Contains(apiErr.Message, "API key not valid") {
		t.Errorf("wrong key: %#v", err)
	}
}

// azureSDK is openai-go with its Azure options for the fake, plain HTTP
// allowed since the fake listens on loopback.
func azureSDK(f *fakeVendor, key string) openai.Client {
	return openai.NewClient(azure.WithEndpoint(f.URL, "2024-10-21"), azure.WithAPIKey(key), azure.WithUnsafeAllowHTTP())
}

// TestAzureFakeWithSDK: openai-go's Azure options (the deployment in the
// path, api-version, api-key) against the Azure fake: a tool call and the
// answer after it, streamed and not, the stream opening with Azure's
// chunk without choices.
func TestAzureFakeWithSDK(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			f := newFakeVendor(t, "azure")
			client := azureSDK(f, upstreamKey)
			ctx := context.Background()
			tool := openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "get_weather",
				Parameters: openai.FunctionParameters{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}})
			params := openai.ChatCompletionNewParams{Model: "gpt-4o-prod", Tools: []openai.ChatCompletionToolUnionParam{tool},
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in Paris?")}}
			send := func() *openai.ChatCompletion {
				t.Helper()
				if !stream {
					c, err := client.Chat.Completions.New(ctx, params)
					if err != nil {
						t.Fatal(err)
					}
					return c
				}
				s := client.Chat.Completions.NewStreaming(ctx, params)
				acc := openai.ChatCompletionAccumulator{}
				for s.Next() {
					acc.AddChunk(s.Current())
				}
				if err := s.Err(); err != nil {
					t.Fatal(err)
				}
				return &acc.ChatCompletion
			}
			first := send()
			calls := first.Choices[0].Message.ToolCalls
			if len(calls) != 1 || calls[0].ID != "call_1" || calls[0].Function.Arguments != `{"city":"Paris"}` {
				t.Fatalf("no tool call: %+v", first.Choices)
			}
			params.Messages = append(params.Messages, first.Choices[0].Message.ToParam(), openai.ToolMessage("sunny", calls[0].ID))
			second := send()
			if len(second.Choices) != 1 || second.Choices[0].Message.Content == "" || second.Usage.TotalTokens == 0 {
				t.Errorf("answer %+v", second)
			}
		})
	}
	f := newFakeVendor(t, "azure")
	wrong := azureSDK(f, "wrong")
	_, err := wrong.Chat.Completions.New(context.Background(),
		openai.ChatCompletionNewParams{Model: "gpt-4o-prod", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 401 {
		t.Errorf("wrong key: %v", err)
	}
}

// TestVertexClaudeFakeWithSDK: anthropic-sdk-go's Vertex option (the
// model and method in the path, anthropic_version in the body, a bearer
// token from the key file's token endpoint) against the Vertex fake's
// Claude models: a tool call and the answer after it, streamed and not.
func TestVertexClaudeFakeWithSDK(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			f := newFakeVendor(t, "vertex")
			ctx := context.Background()
			creds, err := google.CredentialsFromJSON(ctx, []byte(f.google.KeyFile()), "https://www.googleapis.com/auth/cloud-platform")
			if err != nil {
				t.Fatal(err)
			}
			client := anthropic.NewClient(vertex.WithCredentials(ctx, vendorLocation, vendorProject, creds), anthropicoption.WithBaseURL(f.URL))
			params := messageParams("claude-sonnet-4@20250514", true)
			send := func() *anthropic.Message {
				t.Helper()
				if !stream {
					m, err := client.Messages.New(ctx, params)
					if err != nil {
						t.Fatal(err)
					}
					return m
				}
				s := client.Messages.NewStreaming(ctx, params)
				var m anthropic.Message
				for s.Next() {
					if err := m.Accumulate(s.Current()); err != nil {
						t.Fatal(err)
					}
				}
				if err := s.Err(); err != nil {
					t.Fatal(err)
				}
				return &m
			}
			first := send()
			var id string
			for _, b := range first.Content {
				if b.Type == "tool_use" && b.Name == "get_weather" && strings.Contains(string(b.Input), "Paris") {
					id = b.ID
				}
			}
			if id == "" || first.StopReason != "tool_use" {
				t.Fatalf("no tool call: %+v", first)
			}
			params.Messages = append(params.Messages, first.ToParam(), anthropic.NewUserMessage(anthropic.NewToolResultBlock(id, "sunny", false)))
			second := send()
			if messageText(second) == "" || second.Usage.OutputTokens == 0 {
				t.Errorf("answer %+v", second)
			}
			if f.google.Fetches() != 1 {
				t.Errorf("%d tokens fetched, want 1", f.google.Fetches())
			}
		})
	}
}
