package proxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"gateway/proxy/upstreamerr"
)

// msgNoDeployments is the seed's wording for "nothing can serve this model";
// callers and tests match on it.
const msgNoDeployments = "no healthy deployments for this model"

// statusClientClosed is what the request log records when the caller went away
// before the answer (nginx's convention); nothing is written to the caller.
const statusClientClosed = 499

// errClientGone ends a request whose caller disconnected. It is never counted
// against the upstream member.
var errClientGone = errors.New("proxy: client disconnected")

// errUpstreamTimeout is the cancel cause of an upstream call that ran out of time.
var errUpstreamTimeout = errors.New("proxy: upstream timeout")

// apiError is a failure the caller sees, in OpenAI's error shape. Every failed
// request ends as one of these in writeError; cause is logged, never shown.
type apiError struct {
	Status  int
	Type    string
	Code    string
	Message string
	cause   error
	// retryAfter, when set, is sent as the Retry-After header.
	retryAfter time.Duration
}

func (e *apiError) Error() string {
	if e.cause != nil {
		return e.Message + ": " + e.cause.Error()
	}
	return e.Message
}

func (e *apiError) Unwrap() error { return e.cause }

// OpenAI's error types.
const (
	typeInvalidRequest = "invalid_request_error"
	typeAuthentication = "authentication_error"
	typePermission     = "permission_error"
	typeServer         = "server_error"
)

func errMissingKey() *apiError {
	return &apiError{http.StatusUnauthorized, typeAuthentication, "missing_api_key",
		"missing API key: send it as 'Authorization: Bearer sk-…' or in the x-api-key header", nil, 0}
}

func errInvalidKey(why string) *apiError {
	return &apiError{http.StatusUnauthorized, typeAuthentication, "invalid_api_key", why, nil, 0}
}

func errModelNotAllowed(model string) *apiError {
	return &apiError{http.StatusForbidden, typePermission, "model_not_allowed",
		fmt.Sprintf("this API key is not allowed to use the model %q", model), nil, 0}
}

func errBadRequest(code, message string) *apiError {
	return &apiError{http.StatusBadRequest, typeInvalidRequest, code, message, nil, 0}
}

func errBodyTooLarge(limit int64) *apiError {
	return &apiError{http.StatusRequestEntityTooLarge, typeInvalidRequest, "request_too_large",
		fmt.Sprintf("request body is larger than the gateway's limit of %d bytes", limit), nil, 0}
}

func errNoDeployments(model string) *apiError {
	return &apiError{http.StatusNotFound, typeInvalidRequest, "model_not_found",
		fmt.Sprintf("%s: %q", msgNoDeployments, model), nil, 0}
}

func errNotReady() *apiError {
	return &apiError{http.StatusServiceUnavailable, typeServer, "not_ready",
		"the gateway is starting: its routing table is not loaded yet", nil, 0}
}

func errUnknownURL(r *http.Request) *apiError {
	return &apiError{http.StatusNotFound, typeInvalidRequest, "unknown_url",
		fmt.Sprintf("invalid URL (%s %s)", r.Method, r.URL.Path), nil, 0}
}

func errMethodNotAllowed(r *http.Request) *apiError {
	return &apiError{http.StatusMethodNotAllowed, typeInvalidRequest, "method_not_allowed",
		fmt.Sprintf("method %s is not allowed on %s", r.Method, r.URL.Path), nil, 0}
}

func errProviderMisconfigured(p *provider) *apiError {
	return &apiError{http.StatusBadGateway, typeServer, "provider_misconfigured",
		fmt.Sprintf("upstream provider %q is misconfigured; an admin must fix it", p.name), p.err, 0}
}

func errUpstreamUnreachable(p *provider, cause error) *apiError {
	return &apiError{http.StatusBadGateway, typeServer, "upstream_unreachable",
		fmt.Sprintf("upstream provider %q could not be reached", p.name), cause, 0}
}

func errUpstreamTimedOut(p *provider, after time.Duration) *apiError {
	return &apiError{http.StatusGatewayTimeout, typeServer, "upstream_timeout",
		fmt.Sprintf("upstream provider %q did not answer within %s", p.name, after), errUpstreamTimeout, 0}
}

