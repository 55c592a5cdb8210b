package translate

import (
	"bytes"
	"errors"
	"testing"
)

// mustStream is NewStream for a direction the tables cover.
func mustStream(from, to Protocol, o Options) *Stream {
	s, err := NewStream(from, to, o)
	if err != nil {
		panic(err)
	}
	return s
}

// requestFunc is Request in one direction as a function of the body, for
// the writers that name no model (Gemini, Converse).
func requestFunc(from, to Protocol) func([]byte) ([]byte, error) {
	return func(body []byte) ([]byte, error) { return Request(from, to, body, "", Options{}) }
}

// answerFunc is Answer in one direction as a function of the body.
func answerFunc(from, to Protocol) func([]byte) ([]byte, Usage, error) {
	return func(body []byte) ([]byte, Usage, error) { return Answer(from, to, body) }
}

// streamFunc makes streams in one direction with no options.
func streamFunc(from, to Protocol) func() *Stream {
	return func() *Stream { return mustStream(from, to, Options{}) }
}

// TestUnsupportedDirections: a direction with no reader or writer is
// refused with ErrUnsupported, naming what is missing.
func TestUnsupportedDirections(t *testing.T) {
	body := []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"request from gemini", errOf(Request(Gemini, Chat, body, "m", Options{})), "no gemini request reader"},
		{"request to responses", errOf(Request(Chat, Responses, body, "m", Options{})), "no responses request writer"},
		{"request from an unknown protocol", errOf(Request(Protocol(99), Chat, body, "m", Options{})), "no protocol 99 request reader"},
		{"answer from responses", errOf3(Answer(Responses, Chat, body)), "no responses answer reader"},
		{"answer to converse", errOf3(Answer(Chat, Converse, body)), "no converse answer writer"},
		{"stream from responses", errOf(NewStream(Responses, Chat, Options{})), "no responses stream reader"},
		{"stream to gemini", errOf(NewStream(Chat, Gemini, Options{})), "no gemini stream writer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !errors.Is(tc.err, ErrUnsupported) || tc.err.Error() != "translate: unsupported direction: "+tc.want {
				t.Errorf("got %v, want ErrUnsupported: %s", tc.err, tc.want)
			}
		})
	}
}

func errOf[T any](_ T, err error) error { return err }

func errOf3[T, U any](_ T, _ U, err error) error { return err }

// TestErrorWithoutWriter: a protocol with no error writer gets the body as
// it is.
func TestErrorWithoutWriter(t *testing.T) {
	body := []byte(`{"error":{"code":500,"message":"Internal error","status":"INTERNAL"}}`)
	if got := Error(Gemini, 500, body); !bytes.Equal(got, body) {
		t.Errorf("got %s, want the body as it is", got)
	}
}

func TestProtocolString(t *testing.T) {
	for p, want := range map[Protocol]string{Chat: "chat", Messages: "messages", Responses: "responses",
		Gemini: "gemini", Converse: "converse", Protocol(7): "protocol 7"} {
		if got := p.String(); got != want {
			t.Errorf("%d: got %q, want %q", p, got, want)
		}
	}
}

// TestEveryDirection: every caller's protocol reaches every upstream's
// and back, which is what the front doors (a request reader, an answer
// writer, a stream writer, an error writer) and the upstreams (a request
// writer, an answer reader, a stream reader) in protocols make.
func TestEveryDirection(t *testing.T) {
	callers := []Protocol{Chat, Messages, Responses}
	upstreams := []Protocol{Chat, Messages, Gemini, Converse}
	for _, c := range callers {
		s := sidesOf(c)
		if s.readRequest == nil || s.writeAnswer == nil || s.newStreamWriter == nil || s.writeError == nil {
			t.Errorf("%v: a caller's protocol needs a request reader, an answer writer, a stream writer and an error writer", c)
		}
		for _, u := range upstreams {
			if _, err := NewStream(u, c, Options{}); err != nil {
				t.Errorf("stream %v to %v: %v", u, c, err)
			}
			if _, err := Request(c, u, []byte(`{`), "m", Options{}); errors.Is(err, ErrUnsupported) {
				t.Errorf("request %v to %v: %v", c, u, err)
			}
			if _, _, err := Answer(u, c, []byte(`{`)); errors.Is(err, ErrUnsupported) {
				t.Errorf("answer %v to %v: %v", u, c, err)
			}
		}
	}
}
