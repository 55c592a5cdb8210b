package translate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"
)

// RequestError says why a request cannot be translated: it is not valid
// JSON of the expected shape, or it asks for something the other protocol
// cannot do. The gateway answers it with HTTP 400 in the caller's shape.
type RequestError struct {
	Param   string // the offending field, e.g. "messages[2].content[0]"; may be empty
	Message string
}

func (e *RequestError) Error() string {
	if e.Param == "" {
		return "translate: " + e.Message
	}
	return "translate: " + e.Param + ": " + e.Message
}

func invalid(param, format string, args ...any) *RequestError {
	return &RequestError{Param: param, Message: fmt.Sprintf(format, args...)}
}

// StreamError is an error event the upstream sent inside a stream. The
// converter that returns it has already written the matching error event in
// the caller's protocol and ended its stream.
type StreamError struct {
	Type    string // the upstream's error type, e.g. "overloaded_error"
	Message string
}

func (e *StreamError) Error() string {
	return "translate: upstream stream error: " + e.Type + ": " + e.Message
}

// ErrorClass tells which fallback list an upstream error calls for; the
// names match the gateway's fallback kinds.
type ErrorClass int

const (
	ErrorGeneral       ErrorClass = iota // any other failure
	ErrorContextWindow                   // the prompt is too long for the model
	ErrorContentPolicy                   // the upstream refused the content
)

// String gives the gateway's name of the fallback kind.
func (c ErrorClass) String() string {
	switch c {
	case ErrorContextWindow:
		return "context_window"
	case ErrorContentPolicy:
		return "content_policy"
	default:
		return "general"
	}
}

// upstreamError is what can be read from an error body of either protocol,
// or of the many servers that imitate one of them loosely.
type upstreamError struct {
	Anthropic bool   // the body had Anthropic's shape: {"type":"error",…}
	Type      string // the protocol's error type, if any
	Code      string // OpenAI's code, if any (a number is kept as its text)
	Param     string
	Message   string
}

// readError reads an error body of any shape: Anthropic's
// {"type":"error","error":{"type","message"}}, OpenAI's
// {"error":{"message","type","param","code"}}, {"error":"text"},
// {"message":"text"}, or plain text. It never fails.
func readError(status int, body []byte) upstreamError {
	var env struct {
		Type    string          `json:"type"`
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
	}
	var out upstreamError
	if json.Unmarshal(body, &env) == nil {
		out = readErrorDetail(env.Error)
		out.Anthropic = env.Type == "error"
		out.Message = firstNonEmpty(out.Message, env.Message, env.Detail)
	} else {
		out.Message = plainText(body)
	}
	if out.Message == "" {
		out.Message = fmt.Sprintf("upstream answered %d %s", status, http.StatusText(status))
	}
	return out
}

// readErrorDetail reads the value of an "error" member: an object with
// type, message, code and param, or a bare string.
func readErrorDetail(raw json.RawMessage) upstreamError {
	var detail struct {
		Type    string          `json:"type"`
		Message string          `json:"message"`
		Code    json.RawMessage `json:"code"`
		Param   json.RawMessage `json:"param"`
	}
	if json.Unmarshal(raw, &detail) != nil {
		return upstreamError{Message: jsonScalar(raw)}
	}
	return upstreamError{Type: detail.Type, Message: detail.Message,
		Code: jsonScalar(detail.Code), Param: jsonScalar(detail.Param)}
}

