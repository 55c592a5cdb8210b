package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// awsEventStream reads AWS's binary event stream (Bedrock's ConverseStream,
// application/vnd.amazon.eventstream) with AWS's own decoder and gives it
// out as SSE, one event per message: its :event-type (an exception's
// :exception-type) as the event's name, its JSON payload as the data. The
// relay then reads it as it reads any upstream's SSE, event by event.
type awsEventStream struct {
	r       io.Reader
	dec     *eventstream.Decoder
	payload []byte // the decoder's buffer, reused
	out     []byte // the current event as SSE, reused
	pending []byte // what of out is still to be read
	err     error
}

// awsEventStreamContentType is the content type of an AWS event stream.
const awsEventStreamContentType = "application/vnd.amazon.eventstream"

func newAWSEventStream(r io.Reader) *awsEventStream {
	return &awsEventStream{r: r, dec: eventstream.NewDecoder()}
}

func (s *awsEventStream) Read(p []byte) (int, error) {
	for len(s.pending) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		s.err = s.next()
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

// next decodes one message into s.pending. A clean end between two
// messages is io.EOF; one inside a message, or a checksum that does not
// match, is an error.
func (s *awsEventStream) next() error {
	m, err := s.dec.Decode(s.r, s.payload)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return io.EOF
		}
		return fmt.Errorf("proxy: read the AWS event stream: %w", err)
	}
	s.payload = m.Payload[:0]
	name, data := awsEventOf(m)
	s.out = append(s.out[:0], "event: "...)
	s.out = append(s.out, name...)
	s.out = append(s.out, "\ndata: "...)
	if bytes.ContainsAny(data, "\r\n") {
		// SSE data is one line: compact JSON that spans several.
		var b bytes.Buffer
		if json.Compact(&b, data) == nil {
			data = b.Bytes()
		} else {
			data = bytes.ReplaceAll(bytes.ReplaceAll(data, []byte("\r"), nil), []byte("\n"), []byte(" "))
		}
	}
	s.out = append(s.out, data...)
	s.out = append(s.out, "\n\n"...)
	s.pending = s.out
	return nil
}

// awsEventOf is a message's name and data: an event's type and payload,
// an exception's type and payload ({"message":…}), or for an error message
// (which has no payload of its own) its code and message.
func awsEventOf(m eventstream.Message) (name string, data []byte) {
	header := func(name string) string {
		if v, ok := m.Headers.Get(name).(eventstream.StringValue); ok {
			return string(v)
		}
		return ""
	}
	switch header(":message-type") {
	case "exception":
		return header(":exception-type"), m.Payload
	case "error":
		code := header(":error-code")
		if !strings.HasSuffix(code, "Exception") {
			code += "Exception"
		}
		data, _ := json.Marshal(map[string]string{"message": header(":error-message")})
		return code, data
	}
	return header(":event-type"), m.Payload
}
