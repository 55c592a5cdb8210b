package translate

import (
	"encoding/json"
	"fmt"
	"testing"
)

// Fuzz targets of the Gemini and Converse translators, as in fuzz_test.go:
// no input may make them panic or hang; requests give valid JSON or a
// *RequestError; answers, when read, give the caller's answer object;
// streams, fed event by event and ended with Finish or Error, must be
// well-formed streams of the caller's protocol.
//
//	go test -run '^$' -fuzz FuzzGeminiStream -fuzztime 30s ./proxy/translate

func FuzzGeminiRequest(f *testing.F) {
	addSeeds(f, "gemini/chat_to_gemini/*.in.json")
	addSeeds(f, "gemini/messages_to_gemini/*.in.json")
	addSeeds(f, "gemini/responses_to_gemini/*.in.json")
	addCallerRequestSeeds(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, write := range []func([]byte) ([]byte, error){requestFunc(Chat, Gemini), requestFunc(Messages, Gemini), requestFunc(Responses, Gemini)} {
			out, err := write(body)
			checkRequestOutcome(t, out, err)
		}
	})
}

func FuzzConverseRequest(f *testing.F) {
	addSeeds(f, "bedrock/requests/*.in.json")
	addCallerRequestSeeds(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, write := range []func([]byte) ([]byte, error){requestFunc(Chat, Converse), requestFunc(Messages, Converse), requestFunc(Responses, Converse)} {
			out, err := write(body)
			checkRequestOutcome(t, out, err)
		}
	})
}

// addCallerRequestSeeds adds the other translators' golden requests, each
// caller protocol's.
func addCallerRequestSeeds(f *testing.F) {
	f.Helper()
	addSeeds(f, "chat_to_messages/*.in.json")
	addSeeds(f, "messages_to_chat/*.in.json")
	addSeeds(f, "responses_requests/*.in.json")
}

func FuzzGeminiAnswer(f *testing.F) {
	addSeeds(f, "gemini/answer_*.json")
	f.Fuzz(func(t *testing.T, body []byte) {
		checkAnswers(t, body, answerFunc(Gemini, Chat), answerFunc(Gemini, Messages), answerFunc(Gemini, Responses))
	})
}

func FuzzConverseAnswer(f *testing.F) {
	addSeeds(f, "bedrock/answers/*.in.json")
	f.Fuzz(func(t *testing.T, body []byte) {
		checkAnswers(t, body, answerFunc(Converse, Chat), answerFunc(Converse, Messages), answerFunc(Converse, Responses))
	})
}

type answerTranslator func([]byte) ([]byte, Usage, error)

// checkAnswers: each translator either fails with no output or gives the
// answer object of its caller's protocol.
func checkAnswers(t *testing.T, body []byte, toChat, toMessages, toResponses answerTranslator) {
	t.Helper()
	for name, tc := range map[string]struct {
		translate answerTranslator
		shaped    func(out []byte) bool
	}{
		"chat": {toChat, func(out []byte) bool {
			var c struct {
				Object  string               `json:"object"`
				Choices []chatResponseChoice `json:"choices"`
				Usage   *chatUsage           `json:"usage"`
			}
			return json.Unmarshal(out, &c) == nil && c.Object == "chat.completion" && len(c.Choices) == 1 && c.Usage != nil
		}},
		"messages": {toMessages, func(out []byte) bool {
			var m struct {
				messagesResponse
				Role string `json:"role"`
			}
			return json.Unmarshal(out, &m) == nil && m.Type == "message" && m.Role == "assistant" && m.Content != nil
		}},
		"responses": {toResponses, func(out []byte) bool {
			var r responsesFinalIn
			return json.Unmarshal(out, &r) == nil && r.Object == "response" && r.Output != nil && r.Usage != nil
		}},
	} {
		out, _, err := tc.translate(body)
		switch {
		case err != nil && out != nil:
			t.Fatalf("to %s: output %q beside the error %v", name, out, err)
		case err == nil && !tc.shaped(out):
			t.Fatalf("to %s: not the caller's answer: %q", name, out)
		}
	}
}

