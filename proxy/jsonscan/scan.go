// Package jsonscan reads JSON without decoding it: Valid checks a body in one
// plain pass, and the scanner then walks what Valid accepted, so it never
// meets malformed input. It finds where the fields of an object start and
// end, which lets a request body be edited in place and forwarded otherwise
// byte for byte, without decoding it into maps.
package jsonscan

import (
	"bytes"
	"encoding/json"
)

// SkipSpace returns the index of the first byte at or after b[i] that is not
// JSON white space.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// SkipString returns the index just after the string that starts at b[i] == '"'.
func SkipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// SkipValue returns the index just after the value that starts at b[i].
func SkipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		return skipComposite(b, i)
	}
	for i < len(b) && !endsLiteral(b[i]) {
		i++
	}
	return i
}

// endsLiteral reports whether c ends a number, true, false or null.
func endsLiteral(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

func skipComposite(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			i = SkipString(b, i)
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
		i++
	}
	return i
}

// Span is where a value sits in a body: b[Start:End]. A JSON value is never
// empty, so the zero Span means "absent".
type Span struct{ Start, End int }

// Found reports whether the span holds a value.
func (s Span) Found() bool { return s.End > s.Start }

// Object yields the fields of an object, in order.
type Object struct {
	b []byte
	i int
}

// NewObject scans the object that starts at b[open] == '{'.
func NewObject(b []byte, open int) Object {
	return Object{b: b, i: open + 1}
}

// Next returns the raw key (between its quotes) and the value's span; ok is
// false past the last field.
func (s *Object) Next() (key []byte, val Span, ok bool) {
	b := s.b
	i := SkipSpace(b, s.i)
	if i >= len(b) || b[i] == '}' {
		return nil, Span{}, false
	}
	if b[i] == ',' {
		i = SkipSpace(b, i+1)
	}
	keyEnd := SkipString(b, i)
	key = b[i+1 : keyEnd-1]
	i = SkipSpace(b, keyEnd) + 1 // the ':'
	val.Start = SkipSpace(b, i)
	val.End = SkipValue(b, val.Start)
	s.i = val.End
	return key, val, true
}

// KeyIs compares a raw key with name, decoding escapes only when there are any
// ("mod\u0065l" is "model" to every JSON parser upstream, so it must be to us).
func KeyIs(raw []byte, name string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw) == name
	}
	var s string
	quoted := make([]byte, 0, len(raw)+2)
	quoted = append(append(append(quoted, '"'), raw...), '"')
	return json.Unmarshal(quoted, &s) == nil && s == name
}

// CountElements counts the elements of the array at b[i] == '[', stopping once
// it passes limit: a caller's 10 million empty objects cost no more than limit.
func CountElements(b []byte, i, limit int) int {
	i = SkipSpace(b, i+1)
	if b[i] == ']' {
		return 0
	}
	n := 0
	for n <= limit {
		i = SkipSpace(b, SkipValue(b, i))
		n++
		if b[i] != ',' {
			return n
		}
		i = SkipSpace(b, i+1)
	}
	return n
}