func errUpstreamStream(p *provider, cause error) *apiError {
	return &apiError{http.StatusBadGateway, typeServer, "upstream_stream_error",
		fmt.Sprintf("upstream provider %q broke off the stream", p.name), cause, 0}
}

func errProviderAuth(p *provider, status int) *apiError {
	return &apiError{http.StatusBadGateway, typeServer, "provider_auth_failed",
		fmt.Sprintf("upstream provider %q refused the gateway's credentials (%d); an admin must check its key", p.name, status), nil, 0}
}

func errUpstreamInvalid(p *provider, cause error) *apiError {
	return &apiError{http.StatusBadGateway, typeServer, "upstream_invalid_answer",
		fmt.Sprintf("upstream provider %q sent an answer the gateway could not read", p.name), cause, 0}
}

func errUnsupportedByProvider(p *provider, what string) *apiError {
	return &apiError{http.StatusNotImplemented, typeInvalidRequest, "not_supported",
		fmt.Sprintf("provider %q (%s API) does not offer %s", p.name, p.apiType, what), nil, 0}
}

func errContentFiltered() *apiError {
	return &apiError{http.StatusBadRequest, typeInvalidRequest, "content_filter",
		"the upstream filtered the content (finish_reason: content_filter)", nil, 0}
}

func errInternal(cause error) *apiError {
	return &apiError{http.StatusInternalServerError, typeServer, "internal_error",
		"internal gateway error", cause, 0}
}

// asAPIError maps any error to what the caller is shown; an unexpected one
// becomes a plain 500 so that internals never leak.
func asAPIError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	return errInternal(err)
}

// errorBody is OpenAI's error shape: {"error":{"message","type","param","code"}}.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    string  `json:"code"`
}

// body is e in protocol p's error shape.
func (e *apiError) body(p protocol) []byte {
	var v any = errorBody{Error: errorDetail{Message: e.Message, Type: e.Type, Code: e.Code}}
	if p == protoAnthropic {
		v = anthropicErrorBody{Type: "error", Error: anthropicErrorDetail{Type: upstreamerr.AnthropicType(e.Status), Message: e.Message}}
	}
	b, err := json.Marshal(v)
	if err != nil {
		// Marshalling a few strings cannot fail; keep the shape even if it did.
		return []byte(`{"error":{"message":"internal gateway error","type":"api_error"}}`)
	}
	return b
}

// anthropicErrorBody is Anthropic's error shape: {"type":"error","error":{"type","message"}}.
type anthropicErrorBody struct {
	Type  string               `json:"type"`
	Error anthropicErrorDetail `json:"error"`
}

type anthropicErrorDetail struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// writeError answers with e in protocol p's shape.
func writeError(w http.ResponseWriter, p protocol, e *apiError) {
	b := e.body(p)
	h := w.Header()
	if e.retryAfter > 0 {
		h.Set("Retry-After", strconv.FormatInt(int64(math.Ceil(e.retryAfter.Seconds())), 10))
	}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(e.Status)
	w.Write(b) //nolint:errcheck // the caller may be gone; nothing left to tell it
}

// streamErrorEvent is e as the final event of a stream that already started:
// the status line is gone. OpenAI's SDKs read an "error" member in a data
// event as the stream's failure; Anthropic's read an "error" event.
func streamErrorEvent(p protocol, e *apiError) []byte {
	b := e.body(p)
	if p == protoResponses {
		// The Responses API's error event: {"type":"error","code","message"}.
		b, _ = json.Marshal(struct {
			Type    string `json:"type"`
			Code    string `json:"code"`
			Message string `json:"message"`
		}{"error", e.Code, e.Message})
	}
	buf := make([]byte, 0, len(b)+24)
	if p != protoOpenAI {
		buf = append(buf, "event: error\n"...)
	}
	buf = append(buf, "data: "...)
	buf = append(buf, b...)
	return append(buf, "\n\n"...)
}