func FuzzGeminiStream(f *testing.F) {
	addSeeds(f, "gemini/stream_*.sse")
	f.Fuzz(func(t *testing.T, stream []byte) {
		checkStreams(t, stream, func() streamConverter { return mustStream(Gemini, Chat, Options{IncludeUsage: true}) },
			func() streamConverter { return mustStream(Gemini, Messages, Options{InputEstimate: goldenEstimate}) },
			func() streamConverter { return mustStream(Gemini, Responses, Options{}) })
	})
}

func FuzzConverseStream(f *testing.F) {
	addSeeds(f, "bedrock/streams/*.in.sse")
	f.Fuzz(func(t *testing.T, stream []byte) {
		checkStreams(t, stream, func() streamConverter { return mustStream(Converse, Chat, Options{IncludeUsage: true}) },
			func() streamConverter { return mustStream(Converse, Messages, Options{InputEstimate: goldenEstimate}) },
			func() streamConverter { return mustStream(Converse, Responses, Options{}) })
	})
}

// checkStreams feeds stream to a converter into each caller's protocol,
// ended with Finish and, in another, with Error: every output must be a
// well-formed stream of that protocol.
func checkStreams(t *testing.T, stream []byte, toChat, toMessages, toResponses func() streamConverter) {
	t.Helper()
	for _, end := range []func(s streamConverter) []byte{finish, fail} {
		out := fuzzFeed(t, toChat(), stream, end)
		if _, err := readChatStream(out); err != nil {
			t.Fatalf("to chat: %v\n--- output\n%s", err, out)
		}
		out = fuzzFeed(t, toMessages(), stream, end)
		if _, err := readMessagesStream(out); err != nil {
			t.Fatalf("to messages: %v\n--- output\n%s", err, out)
		}
		out = fuzzFeed(t, toResponses(), stream, end)
		if _, err := readResponsesStream(out); err != nil {
			t.Fatalf("to responses: %v\n--- output\n%s", err, out)
		}
	}
}

// The structured targets, as in fuzz_ops_test.go: each fuzzed byte picks a
// well-formed upstream event, text gives its strings, so the readers see
// every order of valid events (deltas of a kind their block is not,
// blocks stopped twice, usage before the start, events after the end).

func FuzzConverseStreamOps(f *testing.F) {
	f.Add([]byte{0, 1, 1, 5, 6, 7}, "Hello")
	f.Add([]byte{0, 3, 4, 2, 12, 14, 15, 16, 7}, `{"a":`)
	f.Add([]byte{0, 8, 9, 1, 15, 1, 5, 26, 7}, "x")
	f.Fuzz(func(t *testing.T, ops []byte, text string) {
		var stream []byte
		for _, op := range ops {
			name, data := converseOp(op, text)
			stream = fmt.Appendf(stream, "event: %s\ndata: %s\n\n", name, data)
		}
		checkStreams(t, stream, func() streamConverter { return mustStream(Converse, Chat, Options{IncludeUsage: true}) },
			func() streamConverter { return mustStream(Converse, Messages, Options{InputEstimate: goldenEstimate}) },
			func() streamConverter { return mustStream(Converse, Responses, Options{}) })
	})
}

