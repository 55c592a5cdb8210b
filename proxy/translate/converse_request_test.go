package translate

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestGoldenConverseRequests: testdata/bedrock/requests holds requests of
// each caller's protocol (NAME.FROM.in.json) and the Converse request
// written for them (NAME.FROM.out.json), or the refusal. See
// testdata/bedrock/README.md.
func TestGoldenConverseRequests(t *testing.T) {
	for from, fn := range map[string]func([]byte) ([]byte, error){
		"chat": requestFunc(Chat, Converse), "messages": requestFunc(Messages, Converse), "responses": requestFunc(Responses, Converse),
	} {
		t.Run("from "+from, func(t *testing.T) {
			runGolden(t, "bedrock/requests", "."+from+".in.json", "."+from+".out.json", func(in []byte) ([]byte, error) {
				return requestOutcome(fn(in))
			})
		})
	}
}

func converseOf(t *testing.T, body []byte, err error) converseRequest {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	var req converseRequest
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("not a Converse request: %v\n%s", err, body)
	}
	return req
}

// blockKinds names a turn's blocks by their union member, in order.
func blockKinds(blocks []converseBlock) string {
	kinds := make([]string, len(blocks))
	for i, b := range blocks {
		switch {
		case b.Text != "":
			kinds[i] = "text"
		case b.Image != nil:
			kinds[i] = "image"
		case b.Document != nil:
			kinds[i] = "document"
		case b.ToolUse != nil:
			kinds[i] = "toolUse"
		case b.ToolResult != nil:
			kinds[i] = "toolResult"
		case b.ReasoningContent != nil && b.ReasoningContent.RedactedContent != "":
			kinds[i] = "redacted"
		case b.ReasoningContent != nil:
			kinds[i] = "reasoning"
		case b.CachePoint != nil:
			kinds[i] = "cachePoint"
		default:
			kinds[i] = "?"
		}
	}
	return strings.Join(kinds, " ")
}

// turns gives a request's turns as "role: kinds" lines.
func turns(req converseRequest) []string {
	out := []string{"system: " + blockKinds(req.System)}
	for _, m := range req.Messages {
		out = append(out, m.Role+": "+blockKinds(m.Content))
	}
	return out
}

