package translate

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonReader reads the few JSON shapes that the fast paths decode by hand
// (the *_fast.go files): objects whose members are
// strings, small integers, floats, booleans, null, values kept raw, and
// nested objects or arrays the caller walks. It is strict rather than
// complete: anything it does not expect (a nested value where a scalar
// should be, an escaped or non-ASCII key, a large or fractional integer,
// trailing bytes) makes it fail, and the caller falls back to
// encoding/json. What it accepts is valid JSON, and decodes to what
// encoding/json would decode it to.
type jsonReader struct {
	data []byte
	pos  int
	buf  []byte // scratch for decoded strings, reused
}

func (r *jsonReader) reset(data []byte) {
	r.data, r.pos = data, 0
}

func (r *jsonReader) skipSpace() {
	for r.pos < len(r.data) {
		switch r.data[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

// consume skips space and then c, if c is next.
func (r *jsonReader) consume(c byte) bool {
	r.skipSpace()
	if r.pos < len(r.data) && r.data[r.pos] == c {
		r.pos++
		return true
	}
	return false
}

// end reports whether only space is left.
func (r *jsonReader) end() bool {
	r.skipSpace()
	return r.pos == len(r.data)
}

// object reads an object, calling member for each key with the reader at
// the key's value; member reads the value and reports whether it could.
// Keys are plain lowercase ASCII (see key).
func (r *jsonReader) object(member func(key []byte) bool) bool {
	if !r.consume('{') {
		return false
	}
	if r.consume('}') {
		return true
	}
	for {
		key, ok := r.key()
		if !ok || !r.consume(':') || !member(key) {
			return false
		}
		if !r.consume(',') {
			return r.consume('}')
		}
	}
}

// key reads an object key made of lowercase letters, digits and _ only.
// encoding/json matches keys to fields without regard to case (and with
// Unicode folding): refusing every other key keeps that question away.
func (r *jsonReader) key() ([]byte, bool) {
	if !r.consume('"') {
		return nil, false
	}
	start := r.pos
	for ; r.pos < len(r.data); r.pos++ {
		switch c := r.data[r.pos]; {
		case c == '"':
			r.pos++
			return r.data[start : r.pos-1], true
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '_':
		default:
			return nil, false
		}
	}
	return nil, false
}

// skip reads a value the caller does not need, if it is a scalar: a
// string, a number, true, false or null.
func (r *jsonReader) skip() bool {
	r.skipSpace()
	if r.pos >= len(r.data) {
		return false
	}
	switch r.data[r.pos] {
	case '"':
		_, ok := r.bytes()
		return ok
	case 't':
		return r.literal("true")
	case 'f':
		return r.literal("false")
	case 'n':
		return r.literal("null")
	}
	return r.number()
}

func (r *jsonReader) literal(lit string) bool {
	r.skipSpace()
	if len(r.data)-r.pos < len(lit) || string(r.data[r.pos:r.pos+len(lit)]) != lit {
		return false
	}
	r.pos += len(lit)
	return true
}

// null reads null, if it is next.
func (r *jsonReader) null() bool { return r.literal("null") }

// number reads a number as JSON's grammar has it:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (r *jsonReader) number() bool {
	r.skipSpace()
	if r.pos < len(r.data) && r.data[r.pos] == '-' {
		r.pos++
	}
	switch {
	case r.pos < len(r.data) && r.data[r.pos] == '0':
		r.pos++
	case !r.digits():
		return false
	}
	if r.pos < len(r.data) && r.data[r.pos] == '.' {
		r.pos++
		if !r.digits() {
			return false
		}
	}
	if r.pos < len(r.data) && (r.data[r.pos] == 'e' || r.data[r.pos] == 'E') {
		r.pos++
		if r.pos < len(r.data) && (r.data[r.pos] == '+' || r.data[r.pos] == '-') {
			r.pos++
		}
		return r.digits()
	}
	return true
}

// digits reads one or more decimal digits.
func (r *jsonReader) digits() bool {
	start := r.pos
	for r.pos < len(r.data) && '0' <= r.data[r.pos] && r.data[r.pos] <= '9' {
		r.pos++
	}
	return r.pos > start
}

// maxRawDepth bounds the nesting that value follows; encoding/json allows
// 10000, and anything deeper than a schema ever is goes to it.
const maxRawDepth = 100

// raw reads any value and gives its bytes, as encoding/json gives them to
// a json.RawMessage.
func (r *jsonReader) raw() ([]byte, bool) {
	r.skipSpace()
	start := r.pos
	if !r.value(0) {
		return nil, false
	}
	return r.data[start:r.pos], true
}

// value reads any value, checking it as encoding/json does, except that a
// string with invalid UTF-8 fails: a raw value keeps it as it is, and
// whether every decoder does so is a question left to encoding/json.
func (r *jsonReader) value(depth int) bool {
	r.skipSpace()
	if r.pos >= len(r.data) {
		return false
	}
	switch r.data[r.pos] {
	case '{':
		r.pos++
		if depth >= maxRawDepth {
			return false
		}
		if r.consume('}') {
			return true
		}
		for {
			if !r.consume('"') || !r.validString() || !r.consume(':') || !r.value(depth+1) {
				return false
			}
			if !r.consume(',') {
				return r.consume('}')
			}
		}
	case '[':
		r.pos++
		if depth >= maxRawDepth {
			return false
		}
		if r.consume(']') {
			return true
		}
		for {
			if !r.value(depth + 1) {
				return false
			}
			if !r.consume(',') {
				return r.consume(']')
			}
		}
	case '"':
		r.pos++
		return r.validString()
	case 't':
		return r.literal("true")
	case 'f':
		return r.literal("false")
	case 'n':
		return r.null()
	}
	return r.number()
}

// validString steps over the rest of a string, after its opening quote,
// without decoding it.
func (r *jsonReader) validString() bool {
	for r.pos < len(r.data) {
		c := r.data[r.pos]
		switch {
		case c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf:
			r.pos++
		case c == '"':
			r.pos++
			return true
		case c == '\\':
			if !r.validEscape() {
				return false
			}
		case c < utf8.RuneSelf: // a control character
			return false
		default:
			rn, size := utf8.DecodeRune(r.data[r.pos:])
			if rn == utf8.RuneError && size == 1 {
				return false
			}
			r.pos += size
		}
	}
	return false
}

// validEscape steps over the escape at r.pos.
func (r *jsonReader) validEscape() bool {
	if r.pos+1 >= len(r.data) {
		return false
	}
	switch r.data[r.pos+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		r.pos += 2
		return true
	case 'u':
		r.pos += 2
		if hex4(r.data[r.pos:]) < 0 {
			return false
		}
		r.pos += 4
		return true
	}
	return false
}

// float reads a number as encoding/json reads it into a float64: the
// literal through strconv.ParseFloat, which refuses what is out of range.
func (r *jsonReader) float() (float64, bool) {
	r.skipSpace()
	start := r.pos
	if !r.number() {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(r.data[start:r.pos]), 64)
	return f, err == nil
}

// int reads a non-negative integer of at most nine digits, which fits an
// int everywhere; anything else (a sign, a fraction, an exponent, more
// digits) fails.
func (r *jsonReader) int() (int, bool) {
	r.skipSpace()
	start := r.pos
	n := 0
	for r.pos < len(r.data) && '0' <= r.data[r.pos] && r.data[r.pos] <= '9' {
		n = n*10 + int(r.data[r.pos]-'0')
		r.pos++
	}
	switch digits := r.pos - start; {
	case digits == 0 || digits > 9 || digits > 1 && r.data[start] == '0':
		return 0, false
	case r.pos < len(r.data) && (r.data[r.pos] == '.' || r.data[r.pos] == 'e' || r.data[r.pos] == 'E'):
		return 0, false
	}
	return n, true
}

// string reads a string. The values the fast paths compare (event and
// delta types, roles, block types, the common finish reason) come back as
// constants, without an allocation.
func (r *jsonReader) string() (string, bool) {
	b, ok := r.bytes()
	if !ok {
		return "", false
	}
	switch string(b) {
	case "":
		return "", true
	case "content_block_delta":
		return "content_block_delta", true
	case "text_delta":
		return "text_delta", true
	case "thinking_delta":
		return "thinking_delta", true
	case "input_json_delta":
		return "input_json_delta", true
	case "function":
		return "function", true
	case "user":
		return "user", true
	case "assistant":
		return "assistant", true
	case "text":
		return "text", true
	case "tool_use":
		return "tool_use", true
	case "tool_result":
		return "tool_result", true
	case "stop":
		return "stop", true
	case "tool":
		return "tool", true
	case "system":
		return "system", true
	case "message":
		return "message", true
	}
	return string(b), true
}

// stringOrNull reads a string, or null as "" (encoding/json leaves a
// string that is null as it was, and the fast paths start from "").
func (r *jsonReader) stringOrNull() (string, bool) {
	r.skipSpace()
	if r.pos < len(r.data) && r.data[r.pos] == 'n' {
		return "", r.null()
	}
	return r.string()
}

// bytes reads a string and decodes it, into r.buf if it has escapes or
// invalid UTF-8, else as the part of data it is: either is valid until the
// next call and read-only. Decoding is encoding/json's: the escapes JSON
// has, surrogate pairs joined and lone surrogates as U+FFFD, and each byte
// of invalid UTF-8 as U+FFFD; a raw control character or a bad escape fails.
func (r *jsonReader) bytes() ([]byte, bool) {
	if !r.consume('"') {
		return nil, false
	}
	r.buf = r.buf[:0]
	start, copied := r.pos, false
	for r.pos < len(r.data) {
		c := r.data[r.pos]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf { // plain ASCII, most of any text: stepped over
			r.pos++
			continue
		}
		switch {
		case c == '"' && !copied: // nothing to decode: no copy
			r.pos++
			return r.data[start : r.pos-1], true
		case c == '"':
			r.buf = append(r.buf, r.data[start:r.pos]...)
			r.pos++
			return r.buf, true
		case c < 0x20:
			return nil, false
		case c == '\\':
			r.buf = append(r.buf, r.data[start:r.pos]...)
			if !r.escape() {
				return nil, false
			}
			start, copied = r.pos, true
		case c < utf8.RuneSelf:
			r.pos++
		default:
			rn, size := utf8.DecodeRune(r.data[r.pos:])
			if rn == utf8.RuneError && size == 1 {
				r.buf = append(r.buf, r.data[start:r.pos]...)
				r.buf = utf8.AppendRune(r.buf, utf8.RuneError)
				start, copied = r.pos+1, true
			}
			r.pos += size
		}
	}
	return nil, false
}

// escape decodes the escape at r.pos into r.buf.
func (r *jsonReader) escape() bool {
	if r.pos+1 >= len(r.data) {
		return false
	}
	c := r.data[r.pos+1]
	r.pos += 2
	switch c {
	case '"', '\\', '/':
		r.buf = append(r.buf, c)
	case 'b':
		r.buf = append(r.buf, '\b')
	case 'f':
		r.buf = append(r.buf, '\f')
	case 'n':
		r.buf = append(r.buf, '\n')
	case 'r':
		r.buf = append(r.buf, '\r')
	case 't':
		r.buf = append(r.buf, '\t')
	case 'u':
		return r.unicodeEscape()
	default:
		return false
	}
	return true
}

// unicodeEscape decodes what follows \u, joining a surrogate pair as
// encoding/json does.
func (r *jsonReader) unicodeEscape() bool {
	rn := hex4(r.data[r.pos:])
	if rn < 0 {
		return false
	}
	r.pos += 4
	if utf16.IsSurrogate(rn) {
		next := rune(-1)
		if len(r.data)-r.pos >= 6 && r.data[r.pos] == '\\' && r.data[r.pos+1] == 'u' {
			next = hex4(r.data[r.pos+2:])
		}
		if pair := utf16.DecodeRune(rn, next); pair != utf8.RuneError {
			r.pos += 6
			rn = pair
		} else {
			rn = utf8.RuneError
		}
	}
	r.buf = utf8.AppendRune(r.buf, rn)
	return true
}

// hex4 reads four hex digits, or gives -1.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var n rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		n = n*16 + rune(c)
	}
	return n
}

