package upstreamtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// AWSCredentials are what a fake AWS service knows of its one caller, to
// check SigV4 signatures as AWS does: by signing the request again with
// the same secret and comparing.
type AWSCredentials struct {
	AccessKeyID, SecretAccessKey, SessionToken, Region, Service string
}

// VerifySigV4 checks r's signature (r's body is body): the signed headers
// as r names them, the path as sent, the body's hash, the time it says.
// It refuses a request signed with another secret, for another region or
// service, or changed after signing.
func (c AWSCredentials) VerifySigV4(r *http.Request, body []byte) error {
	auth := r.Header.Get("Authorization")
	prefix := "AWS4-HMAC-SHA256 Credential=" + c.AccessKeyID + "/"
	if !strings.HasPrefix(auth, prefix) {
		return fmt.Errorf("not signed with access key %s: %q", c.AccessKeyID, auth)
	}
	_, signed, ok := strings.Cut(auth, "SignedHeaders=")
	if !ok {
		return errors.New("no SignedHeaders")
	}
	signed, _, _ = strings.Cut(signed, ",")
	at, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil {
		return fmt.Errorf("X-Amz-Date: %w", err)
	}
	if c.SessionToken != "" && r.Header.Get("X-Amz-Security-Token") != c.SessionToken {
		return errors.New("wrong or missing X-Amz-Security-Token")
	}
	u := *r.URL
	u.Scheme, u.Host = "http", r.Host
	again, err := http.NewRequest(r.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	again.URL.Path, again.URL.RawPath = r.URL.Path, r.URL.RawPath
	again.ContentLength = 0
	for _, name := range strings.Split(signed, ";") {
		switch name {
		case "host":
		case "content-length":
			again.ContentLength = int64(len(body))
		default:
			again.Header[http.CanonicalHeaderKey(name)] = r.Header.Values(name)
		}
	}
	sum := sha256.Sum256(body)
	creds := aws.Credentials{AccessKeyID: c.AccessKeyID, SecretAccessKey: c.SecretAccessKey, SessionToken: c.SessionToken}
	if err := v4.NewSigner().SignHTTP(r.Context(), creds, again, hex.EncodeToString(sum[:]), c.Service, c.Region, at); err != nil {
		return err
	}
	if got := again.Header.Get("Authorization"); got != auth {
		return fmt.Errorf("signature mismatch:\n got  %s\n want %s", auth, got)
	}
	return nil
}

// WriteAWSError answers as AWS's REST-JSON services do: the type in
// x-amzn-ErrorType, a body with the message alone.
func WriteAWSError(w http.ResponseWriter, status int, typ, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-Errortype", typ+":http://internal.amazon.com/coral/com.amazon.bedrock/")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"message": message}) //nolint:errcheck // the test sees a cut body
}

// EventStreamWriter writes AWS's binary event stream (application/
// vnd.amazon.eventstream), as Bedrock's ConverseStream sends it, with AWS's
// own encoder.
type EventStreamWriter struct {
	w   io.Writer
	enc *eventstream.Encoder
}

// NewEventStreamWriter starts the stream's answer on w.
func NewEventStreamWriter(w http.ResponseWriter) *EventStreamWriter {
	w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
	w.Header().Set("X-Amzn-Requestid", "fake-request-id")
	w.WriteHeader(http.StatusOK)
	return &EventStreamWriter{w: w, enc: eventstream.NewEncoder()}
}

// Event sends one event of type name whose payload is payload (JSON).
func (s *EventStreamWriter) Event(name, payload string) error {
	return s.message("event", ":event-type", name, payload)
}

// Exception sends an exception of type name ("throttlingException").
func (s *EventStreamWriter) Exception(name, message string) error {
	payload, _ := json.Marshal(map[string]string{"message": message})
	return s.message("exception", ":exception-type", name, string(payload))
}

func (s *EventStreamWriter) message(kind, typeHeader, name, payload string) error {
	var h eventstream.Headers
	h.Set(":message-type", eventstream.StringValue(kind))
	h.Set(typeHeader, eventstream.StringValue(name))
	h.Set(":content-type", eventstream.StringValue("application/json"))
	if err := s.enc.Encode(s.w, eventstream.Message{Headers: h, Payload: []byte(payload)}); err != nil {
		return err
	}
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
	return nil
}
