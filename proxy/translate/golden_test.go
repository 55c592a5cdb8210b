package translate

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"gateway/proxy/upstreamerr"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata from the code's output")

// The fixed parameters of every golden case.
const (
	goldenClaude   = "claude-upstream" // upstreamModel for Request(Chat, Messages)
	goldenGPT      = "gpt-upstream"    // upstreamModel for Request(Messages, Chat)
	goldenCreated  = 1700000000        // "created" of OpenAI answers and chunks
	goldenEstimate = 99                // the gateway's estimate of a prompt, for NewStream(Chat, Messages)
)

// TestGoldenRequests: testdata/chat_to_messages and messages_to_chat hold
// requests in one protocol (.in.json) and their translation (.out.json); a
// refused request's .out.json is {"error": {"param", "message"}}.
func TestGoldenRequests(t *testing.T) {
	runGolden(t, "chat_to_messages", ".in.json", ".out.json", func(in []byte) ([]byte, error) {
		return requestOutcome(Request(Chat, Messages, in, goldenClaude, Options{}))
	})
	runGolden(t, "messages_to_chat", ".in.json", ".out.json", func(in []byte) ([]byte, error) {
		return requestOutcome(Request(Messages, Chat, in, goldenGPT, Options{IncludeUsage: true}))
	})
}

func requestOutcome(out []byte, err error) ([]byte, error) {
	var re *RequestError
	if errors.As(err, &re) {
		return json.Marshal(map[string]any{"error": map[string]string{"param": re.Param, "message": re.Message}})
	}
	return out, err
}

// TestGoldenResponses: testdata/response_* hold an upstream answer and
// {"body": the caller's answer, "usage": the Usage returned}.
func TestGoldenResponses(t *testing.T) {
	runGolden(t, "response_messages_to_chat", ".in.json", ".out.json", func(in []byte) ([]byte, error) {
		return responseOutcome(answerAt(Messages, Chat, in, goldenCreated))
	})
	runGolden(t, "response_chat_to_messages", ".in.json", ".out.json", func(in []byte) ([]byte, error) {
		return responseOutcome(Answer(Chat, Messages, in))
	})
}

func responseOutcome(body []byte, u Usage, err error) ([]byte, error) {
	if err != nil {
		return json.Marshal(map[string]string{"error": err.Error()})
	}
	return json.Marshal(map[string]any{"body": json.RawMessage(body), "usage": u})
}

// TestGoldenErrors: testdata/errors hold {"status", "body"} (a string body
// is sent as its raw text), the kind the gateway's classifier reads in it,
// and its reshaping into either protocol.
func TestGoldenErrors(t *testing.T) {
	runGolden(t, "errors", ".in.json", ".out.json", func(in []byte) ([]byte, error) {
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
		return json.Marshal(map[string]any{
			"kind":        upstreamerr.Read(c.Status, body).Kind,
			"to_chat":     json.RawMessage(Error(Chat, c.Status, body)),
			"to_messages": json.RawMessage(Error(Messages, c.Status, body)),
		})
	})
}

// TestGoldenStreams: testdata/stream_* hold an upstream SSE stream and what
// the caller receives, fed event by event as the gateway will: a conversion
// error or an upstream that ends without its final event ends the stream
// with Error. A last comment line records the Usage the converter saw.
func TestGoldenStreams(t *testing.T) {
	runGolden(t, "stream_messages_to_chat", ".in.sse", ".out.sse", func(in []byte) ([]byte, error) {
		s := mustStream(Messages, Chat, Options{IncludeUsage: true})
		setCreated(s, goldenCreated)
		return feedStream(t, in, s), nil
	})
	runGolden(t, "stream_chat_to_messages", ".in.sse", ".out.sse", func(in []byte) ([]byte, error) {
		return feedStream(t, in, mustStream(Chat, Messages, Options{InputEstimate: goldenEstimate})), nil
	})
}

// setCreated fixes the "created" time a stream writes.
func setCreated(s *Stream, created int64) {
	switch w := s.writer.(type) {
	case *chatWriter:
		w.created = created
	case *responsesWriter:
		w.created = created
	}
}

// streamConverter is what a Stream offers.
type streamConverter interface {
	Event(name string, data []byte) ([]byte, error)
	Finish() []byte
	Error(err error) []byte
	Done() bool
	Usage() Usage
}