// converseOp makes the ConverseStream event that op stands for: op%10 the
// kind, op/10%4 the block index (or the variant).
func converseOp(op byte, text string) (string, []byte) {
	kind, i := op%10, int(op/10)%4
	str, _ := json.Marshal(text)
	switch kind {
	case 0:
		return "messageStart", []byte(`{"role":"assistant","p":"ab"}`)
	case 1:
		return "contentBlockDelta", fmt.Appendf(nil, `{"contentBlockIndex":%d,"delta":{"text":%s},"p":"a"}`, i, str)
	case 2:
		return "contentBlockStart", fmt.Appendf(nil, `{"contentBlockIndex":%d,"start":{"toolUse":{"toolUseId":"tooluse_%d","name":%s}}}`, i, i, str)
	case 3:
		return "contentBlockDelta", fmt.Appendf(nil, `{"contentBlockIndex":%d,"delta":{"reasoningContent":{"text":%s}}}`, i, str)
	case 4:
		return "contentBlockDelta", fmt.Appendf(nil, `{"contentBlockIndex":%d,"delta":{"toolUse":{"input":%s}}}`, i, str)
	case 5:
		return "contentBlockStop", fmt.Appendf(nil, `{"contentBlockIndex":%d}`, i)
	case 6:
		stop := [...]string{"end_turn", "tool_use", "max_tokens", "guardrail_intervened"}[i]
		return "messageStop", fmt.Appendf(nil, `{"stopReason":%q}`, stop)
	case 7:
		return "metadata", fmt.Appendf(nil, `{"usage":{"inputTokens":12,"outputTokens":%d,"totalTokens":%d,"cacheReadInputTokens":%d},"metrics":{"latencyMs":42}}`, i, 12+i, i)
	case 8:
		variant := [...]string{`{"signature":"c2ln"}`, `{"redactedContent":"cmVk"}`, `{"text":` + string(str) + `,"signature":"c2ln"}`, `{}`}[i]
		return "contentBlockDelta", fmt.Appendf(nil, `{"contentBlockIndex":%d,"delta":{"reasoningContent":%s}}`, i, variant)
	}
	exception := [...]string{"throttlingException", "validationException", "modelStreamErrorException", "internalServerException"}[i]
	return exception, fmt.Appendf(nil, `{"message":%s}`, str)
}

func FuzzGeminiStreamOps(f *testing.F) {
	f.Add([]byte{0, 1, 7}, "Hello")
	f.Add([]byte{2, 0, 3, 13, 17}, "x")
	f.Add([]byte{5, 0, 6, 8}, `{"a":`)
	f.Fuzz(func(t *testing.T, ops []byte, text string) {
		var stream []byte
		for _, op := range ops {
			stream = fmt.Appendf(stream, "data: %s\r\n\r\n", geminiOp(op, text))
		}
		checkStreams(t, stream, func() streamConverter { return mustStream(Gemini, Chat, Options{IncludeUsage: true}) },
			func() streamConverter { return mustStream(Gemini, Messages, Options{InputEstimate: goldenEstimate}) },
			func() streamConverter { return mustStream(Gemini, Responses, Options{}) })
	})
}

// geminiOp makes the Gemini chunk that op stands for: op%10 the kind of
// its part, op/10%4 its finish reason (or the variant).
func geminiOp(op byte, text string) []byte {
	kind, i := op%10, int(op/10)%4
	str, _ := json.Marshal(text)
	usage := fmt.Sprintf(`"usageMetadata":{"promptTokenCount":20,"candidatesTokenCount":%d,"thoughtsTokenCount":%d,"cachedContentTokenCount":%d,"totalTokenCount":40},"modelVersion":"gemini-2.5-flash","responseId":"resp-%d"`, i, i, i*5, i)
	parts := map[byte]string{
		0: `{"text":` + string(str) + `}`,
		1: `{"text":` + string(str) + `,"thought":true}`,
		2: `{"functionCall":{"name":` + string(str) + `,"args":{"city":"Paris"}},"thoughtSignature":"c2lnbmF0dXJl"}`,
		3: `{"functionCall":{"name":"f","args":{}}}`,
		4: `{"text":"","thoughtSignature":"c2ln"}`,
		5: `{"inlineData":{"mimeType":"image/png","data":"AAAA"}}`,
	}
	part, ok := parts[kind]
	finish := ""
	if kind == 7 || kind == 8 {
		finish = `,"finishReason":"` + [...]string{"STOP", "MAX_TOKENS", "SAFETY", "MALFORMED_FUNCTION_CALL"}[i] + `"`
	}
	switch {
	case kind == 6:
		return fmt.Appendf(nil, `{"promptFeedback":{"blockReason":"SAFETY"},%s}`, usage)
	case kind == 8:
		return fmt.Appendf(nil, `{"candidates":[{"content":{"role":"model","parts":[]},"index":0%s}],%s}`, finish, usage)
	case kind == 9:
		return fmt.Appendf(nil, `{"error":{"code":%d,"message":%s,"status":"RESOURCE_EXHAUSTED"}}`, [...]int{429, 500, 503, 400}[i], str)
	case !ok:
		part = `{"text":` + string(str) + `}`
	}
	return fmt.Appendf(nil, `{"candidates":[{"content":{"role":"model","parts":[%s]},"index":0%s}],%s}`, part, finish, usage)
}
