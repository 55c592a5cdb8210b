package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"gateway/models"
)

// maxBodyBytes bounds admin request bodies; none needs more.
const maxBodyBytes = 1 << 20

// jsonBody is a request body that is a JSON object, field by field.
type jsonBody map[string]json.RawMessage

// readBody reads a JSON object from the request.
func readBody(w http.ResponseWriter, r *http.Request) (jsonBody, error) {
	var body jsonBody
	if err := decodeStrict(http.MaxBytesReader(w, r.Body, maxBodyBytes), &body); err != nil {
		return nil, err
	}
	if body == nil {
		return nil, badInput("", "body must be a JSON object")
	}
	return body, nil
}

// decodeBody reads a JSON object from the request into dst, a pointer to a
// zero input struct, and validates it.
func (a *App) decodeBody(w http.ResponseWriter, r *http.Request, dst any) error {
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	return a.applyBody(body, dst)
}

// applyBody applies body to *dst, which holds the base state, and validates
// the result: a field absent from the body keeps its value, null resets it to
// its zero value (nil: unset, or the default), and a field dst does not have
// is an error. Creating starts from a zero struct, updating (PATCH) from the
// current state, so both decode and validate the same struct the same way.
//
// dst must point to a struct without omitempty tags.
func (a *App) applyBody(body jsonBody, dst any) error {
	if err := mergeBody(body, dst); err != nil {
		return err
	}
	return a.validateStruct(dst)
}

// mergeBody is applyBody without the validation, for inputs whose rules
// go beyond the struct's tags (a provider's depend on its type).
func mergeBody(body jsonBody, dst any) error {
	merged, err := jsonObject(dst)
	if err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(body)) {
		if _, ok := merged[k]; !ok {
			return badInput(k, "unknown field")
		}
		if v := bytes.TrimSpace(body[k]); string(v) == "null" {
			delete(merged, k)
		} else {
			merged[k] = v
		}
	}
	b, err := json.Marshal(merged)
	if err != nil {
		return err
	}
	reflect.ValueOf(dst).Elem().SetZero()
	return decodeStrict(bytes.NewReader(b), dst)
}

// jsonObject is v marshalled, as a map from field name to value.
func jsonObject(v any) (map[string]json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	return m, json.Unmarshal(b, &m)
}

// decodeStrict decodes exactly one JSON value and nothing after it.
func decodeStrict(r io.Reader, dst any) error {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return jsonInputError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return err
		}
		return badInput("", "unexpected data after the JSON object")
	}
	return nil
}

// jsonInputError says what is wrong with a body encoding/json refused,
// naming the field where it can.
func jsonInputError(err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return err
	case errors.Is(err, io.EOF):
		return badInput("", "request body is empty: send a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return badInput("", "request body is not valid JSON: it ends too early")
	case errors.As(err, &syntax):
		return badInput("", "request body is not valid JSON: %s (at byte %d)", syntax.Error(), syntax.Offset)
	case errors.As(err, &typ):
		if typ.Field == "" {
			return badInput("", "body must be a JSON object")
		}
		return badInput(typ.Field, "must be %s", jsonTypeName(typ.Type))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return badInput(name, "unknown field")
	}
	return badInput("", "request body is not valid JSON: %v", err)
}

func jsonTypeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[time.Time]() {
		return "a time such as 2026-01-31T12:00:00Z"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return "an object"
}

// timestamp is a time in a JSON body. A malformed one is reported as a type
// error, so that the message names its field.
type timestamp struct{ time.Time }

func (t *timestamp) UnmarshalJSON(b []byte) error {
	if err := t.Time.UnmarshalJSON(b); err != nil {
		return &json.UnmarshalTypeError{Value: "string", Type: reflect.TypeFor[time.Time]()}
	}
	return nil
}

func timestampOf(t *time.Time) *timestamp {
	if t == nil {
		return nil
	}
	return &timestamp{*t}
}

func (t *timestamp) timePtr() *time.Time {
	if t == nil {
		return nil
	}
	v := t.UTC()
	return &v
}

// readOptionalBody is readBody for a request whose body may be left out:
// nil when there is none.
func readOptionalBody(w http.ResponseWriter, r *http.Request) (jsonBody, error) {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	return readBody(w, r)
}

// queryParams returns the URL's query parameters, refusing any not in
// allowed and any given twice: a typo must not widen what a request acts on.
func queryParams(r *http.Request, allowed ...string) (map[string]string, error) {
	q := r.URL.Query()
	out := make(map[string]string, len(q))
	for _, k := range slices.Sorted(maps.Keys(q)) {
		switch {
		case !slices.Contains(allowed, k):
			return nil, badInput(k, "unknown query parameter")
		case len(q[k]) > 1:
			return nil, badInput(k, "given more than once")
		}
		out[k] = q[k][0]
	}
	return out, nil
}

// queryError is a 400 for the query parameter param, which must be want.
func queryError(param, want string) error {
	return &userError{kind: models.ErrInvalid, msg: fmt.Sprintf("%s: must be %s", param, want)}
}

// queryPositive reads the query parameter param as a positive integer
// into *dst, when it is given.
func queryPositive[N int | int64](q url.Values, param string, dst *N) error {
	v := q.Get(param)
	if v == "" {
		return nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 || int64(N(n)) != n {
		return queryError(param, "a positive integer")
	}
	*dst = N(n)
	return nil
}

// queryTime reads the query parameter param as an RFC 3339 time into
// *dst, when it is given.
func queryTime(q url.Values, param string, dst *time.Time) error {
	v := q.Get(param)
	if v == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return queryError(param, "an RFC 3339 time such as 2026-11-30T00:00:00Z")
	}
	*dst = t
	return nil
}
