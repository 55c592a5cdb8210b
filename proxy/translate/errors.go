package translate

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"gateway/proxy/upstreamerr"
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

// readError reads an upstream error body with the gateway's one classifier
// of upstream errors; a body that says nothing gets a message naming the
// status.
func readError(status int, body []byte) upstreamerr.Error {
	e := upstreamerr.Read(status, body)
	if e.Message == "" {
		e.Message = fmt.Sprintf("upstream answered %d %s", status, http.StatusText(status))
	}
	return e
}

// errorToChat turns an upstream error body (normally Anthropic's) into
// OpenAI's shape {"error":{"message","type","param","code"}}, keeping the
// message. The status stays the upstream's: OpenAI's SDKs pick their error
// class from it, and retry 429 and 5xx, 529 included. An Anthropic "prompt is
// too long" gets code context_length_exceeded, the code OpenAI clients test.
func errorToChat(status int, body []byte) []byte {
	e := readError(status, body)
	typ, code := chatErrorType(e.Type, status)
	if e.Code != "" && !isNumber(e.Code) { // a body already in OpenAI's shape keeps its code
		code = e.Code
	}
	if e.Kind == upstreamerr.ContextWindow {
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
	if typ, code, ok := chatErrorTypeOf(upstreamerr.AnthropicType(status)); ok && status > 0 {
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

// errorToMessages turns an upstream error body (normally OpenAI's) into
// Anthropic's shape {"type":"error","error":{"type","message"}}, keeping the
// message. The type follows the status as Anthropic documents it (400
// invalid_request_error, 401 authentication_error, 402 billing_error, 403
// permission_error, 404 not_found_error, 413 request_too_large, 429
// rate_limit_error, 500 api_error, 503 and 529 overloaded_error, 504
// timeout_error). A context-window error's message is prefixed with "prompt
// is too long: ", the words Anthropic uses and Claude Code reacts to by
// compacting the conversation.
func errorToMessages(status int, body []byte) []byte {
	e := readError(status, body)
	typ := upstreamerr.AnthropicType(status)
	if _, _, ok := chatErrorTypeOf(e.Type); ok && e.Anthropic { // a body already in Anthropic's shape keeps its type
		typ = e.Type
	}
	message := e.Message
	if e.Kind == upstreamerr.ContextWindow && !strings.Contains(strings.ToLower(message), "prompt is too long") {
		typ, message = "invalid_request_error", "prompt is too long: "+message
	}
	return messagesErrorBody(typ, message)
}

func messagesErrorBody(typ, message string) []byte {
	return mustMarshal(anthropicErrorEvent{Type: "error", Error: anthropicErrorDetail{Type: typ, Message: message}})
}

type anthropicErrorEvent struct {
	Type  string               `json:"type"`
	Error anthropicErrorDetail `json:"error"`
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

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// errorToResponses turns an upstream error body of either protocol into the
// Responses API's error shape, which is OpenAI's
// {"error":{"message","type","param","code"}}: see errorToChat, whose
// mapping it is (Codex, like OpenAI's SDKs, reads the status and code:
// context_length_exceeded, insufficient_quota, rate_limit_exceeded).
func errorToResponses(status int, body []byte) []byte {
	return errorToChat(status, body)
}
