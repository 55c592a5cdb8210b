package translate

import (
	"encoding/json"
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
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, write := range []func([]byte) ([]byte, error){ChatToGemini, MessagesToGemini, ResponsesToGemini} {
			out, err := write(body)
			checkRequestOutcome(t, out, err)
		}
	})
}

func FuzzConverseRequest(f *testing.F) {
	addSeeds(f, "bedrock/requests/*.in.json")
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, write := range []func([]byte) ([]byte, error){ChatToConverse, MessagesToConverse, ResponsesToConverse} {
			out, err := write(body)
			checkRequestOutcome(t, out, err)
		}
	})
}

func FuzzGeminiAnswer(f *testing.F) {
	addSeeds(f, "gemini/answer_*.json")
	f.Fuzz(func(t *testing.T, body []byte) {
		checkAnswers(t, body, GeminiResponseToChat, GeminiResponseToMessages, GeminiResponseToResponses)
	})
}

func FuzzConverseAnswer(f *testing.F) {
	addSeeds(f, "bedrock/answers/*.in.json")
	f.Fuzz(func(t *testing.T, body []byte) {
		checkAnswers(t, body, ConverseResponseToChat, ConverseResponseToMessages, ConverseResponseToResponses)
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
				Usage   *chatAnswerUsage     `json:"usage"`
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
		checkStreams(t, stream, func() streamConverter { return NewGeminiToChatStream(true) },
			func() streamConverter { return NewGeminiToMessagesStream(goldenEstimate) },
			func() streamConverter { return NewGeminiToResponsesStream() })
	})
}

func FuzzConverseStream(f *testing.F) {
	addSeeds(f, "bedrock/streams/*.in.sse")
	f.Fuzz(func(t *testing.T, stream []byte) {
		checkStreams(t, stream, func() streamConverter { return NewConverseToChatStream(true) },
			func() streamConverter { return NewConverseToMessagesStream(goldenEstimate) },
			func() streamConverter { return NewConverseToResponsesStream() })
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