// feedStream plays the gateway: it feeds every event, stops at the first
// error, and ends a stream the upstream cut with Error.
func feedStream(t testing.TB, in []byte, s streamConverter) []byte {
	t.Helper()
	var out []byte
	for _, ev := range parseSSE(in) {
		b, err := s.Event(ev.name, ev.data)
		out = append(out, b...)
		var se *StreamError
		switch {
		case errors.As(err, &se):
			return appendUsage(out, s)
		case err != nil:
			out = append(out, s.Error(fmt.Errorf("the gateway could not read the upstream's stream"))...)
			return appendUsage(out, s)
		}
	}
	if !s.Done() {
		out = append(out, s.Error(errors.New("the upstream ended the stream early"))...)
	}
	return appendUsage(out, s)
}

func appendUsage(out []byte, s streamConverter) []byte {
	u, _ := json.Marshal(s.Usage())
	return fmt.Appendf(out, ": usage %s\n", u)
}

// sseEvent is one parsed SSE event.
type sseEvent struct {
	name string
	data []byte
}

// parseSSE splits an SSE stream into events: "event:" and "data:" lines
// (several data lines join with "\n"), blank lines between events, comment
// lines ignored.
func parseSSE(b []byte) []sseEvent {
	var events []sseEvent
	var cur sseEvent
	var hasData bool
	flush := func() {
		if hasData || cur.name != "" {
			events = append(events, cur)
		}
		cur, hasData = sseEvent{}, false
	}
	for line := range strings.Lines(strings.ReplaceAll(string(b), "\r\n", "\n")) {
		line = strings.TrimSuffix(line, "\n")
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch {
		case line == "":
			flush()
		case field == "event":
			cur.name = value
		case field == "data":
			if hasData {
				cur.data = append(cur.data, '\n')
			}
			cur.data, hasData = append(cur.data, value...), true
		}
	}
	flush()
	return events
}

// runGolden runs fn on every testdata/dir/*inExt and compares with the
// matching outExt file: as JSON values for .json, byte for byte otherwise.
func runGolden(t *testing.T, dir, inExt, outExt string, fn func([]byte) ([]byte, error)) {
	t.Helper()
	// The ids the package makes up when an upstream sent none (rand.Text
	// is 26 base-32 characters) show in goldens as MADE-UP.
	madeUpID := regexp.MustCompile(`(chatcmpl-|msg_|toolu_)[A-Z2-7]{26}\b`)
	inputs, err := filepath.Glob(filepath.Join("testdata", dir, "*"+inExt))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no golden inputs in testdata/%s (%v)", dir, err)
	}
	for _, inPath := range inputs {
		name := strings.TrimSuffix(filepath.Base(inPath), inExt)
		t.Run(dir+"/"+name, func(t *testing.T) {
			in, err := os.ReadFile(inPath)
			if err != nil {
				t.Fatal(err)
			}
			got, err := fn(in)
			if err != nil {
				t.Fatalf("translate: %v", err)
			}
			got = madeUpID.ReplaceAll(got, []byte("${1}MADE-UP"))
			outPath := strings.TrimSuffix(inPath, inExt) + outExt
			if *update {
				writeGolden(t, outPath, got)
				return
			}
			want, err := os.ReadFile(outPath)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			compareGolden(t, outPath, got, want)
		})
	}
}

func writeGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if strings.HasSuffix(path, ".json") {
		var buf bytes.Buffer
		if err := json.Indent(&buf, got, "", "  "); err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, got)
		}
		got = append(buf.Bytes(), '\n')
	}
	if err := os.WriteFile(path, got, 0o644); err != nil {
		t.Fatal(err)
	}
}

func compareGolden(t *testing.T, path string, got, want []byte) {
	t.Helper()
	if !strings.HasSuffix(path, ".json") {
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs\n--- got\n%s\n--- want\n%s", path, got, want)
		}
		return
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("%s is not JSON: %v", path, err)
	}
	if !reflect.DeepEqual(g, w) {
		pretty, _ := json.MarshalIndent(g, "", "  ")
		t.Errorf("%s differs\n--- got\n%s\n--- want\n%s", path, pretty, want)
	}
}