// fieldSet records the fields of an object read so far, by number.
type fieldSet uint32

// first marks field i, reporting whether it was new: encoding/json lets
// a repeated field merge into the earlier one, which the readers leave to it.
func (s *fieldSet) first(i uint) bool {
	seen := *s&(1<<i) != 0
	*s |= 1 << i
	return !seen
}

// rawInto reads any value into dst, null as "null", as a json.RawMessage
// takes it.
func (r *jsonReader) rawInto(dst *json.RawMessage) bool {
	v, ok := r.raw()
	*dst = v
	return ok
}

// optInt64 reads a small non-negative integer into a new *dst, or null,
// which leaves it nil.
func (r *jsonReader) optInt64(dst **int64) bool {
	if r.null() {
		return true
	}
	n, ok := r.int()
	v := int64(n)
	*dst = &v
	return ok
}

// intInto reads a small non-negative integer into dst, or null, which
// leaves it as it was.
func (r *jsonReader) intInto(dst *int64) bool {
	if r.null() {
		return true
	}
	n, ok := r.int()
	*dst = int64(n)
	return ok
}

func (r *jsonReader) optFloat(dst **float64) bool {
	if r.null() {
		return true
	}
	f, ok := r.float()
	*dst = &f
	return ok
}

// optBool reads true, false, or null, which leaves dst as it was.
func (r *jsonReader) optBool(dst *bool) bool {
	switch {
	case r.literal("true"):
		*dst = true
	case r.literal("false"):
		*dst = false
	default:
		return r.null()
	}
	return true
}

