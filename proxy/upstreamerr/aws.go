package upstreamerr

import (
	"net/http"
	"strings"
)

// AWS services, Bedrock among them, answer an error with a body that holds
// only {"message":"…"} and name its type apart: in the x-amzn-ErrorType
// header ("ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/"),
// in the body's __type in AWS's JSON protocols
// ("com.amazon.coral.validate#ValidationException"), and inside an event
// stream as an exception event's type ("throttlingException"). The type,
// not the status, says what the error means: Bedrock's ModelNotReadyException
// is a 429 that no cooldown helps, its ServiceQuotaExceededException a 400
// that is a rate limit.

// amznErrorType is the header AWS names an error's type in.
const amznErrorType = "X-Amzn-Errortype"

// awsType gives the bare exception name of any of AWS's spellings of an
// error type, its first letter upper-cased; "" for none.
func awsType(v string) string {
	v, _, _ = strings.Cut(v, ":")
	if i := strings.LastIndexByte(v, '#'); i >= 0 {
		v = v[i+1:]
	}
	v = strings.TrimSpace(v)
	if v == "" {
		return ""
	}
	return strings.ToUpper(v[:1]) + v[1:]
}

// withAWSType gives e typed and classified by an AWS error type, when e
// had no type of its own.
func withAWSType(e Error, typ string) Error {
	if e.Type != "" || awsType(typ) == "" {
		return e
	}
	e.Type = awsType(typ)
	if k, ok := awsKind(e); ok {
		e.Kind = k
	}
	return e
}

// awsKind classifies an AWS error by its type, as Bedrock Runtime documents
// its errors; false for a type it does not know, which keeps the kind its
// status and words give. A ValidationException is the caller's, unless its
// words say the prompt does not fit ("Input is too long for requested
// model", "prompt is too long: …") or the content was refused.
func awsKind(e Error) (Kind, bool) {
	switch e.Type {
	case "ThrottlingException", "ServiceQuotaExceededException":
		return RateLimit, true
	case "AccessDeniedException", "UnrecognizedClientException", "ExpiredTokenException",
		"InvalidSignatureException", "IncompleteSignatureException", "MissingAuthenticationTokenException":
		return Auth, true
	case "ModelNotReadyException", "ServiceUnavailableException", "InternalServerException",
		"ModelStreamErrorException", "ModelErrorException", "ModelTimeoutException", "ResourceNotFoundException":
		return Upstream, true
	case "ValidationException":
		switch {
		case saysContextWindow(e):
			return ContextWindow, true
		case saysContentPolicy(e):
			return ContentPolicy, true
		}
		return Caller, true
	}
	return "", false
}

// AWSEvent is an exception event of an AWS event stream (Bedrock's
// ConverseStream sends throttlingException, validationException,
// modelStreamErrorException, internalServerException and
// serviceUnavailableException), its type the event's, classified by that
// type (see awsKind): a throttlingException in a stream is a rate limit, as
// the same error before the stream would be.
func AWSEvent(eventType, message string) Error {
	return withAWSType(Event("", "", message), eventType)
}

// awsHeaderType is the error type an AWS answer names in its headers.
func awsHeaderType(h http.Header) string {
	if h == nil {
		return ""
	}
	return h.Get(amznErrorType)
}

// saysBedrockTooLong: Bedrock's words for a prompt that does not fit, in a
// ValidationException's message (msg is lower-cased). They are read from
// any body, as saysContextWindow's are: an error reshaped for the caller
// is read without its headers.
func saysBedrockTooLong(msg string) bool {
	return strings.Contains(msg, "input is too long for requested model") ||
		strings.Contains(msg, "too many input tokens")
}
