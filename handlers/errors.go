package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"gateway/models"
	"gateway/proxy"
)

// Errors of the admin side itself; the store's are models.Err*.
var (
	errUnauthenticated = errors.New("authentication required: send Authorization: Bearer <master key>, or sign in")
	errCSRF            = errors.New("missing or invalid CSRF token: reload the page and try again")
	errThrottled       = errors.New("too many failed sign-ins")
	errReload          = errors.New("the change was saved, but the routing table could not be rebuilt: see the gateway log")
	errLoginBusy       = errors.New("too many sign-ins at once")
	errNoRuntime       = errors.New("this admin listener has no proxy attached: runtime state is unavailable")
	errIdPUnreachable  = errors.New("the single sign-on identity provider could not be reached")
)

// fieldError says what is wrong with one field of the input. Field is its
// JSON name, which is also its form name; empty for the input as a whole.
type fieldError struct {
	Field   string
	Message string
}

func (f fieldError) String() string {
	if f.Field == "" {
		return f.Message
	}
	return f.Field + ": " + f.Message
}

// inputError is bad input from the client: 400 on the API, the form
// re-rendered with its errors in place on a page.
type inputError struct {
	fields []fieldError
}

func badInput(field, format string, args ...any) *inputError {
	return &inputError{fields: []fieldError{{Field: field, Message: fmt.Sprintf(format, args...)}}}
}

func (e *inputError) Error() string {
	parts := make([]string, len(e.fields))
	for i, f := range e.fields {
		parts[i] = f.String()
	}
	return strings.Join(parts, "; ")
}

// byField maps each field to its first message.
func (e *inputError) byField() map[string]string {
	m := make(map[string]string, len(e.fields))
	for _, f := range e.fields {
		if _, ok := m[f.Field]; !ok {
			m[f.Field] = f.Message
		}
	}
	return m
}

// userError replaces an error's message with one written for the caller;
// kind (a models.Err* or one of ours) still picks the status.
type userError struct {
	kind error
	msg  string
}

func (e *userError) Error() string { return e.msg }
func (e *userError) Unwrap() error { return e.kind }

// errorStatus is the one place that maps an error to an HTTP status and the
// message the caller sees. Anything unknown is a 500 with a plain message:
// its details go to the log, not to the caller.
func errorStatus(err error) (int, string) {
	var input *inputError
	var tooLarge *http.MaxBytesError
	var user *userError
	status := http.StatusInternalServerError
	switch {
	case errors.As(err, &input):
		return http.StatusBadRequest, input.Error()
	case errors.As(err, &tooLarge):
		return http.StatusRequestEntityTooLarge, fmt.Sprintf("request body is larger than %d bytes", tooLarge.Limit)
	case errors.Is(err, errUnauthenticated):
		status = http.StatusUnauthorized
	case errors.Is(err, errCSRF), errors.Is(err, errForbidden):
		status = http.StatusForbidden
	case errors.Is(err, errThrottled):
		status = http.StatusTooManyRequests
	case errors.Is(err, errLoginBusy), errors.Is(err, errNoRuntime), errors.Is(err, proxy.ErrNotShared):
		status = http.StatusServiceUnavailable
	case errors.Is(err, errIdPUnreachable):
		status = http.StatusBadGateway
	case errors.Is(err, errReload):
		return http.StatusInternalServerError, errReload.Error()
	case errors.Is(err, models.ErrNotFound):
		status = http.StatusNotFound
	case errors.Is(err, models.ErrConflict), errors.Is(err, models.ErrInUse):
		status = http.StatusConflict
	case errors.Is(err, models.ErrInvalid):
		status = http.StatusBadRequest
	default:
		return status, "internal error"
	}
	if errors.As(err, &user) {
		return status, user.msg
	}
	return status, storeMessage(err)
}

// storeMessage turns "models: provider_id: no provider with id 9: invalid"
// into "provider_id: no provider with id 9".
func storeMessage(err error) string {
	var invalid *models.InvalidError
	if errors.As(err, &invalid) {
		return fieldError{Field: invalid.Field, Message: invalid.Message}.String()
	}
	msg := strings.TrimPrefix(err.Error(), "models: ")
	if errors.Is(err, models.ErrInUse) {
		msg = strings.TrimSuffix(msg, ": "+models.ErrInUse.Error())
	}
	return msg
}

// storeInputError turns the store's InvalidError into an inputError a form
// can show at its field.
func storeInputError(err error) (*inputError, bool) {
	var invalid *models.InvalidError
	if !errors.As(err, &invalid) {
		return nil, false
	}
	return badInput(invalid.Field, "%s", invalid.Message), true
}

// nameTaken rewords the store's ErrConflict on a unique name.
func nameTaken(err error, what, name string) error {
	if errors.Is(err, models.ErrConflict) {
		return &userError{kind: models.ErrConflict, msg: fmt.Sprintf("name: a %s named %q already exists", what, name)}
	}
	return err
}