// alloc sets *dst to a new T and gives it.
func alloc[T any](dst **T) *T {
	*dst = new(T)
	return *dst
}

// array reads null (then it reports null) or an array, calling elem for
// each element with the reader at it.
func (r *jsonReader) array(elem func() bool) (null, ok bool) {
	if r.null() {
		return true, true
	}
	if !r.consume('[') {
		return false, false
	}
	if r.consume(']') {
		return false, true
	}
	for {
		if !elem() {
			return false, false
		}
		if !r.consume(',') {
			return false, r.consume(']')
		}
	}
}

// readList reads null, which leaves *dst as it was, or an array into *dst
// ([] as an empty slice, as encoding/json gives it), each element read by
// elem; room is the capacity to start with.
func readList[T any](r *jsonReader, dst *[]T, room int, elem func(*T) bool) bool {
	list := make([]T, 0, room)
	null, ok := r.array(func() bool {
		list = append(list, *new(T))
		return elem(&list[len(list)-1])
	})
	if !null {
		*dst = list
	}
	return ok
}

// readContentOf reads a content as decodeContent[T] does: a string, null,
// or an array of T, each read by elem.
func readContentOf[T any](r *jsonReader, raw json.RawMessage, elem func(*T) bool) (text string, list []T, isArray, ok bool) {
	raw = bytes.TrimSpace(raw)
	r.reset(raw)
	switch {
	case isNull(raw):
		return "", nil, false, true
	case raw[0] == '"':
		text, ok = r.string()
		return text, nil, false, ok && r.end()
	}
	null, ok := r.array(func() bool {
		list = append(list, *new(T))
		return elem(&list[len(list)-1])
	})
	if list == nil {
		list = []T{} // as encoding/json decodes []
	}
	return "", list, true, ok && !null && r.end()
}