// TestConverseRequestTurns: each caller's conversation becomes alternating
// turns of the right blocks, with cache points after the blocks marked
// for the cache, and reasoning only with thinking on.
func TestConverseRequestTurns(t *testing.T) {
	for _, tc := range []struct {
		file string
		to   func([]byte) ([]byte, error)
		want []string
	}{
		{"tools_images_parameters.chat", requestFunc(Chat, Converse), []string{
			"system: text text",
			"user: text image",
			"assistant: toolUse toolUse",
			"user: toolResult toolResult text",
		}},
		{"pdf_files_and_merged_turns.chat", requestFunc(Chat, Converse), []string{
			"system: ",
			"user: text document document document",
			"assistant: text text",
			"user: text",
		}},
		{"thinking_tool_round_trip.messages", requestFunc(Messages, Converse), []string{
			"system: text cachePoint",
			"user: text",
			"assistant: reasoning redacted text toolUse",
			"user: toolResult cachePoint text cachePoint",
		}},
		{"top_k_documents_no_thinking.messages", requestFunc(Messages, Converse), []string{
			"system: text",
			"user: text image cachePoint document text",
			"assistant: text",
			"user: text",
		}},
		{"thinking_off_forced_tool.messages", requestFunc(Messages, Converse), []string{
			"system: ",
			"user: text",
			"assistant: toolUse",
			"user: toolResult",
		}},
		{"claude_code.messages", requestFunc(Messages, Converse), []string{
			"system: text text cachePoint text cachePoint text",
			"user: text text cachePoint",
		}},
		{"codex_tool_round_trip.responses", requestFunc(Responses, Converse), []string{
			"system: text text",
			"user: text text",
			"assistant: text toolUse",
			"user: toolResult",
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			body, err := tc.to(readTestdata(t, filepath.Join("testdata/bedrock/requests", tc.file+".in.json")))
			if got := turns(converseOf(t, body, err)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("turns\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestConverseRequestParameters: what goes to inferenceConfig, toolConfig
// and additionalModelRequestFields, caller by caller.
func TestConverseRequestParameters(t *testing.T) {
	read := func(t *testing.T, file string, to func([]byte) ([]byte, error)) converseRequest {
		body, err := to(readTestdata(t, filepath.Join("testdata/bedrock/requests", file+".in.json")))
		return converseOf(t, body, err)
	}
	t.Run("chat", func(t *testing.T) {
		req := read(t, "tools_images_parameters.chat", requestFunc(Chat, Converse))
		c := req.InferenceConfig
		if c == nil || *c.MaxTokens != 512 || *c.Temperature != 1 || *c.TopP != 0.9 || !reflect.DeepEqual(c.StopSequences, []string{"\n\nUser:"}) {
			t.Errorf("inferenceConfig %+v: want maxTokens 512, temperature clamped to 1, topP 0.9, the stop", c)
		}
		if tc := req.ToolConfig; tc == nil || len(tc.Tools) != 2 || tc.ToolChoice == nil || tc.ToolChoice.Any == nil {
			t.Errorf("toolConfig %+v: want two tools and choice any", tc)
		} else if got := string(tc.Tools[1].ToolSpec.InputSchema.JSON); got != emptySchema {
			t.Errorf("a tool without parameters has schema %s", got)
		}
		if req.AdditionalModelRequestFields != nil {
			t.Errorf("additionalModelRequestFields %+v from an OpenAI caller", req.AdditionalModelRequestFields)
		}
		if o := req.OutputConfig; o == nil || o.TextFormat.Structure.JSONSchema.Name != "summary" ||
			!json.Valid([]byte(o.TextFormat.Structure.JSONSchema.Schema)) {
			t.Errorf("outputConfig %+v", o)
		}
		if call := req.Messages[1].Content[1].ToolUse; string(call.Input) != "{}" || call.ToolUseID != "call_02Time" {
			t.Errorf("a call without arguments went as %+v", call)
		}
	})
	t.Run("chat's top_k and reasoning effort", func(t *testing.T) {
		body, err := Request(Chat, Converse, []byte(`{"messages":[{"role":"user","content":"a"}],"top_k":5,"reasoning_effort":"high"}`), "", Options{})
		if req := converseOf(t, body, err); req.AdditionalModelRequestFields != nil || req.InferenceConfig != nil {
			t.Errorf("additionalModelRequestFields %+v, inferenceConfig %+v: want neither, only Claude takes them", req.AdditionalModelRequestFields, req.InferenceConfig)
		}
	})
	t.Run("messages with thinking", func(t *testing.T) {
		req := read(t, "thinking_tool_round_trip.messages", requestFunc(Messages, Converse))
		f := req.AdditionalModelRequestFields
		if f == nil || f.Thinking == nil || f.Thinking.Type != "enabled" || f.Thinking.BudgetTokens != 10000 || f.TopK != nil {
			t.Errorf("additionalModelRequestFields %+v: want thinking with the budget as given, no top_k beside it", f)
		}
		if c := req.InferenceConfig; c == nil || *c.MaxTokens != 16000 || c.Temperature != nil || c.TopP != nil {
			t.Errorf("inferenceConfig %+v: want max tokens, no temperature beside thinking", c)
		}
		r := req.Messages[1].Content[0].ReasoningContent.ReasoningText
		if r.Text != "The user wants the weather in Paris: call the tool." || r.Signature != "EqQBCkYIBxgCKkBzaWduYXR1cmU=" {
			t.Errorf("signed thinking went back as %+v", r)
		}
		tc := req.ToolConfig
		if tc == nil || len(tc.Tools) != 2 || tc.Tools[0].ToolSpec.Name != "get_weather" || tc.Tools[1].CachePoint == nil ||
			tc.ToolChoice == nil || tc.ToolChoice.Auto == nil {
			t.Errorf("toolConfig %+v: want get_weather, the server tool's cache point after it, choice auto", tc)
		}
	})
	t.Run("messages with a forced tool", func(t *testing.T) {
		req := read(t, "thinking_off_forced_tool.messages", requestFunc(Messages, Converse))
		if f := req.AdditionalModelRequestFields; f == nil || f.Thinking != nil || f.TopK == nil || *f.TopK != 10 {
			t.Errorf("additionalModelRequestFields %+v: want thinking off (Claude refuses it with a forced tool) and top_k", f)
		}
		if c := req.InferenceConfig; c == nil || c.Temperature == nil || *c.Temperature != 0.5 {
			t.Errorf("inferenceConfig %+v: want the temperature, thinking being off", c)
		}
		if tc := req.ToolConfig; tc == nil || tc.ToolChoice == nil || tc.ToolChoice.Tool == nil || tc.ToolChoice.Tool.Name != "record" {
			t.Errorf("toolConfig %+v", tc)
		}
	})
	t.Run("responses", func(t *testing.T) {
		req := read(t, "codex_tool_round_trip.responses", requestFunc(Responses, Converse))
		if req.AdditionalModelRequestFields != nil {
			t.Errorf("a reasoning effort became %+v: no model but Claude takes it", req.AdditionalModelRequestFields)
		}
		if tc := req.ToolConfig; tc == nil || len(tc.Tools) != 2 || tc.ToolChoice == nil || tc.ToolChoice.Auto == nil {
			t.Errorf("toolConfig %+v", tc)
		}
		if tr := req.Messages[2].Content[0].ToolResult; tr.ToolUseID != "toolu_01Shell" || tr.Content[0].Text != "total 8\nREADME.md\nmain.go" {
			t.Errorf("tool result %+v", tr)
		}
	})
	t.Run("tool_choice none", func(t *testing.T) {
		if req := read(t, "tool_choice_none_fresh.chat", requestFunc(Chat, Converse)); req.ToolConfig != nil {
			t.Errorf("toolConfig %+v: none without tool blocks leaves the tools out", req.ToolConfig)
		}
		req := read(t, "tool_choice_none_with_history.chat", requestFunc(Chat, Converse))
		if tc := req.ToolConfig; tc == nil || len(tc.Tools) != 1 || tc.ToolChoice != nil {
			t.Errorf("toolConfig %+v: with tool blocks Converse needs the tools, without a choice", tc)
		}
		if tr := req.Messages[2].Content[0].ToolResult; tr == nil || tr.Content == nil || len(tr.Content) != 0 {
			t.Errorf("an empty tool result went as %+v, want an empty content list", tr)
		}
	})
}

// TestConverseRequestRefusals: what Converse cannot take is refused with a
// *RequestError naming the field where the reader knows it.
func TestConverseRequestRefusals(t *testing.T) {
	for _, tc := range []struct {
		name      string
		to        func([]byte) ([]byte, error)
		body      string
		wantParam string
		wantIn    string
	}{
		{"chat image by URL", requestFunc(Chat, Converse), `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://example.com/a.png"}}]}]}`,
			"messages[0].content[0]", "not by URL"},
		{"chat svg", requestFunc(Chat, Converse), `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/svg+xml;base64,PHN2Zy8+"}}]}]}`,
			"messages[0].content[0]", "PNG, JPEG, GIF or WebP"},
		{"chat file not a PDF", requestFunc(Chat, Converse), `{"messages":[{"role":"user","content":[{"type":"file","file":{"file_data":"data:text/csv;base64,YSxi"}}]}]}`,
			"messages[0].content[0]", "PDF"},
		{"messages image by URL", requestFunc(Messages, Converse), `{"max_tokens":10,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"url","url":"https://example.com/a.png"}}]}]}`,
			"", "not by URL"},
		{"messages image by URL in a tool result", requestFunc(Messages, Converse), `{"max_tokens":10,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"image","source":{"type":"url","url":"https://example.com/a.png"}}]}]}]}`,
			"", "not by URL"},
		{"responses image by URL", requestFunc(Responses, Converse), `{"input":[{"role":"user","content":[{"type":"input_image","image_url":"https://example.com/a.png"}]}]}`,
			"input[0].content[0]", "not by URL"},
		{"what the reader refuses", requestFunc(Chat, Converse), `{"messages":[{"role":"user","content":"hi"}],"n":2}`, "n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.to([]byte(tc.body))
			var re *RequestError
			if !errors.As(err, &re) {
				t.Fatalf("err = %v, want a *RequestError", err)
			}
			if re.Param != tc.wantParam || !strings.Contains(re.Message, tc.wantIn) {
				t.Errorf("refused with param %q message %q, want param %q and %q in the message", re.Param, re.Message, tc.wantParam, tc.wantIn)
			}
		})
	}
}
