package translate

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
)

// Helpers shared by the request and response translators.

// decodeContent reads a content that is a string, null or an array of T.
// It returns the string, or the array with isArray set.
func decodeContent[T any](raw json.RawMessage) (text string, parts []T, isArray bool, err error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case isNull(raw):
		return "", nil, false, nil
	case raw[0] == '"':
		err = decode(raw, &text)
		return text, nil, false, err
	case raw[0] == '[':
		err = decode(raw, &parts)
		return "", parts, true, err
	}
	return "", nil, false, errors.New("content must be a string or an array")
}

// toolInput turns OpenAI's arguments, a string holding JSON, into
// Anthropic's input, a JSON object. Arguments that are not a JSON object (a
// model's truncated or broken JSON, "", a bare value) become {} so that the
// conversation goes on with the call's id and name intact; the tool then
// sees no arguments and answers with its own error, which the model can act on.
func toolInput(arguments string) json.RawMessage {
	trimmed := strings.TrimSpace(arguments)
	if strings.HasPrefix(trimmed, "{") && json.Valid([]byte(trimmed)) {
		return json.RawMessage(trimmed)
	}
	return json.RawMessage("{}")
}

// toolArguments turns Anthropic's input object into OpenAI's arguments
// string, compacted. A missing or non-object input becomes "{}". input is
// one a decoder filled (or jsonReader.raw, which checks as it reads), so
// valid JSON: appendCompactValid compacts it as json.Compact would,
// without checking it again.
func toolArguments(input json.RawMessage) string {
	trimmed := bytes.TrimSpace(input)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return "{}"
	}
	var buf [256]byte // most inputs fit: one allocation, the string's
	return string(appendCompactValid(buf[:0], trimmed))
}

// objectOr gives raw if it holds a JSON object, else the fallback. It keeps
// schemas that the other side requires to be objects well-formed. raw comes
// from json.Unmarshal, which has already checked that it is valid JSON, so
// its first byte is enough; the schemas are most of a request's bytes, and
// each pass over them costs.
func objectOr(raw json.RawMessage, fallback string) json.RawMessage {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return trimmed
	}
	return json.RawMessage(fallback)
}

// emptySchema is the input schema of a tool that takes no arguments.
const emptySchema = `{"type":"object","properties":{}}`

// imageSourceFromURL turns an OpenAI image URL into an Anthropic image
// source: a base64 data URL becomes a base64 source, anything else a url
// source (Anthropic fetches http and https URLs itself).
func imageSourceFromURL(url string) (anthropicSource, bool) {
	if rest, ok := strings.CutPrefix(url, "data:"); ok {
		mediaType, data, ok := parseDataURL(rest)
		if !ok {
			return anthropicSource{}, false
		}
		return anthropicSource{Type: "base64", MediaType: mediaType, Data: data}, true
	}
	if url == "" {
		return anthropicSource{}, false
	}
	return anthropicSource{Type: "url", URL: url}, true
}

// parseDataURL splits what follows "data:" into the media type and the
// base64 payload; only base64 data URLs are accepted.
func parseDataURL(rest string) (mediaType, data string, ok bool) {
	meta, data, ok := strings.Cut(rest, ",")
	if !ok || !strings.HasSuffix(meta, ";base64") {
		return "", "", false
	}
	mediaType, _, _ = strings.Cut(meta, ";")
	return mediaType, data, mediaType != ""
}

// dataURL is the inverse of parseDataURL.
func dataURL(mediaType, data string) string {
	return "data:" + mediaType + ";base64," + data
}

// textOrParts gives one text as a plain string and several as text parts,
// the form every OpenAI-compatible server accepts for one and the exact form
// for several.
func textOrParts(texts []string) any {
	if len(texts) == 1 {
		return texts[0]
	}
	parts := make([]chatPartOut, len(texts))
	for i, t := range texts {
		parts[i] = chatPartOut{Type: "text", Text: t}
	}
	return parts
}

// decodeError words a JSON decoding failure for the caller: which field had
// the wrong type, or where the syntax broke, without Go's type names.
func decodeError(what string, err error) *RequestError {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return invalid(typeErr.Field, "a JSON %s is not valid here", typeErr.Value)
	case errors.As(err, &typeErr):
		return invalid("", "%s must be a JSON object (got a JSON %s)", what, typeErr.Value)
	case errors.As(err, &syntaxErr):
		return invalid("", "%s is not valid JSON (offset %d): %v", what, syntaxErr.Offset, err)
	}
	return invalid("", "%s: %v", what, err)
}

// contentError words a failure to decode a content (or a part of one) at
// param, naming the field with the wrong type when there is one.
func contentError(param string, err error) *RequestError {
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return invalid(param+"."+typeErr.Field, "a JSON %s is not valid here", typeErr.Value)
	case errors.As(err, &typeErr):
		return invalid(param, "a JSON %s is not valid here", typeErr.Value)
	}
	return invalid(param, "%v", err)
}
