package translate

import (
	"encoding/json"
	"fmt"
	"regexp"
	"testing"
)

// withoutMadeUpIDs shows the ids the Responses translators make up when an
// upstream sent none (rand.Text is 26 base-32 characters), and the item ids
// built from a made-up response id, as MADE-UP.
func withoutMadeUpIDs(out []byte, err error) ([]byte, error) {
	madeUp := regexp.MustCompile(`(resp_|call_|msg_|fc_|rs_)[A-Z2-7]{26}`)
	return madeUp.ReplaceAll(out, []byte("${1}MADE-UP")), err
}

// TestResponsesGoldenRequests: testdata/responses_requests holds Responses
// requests (.in.json) and their translations to chat (.chat.json,
// Request(Responses, Chat), model gpt-upstream, include usage) and to Anthropic
// (.messages.json, Request(Responses, Messages), model claude-upstream); a refused
// request's output is {"error": {"param", "message"}}.
func TestResponsesGoldenRequests(t *testing.T) {
	runGolden(t, "responses_requests", ".in.json", ".chat.json", func(in []byte) ([]byte, error) {
		return requestOutcome(Request(Responses, Chat, in, goldenGPT, Options{IncludeUsage: true}))
	})
	runGolden(t, "responses_requests", ".in.json", ".messages.json", func(in []byte) ([]byte, error) {
		return requestOutcome(Request(Responses, Messages, in, goldenClaude, Options{}))
	})
}

// TestResponsesGoldenAnswers: testdata/responses_answer_* hold an upstream
// answer and {"body": the Responses answer, "usage": the Usage returned}.
func TestResponsesGoldenAnswers(t *testing.T) {
	runGolden(t, "responses_answer_chat", ".in.json", ".out.json", func(in []byte) ([]byte, error) {
		return withoutMadeUpIDs(responseOutcome(answerAt(Chat, Responses, in, goldenCreated)))
	})
	runGolden(t, "responses_answer_messages", ".in.json", ".out.json", func(in []byte) ([]byte, error) {
		return withoutMadeUpIDs(responseOutcome(answerAt(Messages, Responses, in, goldenCreated)))
	})
}

// TestResponsesGoldenErrors: testdata/responses_errors hold {"status",
// "body"} (a string body is sent as its raw text) and Error(Responses) of it.
func TestResponsesGoldenErrors(t *testing.T) {
	runGolden(t, "responses_errors", ".in.json", ".out.json", func(in []byte) ([]byte, error) {
		var c struct {
			Status int             `json:"status"`
			Body   json.RawMessage `json:"body"`
		}
		if err := json.Unmarshal(in, &c); err != nil {
			return nil, err
		}
		body := []byte(c.Body)
		var text string
		if json.Unmarshal(c.Body, &text) == nil {
			body = []byte(text)
		}
		return Error(Responses, c.Status, body), nil
	})
}

// TestResponsesGoldenStreams: testdata/responses_stream_* hold an upstream
// SSE stream and the Responses stream the caller receives, fed event by
// event as the gateway will (see feedStream): a conversion error or an
// upstream that ends without its final event ends the stream with Error. A
// last comment line records the Usage the converter saw. Every output is
// also held to readResponsesStream.
func TestResponsesGoldenStreams(t *testing.T) {
	check := func(out []byte) ([]byte, error) {
		if _, err := readResponsesStream(out[:len(out)-len(lastLine(out))]); err != nil {
			return nil, fmt.Errorf("not a well-formed Responses stream: %v\n%s", err, out)
		}
		return withoutMadeUpIDs(out, nil)
	}
	runGolden(t, "responses_stream_chat", ".in.sse", ".out.sse", func(in []byte) ([]byte, error) {
		s := mustStream(Chat, Responses, Options{})
		setCreated(s, goldenCreated)
		return check(feedStream(t, in, s))
	})
	runGolden(t, "responses_stream_messages", ".in.sse", ".out.sse", func(in []byte) ([]byte, error) {
		s := mustStream(Messages, Responses, Options{})
		setCreated(s, goldenCreated)
		return check(feedStream(t, in, s))
	})
}

// lastLine gives the usage comment feedStream appends.
func lastLine(b []byte) []byte {
	for i := len(b) - 2; i >= 0; i-- {
		if b[i] == '\n' {
			return b[i+1:]
		}
	}
	return b
}