// readStrings reads an array of strings; [] gives an empty slice and null
// nil, as encoding/json gives them.
func (r *jsonReader) readStrings(dst *[]string) bool {
	return readList(r, dst, 0, func(s *string) bool {
		var ok bool
		*s, ok = r.string()
		return ok
	})
}

// optBoolPtr reads true or false into a new *dst, or null, which leaves
// it nil.
func (r *jsonReader) optBoolPtr(dst **bool) bool {
	if r.null() {
		return true
	}
	var v bool
	*dst = &v
	return r.optBool(&v)
}

// optString reads a string into dst, or null, which leaves dst as it was
// (as encoding/json does).
func (r *jsonReader) optString(dst *string) bool {
	r.skipSpace()
	if r.pos < len(r.data) && r.data[r.pos] == 'n' {
		return r.null()
	}
	s, ok := r.string()
	if ok {
		*dst = s
	}
	return ok
}

// skipString reads a string or null it does not keep.
func (r *jsonReader) skipString() bool {
	r.skipSpace()
	if r.pos < len(r.data) && r.data[r.pos] == 'n' {
		return r.null()
	}
	_, ok := r.bytes()
	return ok
}

func (r *jsonReader) idString(want bool, dst *string) bool {
	if want {
		return r.optString(dst)
	}
	return r.skipString()
}

// isNull reports whether raw is absent or the JSON null.
func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}