// jsonScalar gives a JSON string's value, or a number's or bool's text; ""
// for null, objects and arrays.
func jsonScalar(raw json.RawMessage) string {
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

// plainText keeps a short, valid-UTF-8 excerpt of a non-JSON error body (an
// HTML page from a load balancer, say).
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

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// ErrorToChat turns an upstream error body (normally Anthropic's) into
// OpenAI's shape {"error":{"message","type","param","code"}}, keeping the
// message. The status stays the upstream's: OpenAI's SDKs pick their error
// class from it, and retry 429 and 5xx, 529 included. An Anthropic "prompt is
// too long" gets code context_length_exceeded, the code OpenAI clients test.
func ErrorToChat(status int, body []byte) []byte {
	e := readError(status, body)
	typ, code := chatErrorType(e.Type, status)
	if e.Code != "" && !isNumber(e.Code) { // a body already in OpenAI's shape keeps its code
		code = e.Code
	}
	if classify(status, e) == ErrorContextWindow {
		typ, code = "invalid_request_error", "context_length_exceeded"
	}
	return chatErrorBody(e.Message, typ, code, e.Param)
}

// chatErrorType maps an Anthropic error type (or, when it is not one, the
// status; or, without a status, server_error) to OpenAI's type and code.
func chatErrorType(anthropicType string, status int) (typ, code string) {
	if typ, code, ok := chatErrorTypeOf(anthropicType); ok {
		return typ, code
	}
	if typ, code, ok := chatErrorTypeOf(anthropicErrorType(status)); ok && status > 0 {
		return typ, code
	}
	return "server_error", ""
}

func chatErrorTypeOf(anthropicType string) (typ, code string, ok bool) {
	switch anthropicType {
	case "invalid_request_error":
		return "invalid_request_error", "", true
	case "authentication_error":
		return "authentication_error", "invalid_api_key", true
	case "billing_error":
		return "insufficient_quota", "insufficient_quota", true
	case "permission_error":
		return "permission_error", "permission_denied", true
	case "not_found_error":
		return "invalid_request_error", "not_found", true
	case "request_too_large":
		return "invalid_request_error", "request_too_large", true
	case "rate_limit_error":
		return "rate_limit_error", "rate_limit_exceeded", true
	case "api_error":
		return "server_error", "", true
	case "overloaded_error":
		return "server_error", "overloaded", true
	case "timeout_error":
		return "server_error", "timeout", true
	}
	return "", "", false
}

func isNumber(s string) bool {
	return s != "" && strings.Trim(s, "-0123456789.eE+") == ""
}

func chatErrorBody(message, typ, code, param string) []byte {
	var body struct {
		Error struct {
			Message string  `json:"message"`
			Type    string  `json:"type"`
			Param   *string `json:"param"`
			Code    *string `json:"code"`
		} `json:"error"`
	}
	body.Error.Message, body.Error.Type = message, typ
	if code != "" {
		body.Error.Code = &code
	}
	if param != "" {
		body.Error.Param = &param
	}
	return mustMarshal(body)
}

// ErrorToMessages turns an upstream error body (normally OpenAI's) into
// Anthropic's shape {"type":"error","error":{"type","message"}}, keeping the
// message. The type follows the status as Anthropic documents it (400
// invalid_request_error, 401 authentication_error, 402 billing_error, 403
// permission_error, 404 not_found_error, 413 request_too_large, 429
// rate_limit_error, 500 api_error, 503 and 529 overloaded_error, 504
// timeout_error). A context-window error's message is prefixed with "prompt
// is too long: ", the words Anthropic uses and Claude Code reacts to by
// compacting the conversation.
func ErrorToMessages(status int, body []byte) []byte {
	e := readError(status, body)
	typ := anthropicErrorType(status)
	if _, _, ok := chatErrorTypeOf(e.Type); ok && e.Anthropic { // a body already in Anthropic's shape keeps its type
		typ = e.Type
	}
	message := e.Message
	if classify(status, e) == ErrorContextWindow && !strings.Contains(strings.ToLower(message), "prompt is too long") {
		typ, message = "invalid_request_error", "prompt is too long: "+message
	}
	return messagesErrorBody(typ, message)
}

// anthropicErrorType gives Anthropic's error type for an HTTP status.
func anthropicErrorType(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusPaymentRequired:
		return "billing_error"
	case http.StatusForbidden:
		return "permission_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case http.StatusServiceUnavailable, 529:
		return "overloaded_error"
	case http.StatusGatewayTimeout:
		return "timeout_error"
	}
	if status >= 500 {
		return "api_error"
	}
	return "invalid_request_error"
}

func messagesErrorBody(typ, message string) []byte {
	return mustMarshal(anthropicErrorEvent{Type: "error", Error: anthropicErrorDetail{Type: typ, Message: message}})
}

type anthropicErrorEvent struct {
	Type  string               `json:"type"`
	Error anthropicErrorDetail `json:"error"`
}

// ClassifyError tells from an upstream error which fallback list applies:
// ErrorContextWindow for OpenAI's code context_length_exceeded or Anthropic's
// "prompt is too long" (and the other wordings servers use for it),
// ErrorContentPolicy for the codes content_policy_violation and
// content_filter, ErrorGeneral otherwise (and for any status below 400).
func ClassifyError(status int, body []byte) ErrorClass {
	if status < 400 {
		return ErrorGeneral
	}
	return classify(status, readError(status, body))
}

func classify(status int, e upstreamError) ErrorClass {
	if status < 400 {
		return ErrorGeneral
	}
	code := strings.ToLower(e.Code)
	switch code {
	case "context_length_exceeded":
		return ErrorContextWindow
	case "content_policy_violation", "content_filter":
		return ErrorContentPolicy
	}
	msg := strings.ToLower(e.Message)
	if saysContextWindow(msg) {
		return ErrorContextWindow
	}
	if strings.Contains(msg, "content_policy_violation") || strings.Contains(msg, "content management policy") {
		return ErrorContentPolicy
	}
	return ErrorGeneral
}

// saysContextWindow reports whether a lower-case message is one of the
// wordings of "the prompt does not fit". "max_tokens" alone is left out on
// purpose: asking for too many output tokens is the caller's error, not the
// model's window.
func saysContextWindow(msg string) bool {
	for _, p := range [...]string{
		"prompt is too long",              // Anthropic
		"context_length_exceeded",         // OpenAI's code, quoted in messages
		"maximum context length",          // OpenAI
		"context length exceeded",         // vLLM and others
		"exceed context limit",            // Anthropic: input length and max_tokens exceed context limit
		"exceeds the context window",      // Gemini-style servers
		"model_context_window_exceeded",   // Anthropic's stop reason, quoted
		"input is too long for the model", // Bedrock-style servers
	} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// mustMarshal marshals values built only from strings and numbers, which
// cannot fail; a failure is a bug in this package.
func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("translate: marshal %T: %v", v, err))
	}
	return b
}
