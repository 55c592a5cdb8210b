package proxy

import (
	"bytes"
	"encoding/json"
)

// The scanner below walks JSON that validJSON already accepted, so it never
// meets malformed input. It finds where the fields of an object start and end,
// which lets a request body be edited in place and forwarded otherwise byte
// for byte, without decoding it into maps.

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just after the string that starts at b[i] == '"'.
func skipString(b []byte, i int) int {
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

// skipValue returns the index just after the value that starts at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
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
			i = skipString(b, i)
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

// span is where a value sits in a body: b[start:end]. A JSON value is never
// empty, so the zero span means "absent".
type span struct{ start, end int }

func (s span) found() bool { return s.end > s.start }

// objectScanner yields the fields of the object that starts at b[i] == '{'.
type objectScanner struct {
	b []byte
	i int
}

func newObjectScanner(b []byte, open int) objectScanner {
	return objectScanner{b: b, i: open + 1}
}

// next returns the raw key (between its quotes) and the value's span.
func (s *objectScanner) next() (key []byte, val span, ok bool) {
	b := s.b
	i := skipSpace(b, s.i)
	if i >= len(b) || b[i] == '}' {
		return nil, span{}, false
	}
	if b[i] == ',' {
		i = skipSpace(b, i+1)
	}
	keyEnd := skipString(b, i)
	key = b[i+1 : keyEnd-1]
	i = skipSpace(b, keyEnd) + 1 // the ':'
	val.start = skipSpace(b, i)
	val.end = skipValue(b, val.start)
	s.i = val.end
	return key, val, true
}

// keyIs compares a raw key with name, decoding escapes only when there are any
// ("mod\u0065l" is "model" to every JSON parser upstream, so it must be to us).
func keyIs(raw []byte, name string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw) == name
	}
	var s string
	quoted := make([]byte, 0, len(raw)+2)
	quoted = append(append(append(quoted, '"'), raw...), '"')
	return json.Unmarshal(quoted, &s) == nil && s == name
}

// countElements counts the elements of the array at b[i] == '[', stopping once
// it passes limit: a caller's 10 million empty objects cost no more than limit.
func countElements(b []byte, i, limit int) int {
	i = skipSpace(b, i+1)
	if b[i] == ']' {
		return 0
	}
	n := 0
	for n <= limit {
		i = skipSpace(b, skipValue(b, i))
		n++
		if b[i] != ',' {
			return n
		}
		i = skipSpace(b, i+1)
	}
	return n
}
