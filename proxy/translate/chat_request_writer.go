package translate

import (
	"bytes"
	"strconv"
)

// marshalChatRequest writes req as marshal(req) would, by hand (see
// fastrequest_writer.go): encoding/json's reflection costs a third of a
// translation. The tools' schemas are most of a request's bytes (Claude
// Code's two dozen tools are about 15 kB), and encoding/json would run its
// validating scanner over each one again to compact it; they were validated
// when the request was decoded, so compacting them takes one plain loop
// (appendCompactValid). TestMarshalChatRequest and FuzzMessagesToChat hold
// it to marshal.
func marshalChatRequest(req *chatRequestOut) ([]byte, error) {
	if b, ok := appendChatRequest(make([]byte, 0, chatRequestSize(req)), req); ok {
		return b, nil
	}
	return marshal(req)
}

// appendChatTools writes tools as marshal would: HTML not escaped, and the
// parameters, raw JSON from a decoded request, compacted.
func appendChatTools(b []byte, tools []chatTool) []byte {
	b = append(b, '[')
	for i := range tools {
		if i > 0 {
			b = append(b, ',')
		}
		t := &tools[i]
		b = append(b, `{"type":`...)
		b = appendJSONString(b, t.Type, false)
		b = append(b, `,"function":{"name":`...)
		b = appendJSONString(b, t.Function.Name, false)
		if t.Function.Description != "" {
			b = append(b, `,"description":`...)
			b = appendJSONString(b, t.Function.Description, false)
		}
		if len(t.Function.Parameters) > 0 {
			b = append(b, `,"parameters":`...)
			b = appendCompactValid(b, t.Function.Parameters)
		}
		if t.Function.Strict != nil {
			b = append(b, `,"strict":`...)
			b = strconv.AppendBool(b, *t.Function.Strict)
		}
		b = append(b, "}}"...)
	}
	return append(b, ']')
}

// appendCompactValid appends src without the space between its tokens, as
// json.Compact does; src must be valid JSON, which it does not check.
func appendCompactValid(dst, src []byte) []byte {
	start := 0
	for i := 0; i < len(src); {
		switch src[i] {
		case '"':
			i += 1 + stringEnd(src[i+1:])
		case ' ', '\t', '\n', '\r':
			dst = append(dst, src[start:i]...)
			for i < len(src) && isSpace(src[i]) {
				i++
			}
			start = i
		default:
			i++
		}
	}
	return append(dst, src[start:]...)
}

// stringEnd gives the length of a string's rest, its closing quote
// included: the first quote not escaped by an odd run of backslashes.
func stringEnd(s []byte) int {
	for k := 0; ; {
		q := bytes.IndexByte(s[k:], '"')
		if q < 0 {
			return len(s)
		}
		q += k
		backslashes := 0
		for q-1-backslashes >= k && s[q-1-backslashes] == '\\' {
			backslashes++
		}
		if backslashes%2 == 0 {
			return q + 1
		}
		k = q + 1
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
