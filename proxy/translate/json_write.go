package translate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// appendJSONString appends s as a JSON string exactly as encoding/json
// writes it: with escapeHTML as json.Marshal does (<, > and & as \u003c,
// \u003e, \u0026), without as an Encoder with SetEscapeHTML(false). The
// stream fast paths write their events by hand with it, so that a text
// delta costs no reflection and no allocation beyond the event itself;
// TestAppendJSONString and FuzzAppendJSONString hold it to encoding/json.
//
// The rules, as in encoding/json's appendString: ", \ and the control
// characters are escaped (\b \f \n \r \t by name, the rest as \u00XX);
// U+2028 and U+2029 are escaped always; each byte of invalid UTF-8 becomes
// \ufffd; everything else is copied.
func appendJSONString(dst []byte, s string, escapeHTML bool) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if !needsEscape(b, escapeHTML) {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = appendEscapedByte(dst, b)
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

// The ASCII bytes below 64 that are escaped, as bit masks: the control
// characters and ", and with HTML also &, < and >. Above 63 only \ is.
const (
	escapedBelow64     = 1<<0x20 - 1 | 1<<'"'
	escapedBelow64HTML = escapedBelow64 | 1<<'&' | 1<<'<' | 1<<'>'
)

// needsEscape reports whether the ASCII byte b is escaped in a JSON string.
func needsEscape(b byte, escapeHTML bool) bool {
	if b >= 64 {
		return b == '\\'
	}
	mask := uint64(escapedBelow64)
	if escapeHTML {
		mask = escapedBelow64HTML
	}
	return mask>>b&1 != 0
}

// appendArray writes list as an array, each element by elem, and nil as
// null, as encoding/json writes a nil slice; elem reports false for a value
// it was not written for.
func appendArray[T any](b []byte, list []T, elem func(b []byte, v *T) ([]byte, bool)) ([]byte, bool) {
	if list == nil {
		return append(b, "null"...), true
	}
	b = append(b, '[')
	for i := range list {
		if i > 0 {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = elem(b, &list[i]); !ok {
			return b, false
		}
	}
	return append(b, ']'), true
}

// appendEach writes list as an array, each element by elem.
func appendEach[T any](b []byte, list []T, elem func(b []byte, v *T) []byte) []byte {
	b = append(b, '[')
	for i := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(b, &list[i])
	}
	return append(b, ']')
}

// appendKey writes key (`"name":`) as the next member of the object whose
// '{' is at dst[open]: after a comma unless it is the first.
func appendKey(dst []byte, open int, key string) []byte {
	if len(dst) > open+1 {
		dst = append(dst, ',')
	}
	return append(dst, key...)
}

// appendOptMember writes a string member, key and s (HTML not escaped),
// unless s is "", as omitempty leaves it out.
func appendOptMember(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	b = append(b, key...)
	return appendJSONString(b, s, false)
}

// appendEscapedByte escapes one ASCII byte that needsEscape.
func appendEscapedByte(dst []byte, b byte) []byte {
	switch b {
	case '\\', '"':
		return append(dst, '\\', b)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
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

// appendOptString writes *s, or null.
func appendOptString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendJSONString(b, *s, false)
}

// grow makes room in dst for an event carrying text, so that writing it
// allocates once.
func grow(dst []byte, fixed int, text string) []byte {
	return slices.Grow(dst, fixed+len(text)+len(text)/8)
}

// appendJSONStrings writes a non-nil list of strings.
func appendJSONStrings(b []byte, list []string) []byte {
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s, false)
	}
	return append(b, ']')
}

// appendOptFloat writes key and *f unless f is nil.
func appendOptFloat(b []byte, key string, f *float64) ([]byte, bool) {
	if f == nil {
		return b, true
	}
	return appendJSONFloat(append(b, key...), *f)
}

// appendJSONFloat writes f as encoding/json writes a float64: the
// shortest decimal that reads back as f, in exponent form below 1e-6 and
// from 1e21 on, with an exponent's leading zero dropped (1e-7, not 1e-07).
// NaN and the infinities, which encoding/json refuses, report false.
func appendJSONFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b, true
}

// appendRawValue writes a raw value that a decoder or toolInput checked,
// compacted, and nil as null, as encoding/json writes a json.RawMessage;
// an empty one, which encoding/json refuses, reports false.
func appendRawValue(b []byte, raw json.RawMessage) ([]byte, bool) {
	switch {
	case raw == nil:
		return append(b, "null"...), true
	case len(raw) == 0:
		return b, false
	}
	return appendCompactValid(b, raw), true
}

// marshal writes a translated value. Every json.RawMessage in it was checked
// on the way in, so a failure here is a bug; it is returned, not hidden.
// HTML is not escaped: the bodies go to APIs, not into pages, and escaping
// would turn every "<" of a prompt into "\u003c".
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("translate: encode %T: %w", v, err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
