// Package upstreamerr reads an upstream's error answer, in whatever shape it
// comes (OpenAI's error JSON, Anthropic's, Google's, the loose imitations of
// other servers, plain text, an HTML page from a load balancer), into what it
// means for routing: a kind and a retry hint.
//
// It is the one classifier of upstream errors: the router (cooldowns,
// retries, fallbacks) and the reshaping of an error into the caller's
// protocol (package translate) both read errors here, always from the
// upstream's own bytes, so that the same upstream error routes the same way
// whether or not the call was translated. It imports only the standard
// library, so that both can use it without an import cycle.
package upstreamerr

import (
	"bytes"
	"cmp"
	"encoding/json"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// Kind is what an upstream error means for routing.
type Kind string

// The kinds. ContextWindow and ContentPolicy name the fallback lists they
// call for; Caller is an error no other member or pool would answer
// differently.
const (
	ContextWindow Kind = "context_window" // the prompt does not fit the model's window
	ContentPolicy Kind = "content_policy" // the upstream refused the content
	RateLimit     Kind = "rate_limit"     // 429: the member is to be set aside for a while
	Auth          Kind = "auth"           // 401, 403: the provider refused the gateway's key
	Caller        Kind = "caller"         // any other 4xx: the caller's bad request
	Upstream      Kind = "upstream"       // 5xx, 404, 408, or no status: the upstream failed
)

// Error is an upstream's error answer as read: its kind, the fields of its
// error object, and its retry-after.
type Error struct {
	Status    int
	Kind      Kind
	Anthropic bool   // the body had Anthropic's shape: {"type":"error",…}
	Type      string // the protocol's error type, if any (Google's status: RESOURCE_EXHAUSTED, …)
	Code      string // OpenAI's code, if any (a number is kept as its text)
	Param     string
	// Message is the body's own message, or a short excerpt of a body that
	// is not JSON; "" when it had neither.
	Message string
	// RetryAfter is the upstream's retry-after (Classify reads it from the
	// headers; Read from a Google body's RetryInfo, which a header
	// overrides), 0 when it sent none.
	RetryAfter time.Duration

	reason string // Google's ErrorInfo reason (API_KEY_INVALID), for the kind
}

// RetrySame reports whether the member that answered may do better if asked
// again after a wait: it was rate-limited, overloaded or failing. A prompt
// too long, content refused, a refused key or the caller's own bad request
// would only come back the same.
func (e Error) RetrySame() bool { return e.Kind == RateLimit || e.Kind == Upstream }

// Classify reads an upstream's error answer: its kind from the status and
// the body (or from an AWS error type in x-amzn-ErrorType, see awsKind),
// its retry-after from the headers.
func Classify(status int, h http.Header, body []byte, now time.Time) Error {
	e := withAWSType(Read(status, body), awsHeaderType(h))
	if d := RetryAfter(h, now); d > 0 {
		e.RetryAfter = d
	}
	return e
}

// Read reads an error body of any shape and classifies it by status and
// wording; it never fails. Status 0 is an error without one, such as an
// error event inside a stream.
func Read(status int, body []byte) Error {
	var env struct {
		Type    string          `json:"type"`
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
		AWSType string          `json:"__type"` // AWS's JSON protocols (see awsType)
	}
	var e Error
	body = firstElement(body)
	if json.Unmarshal(body, &env) == nil {
		e = readObject(env.Error)
		e.Anthropic = env.Type == "error"
		e.Message = cmp.Or(e.Message, env.Message, env.Detail)
	} else {
		e.Message = plainText(body)
	}
	e.Status = status
	e.Kind = kindOf(status, e)
	return withAWSType(e, env.AWSType)
}

// ReadObject reads the value of an "error" member, as a stream's error
// event carries it: an object with type, message, code and param, or a bare
// string. Without a status its kind is told by its wording alone.
func ReadObject(raw []byte) Error {
	e := readObject(raw)
	e.Kind = kindOf(0, e)
	return e
}

// Event is an error a stream's event carried, already read into its type,
// code and message, classified by its wording.
func Event(typ, code, message string) Error {
	e := Error{Type: typ, Code: code, Message: message}
	e.Kind = kindOf(0, e)
	return e
}

func readObject(raw []byte) Error {
	var detail struct {
		Type    string          `json:"type"`
		Message string          `json:"message"`
		Code    json.RawMessage `json:"code"`
		Param   json.RawMessage `json:"param"`
		Status  json.RawMessage `json:"status"`  // Google's
		Details json.RawMessage `json:"details"` // Google's
	}
	if json.Unmarshal(raw, &detail) != nil {
		return Error{Message: jsonScalar(raw)}
	}
	e := Error{Type: detail.Type, Message: detail.Message, Code: jsonScalar(detail.Code), Param: jsonScalar(detail.Param)}
	if status := jsonScalar(detail.Status); e.Type == "" && isGoogleStatus(status) {
		e.Type = status
		e.reason, e.RetryAfter = readGoogleDetails(detail.Details)
	}
	return e
}

// kindOf classifies by status first (design, Routing 5: what the status says
// decides the cooldown), then by the body's words: a 400 may be a prompt too
// long for this model, or content it refused, or the caller's mistake.
func kindOf(status int, e Error) Kind {
	switch {
	case status == http.StatusUnauthorized, status == http.StatusForbidden:
		return Auth
	case status == http.StatusTooManyRequests:
		return RateLimit
	case status == http.StatusNotFound, status == http.StatusRequestTimeout, status >= 500,
		status > 0 && status < 400: // not an error status: nothing to read in its words
		return Upstream
	case saysAuth(e): // Gemini refuses an invalid key with a 400
		return Auth
	case e.Type == "RESOURCE_EXHAUSTED": // Google's 429, as a stream's error event says it
		return RateLimit
	case saysContextWindow(e):
		return ContextWindow
	case saysContentPolicy(e):
		return ContentPolicy
	case status == 0:
		return Upstream // an error event in a stream: the upstream's failure
	}
	return Caller
}

// saysContextWindow: OpenAI's code, or one of the wordings servers use for
// "the prompt does not fit". "max_tokens" alone is left out on purpose:
// asking for too many output tokens is the caller's error, not the model's
// window.
func saysContextWindow(e Error) bool {
	if strings.EqualFold(e.Code, "context_length_exceeded") {
		return true
	}
	msg := strings.ToLower(e.Message)
	if saysBedrockTooLong(msg) {
		return true
	}
	for _, p := range [...]string{
		"prompt is too long",              // Anthropic
		"context_length_exceeded",         // OpenAI's code, quoted in messages
		"maximum context length",          // OpenAI
		"context length exceeded",         // vLLM and others
		"exceed context limit",            // Anthropic: input length and max_tokens exceed context limit
		"exceeds the context window",      // Gemini-style servers
		"model_context_window_exceeded",   // Anthropic's stop reason, quoted
		"input is too long for the model", // Bedrock-style servers
		// Gemini: "The input token count (…) exceeds the maximum number of tokens allowed (…)."
		"exceeds the maximum number of tokens",
	} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// saysContentPolicy: OpenAI's codes (Azure's content_filter among them) and
// type, or the wordings of a refusal: Azure's "content management policy",
// Anthropic's "Output blocked by content filtering policy".
func saysContentPolicy(e Error) bool {
	switch strings.ToLower(e.Code) {
	case "content_policy_violation", "content_filter":
		return true
	}
	if e.Type == "content_policy_violation" {
		return true
	}
	msg := strings.ToLower(e.Message)
	return strings.Contains(msg, "content_policy_violation") || strings.Contains(msg, "content management policy") ||
		strings.Contains(msg, "content filtering policy")
}

// jsonScalar gives a JSON string's value, or a number's or bool's text; ""
// for null, objects and arrays.
func jsonScalar(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9' || raw[0] == 't' || raw[0] == 'f' {
		return string(raw)
	}
	return ""
}

// plainText keeps a short, valid-UTF-8 excerpt of a body that is not JSON.
func plainText(body []byte) string {
	const limit = 512
	s := strings.TrimSpace(string(body))
	if len(s) > limit {
		s = s[:limit]
		for !utf8.ValidString(s) && len(s) > 0 { // do not cut a rune in half
			s = s[:len(s)-1]
		}
		s += "…"
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
