package jsonscan

// Valid reports whether b is one valid JSON value, exactly as json.Valid
// does (FuzzValid holds it to that), in a single plain pass: json.Valid's
// state machine, a function call per byte, was the largest single cost of
// reading a request body (about 4 ns a byte), and every request and every
// non-streamed answer goes through it. Like json.Valid it does not check
// UTF-8 and refuses nesting deeper than 10,000.
func Valid(b []byte) bool {
	v := validator{b: b}
	v.space()
	if !v.value() {
		return false
	}
	v.space()
	return v.i == len(b)
}

// maxJSONDepth is encoding/json's limit on nested objects and arrays.
const maxJSONDepth = 10000

type validator struct {
	b     []byte
	i     int
	depth int
}

func (v *validator) space() {
	for v.i < len(v.b) {
		switch v.b[v.i] {
		case ' ', '\t', '\n', '\r':
			v.i++
		default:
			return
		}
	}
}

func (v *validator) value() bool {
	if v.i >= len(v.b) {
		return false
	}
	switch c := v.b[v.i]; {
	case c == '"':
		return v.string()
	case c == '{':
		return v.composite('}', v.member)
	case c == '[':
		return v.composite(']', v.value)
	case c == '-' || '0' <= c && c <= '9':
		return v.number()
	case c == 't':
		return v.literal("true")
	case c == 'f':
		return v.literal("false")
	case c == 'n':
		return v.literal("null")
	}
	return false
}

// composite reads an object or an array whose opening byte is at v.i: its
// elements, each read by elem, separated by commas, until close.
func (v *validator) composite(close byte, elem func() bool) bool {
	if v.depth++; v.depth > maxJSONDepth {
		return false
	}
	v.i++
	v.space()
	if v.i < len(v.b) && v.b[v.i] == close {
		v.i++
		v.depth--
		return true
	}
	for {
		v.space()
		if !elem() {
			return false
		}
		v.space()
		if v.i >= len(v.b) {
			return false
		}
		switch v.b[v.i] {
		case ',':
			v.i++
		case close:
			v.i++
			v.depth--
			return true
		default:
			return false
		}
	}
}

// member reads `"key": value` of an object.
func (v *validator) member() bool {
	if v.i >= len(v.b) || v.b[v.i] != '"' || !v.string() {
		return false
	}
	v.space()
	if v.i >= len(v.b) || v.b[v.i] != ':' {
		return false
	}
	v.i++
	v.space()
	return v.value()
}

// string reads a string whose opening quote is at v.i.
func (v *validator) string() bool {
	b := v.b
	for i := v.i + 1; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			v.i = i + 1
			return true
		case c < 0x20:
			return false
		case c == '\\':
			i++
			if i >= len(b) {
				return false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) || !isHex(b[i+1]) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) {
					return false
				}
				i += 4
			default:
				return false
			}
		}
	}
	return false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (v *validator) number() bool {
	if v.b[v.i] == '-' {
		v.i++
	}
	if v.i >= len(v.b) {
		return false
	}
	if v.b[v.i] == '0' {
		v.i++
	} else if !v.digits() {
		return false
	}
	if v.i < len(v.b) && v.b[v.i] == '.' {
		v.i++
		if !v.digits() {
			return false
		}
	}
	if v.i < len(v.b) && (v.b[v.i] == 'e' || v.b[v.i] == 'E') {
		v.i++
		if v.i < len(v.b) && (v.b[v.i] == '+' || v.b[v.i] == '-') {
			v.i++
		}
		if !v.digits() {
			return false
		}
	}
	return true
}

// digits reads one or more decimal digits.
func (v *validator) digits() bool {
	start := v.i
	for v.i < len(v.b) && '0' <= v.b[v.i] && v.b[v.i] <= '9' {
		v.i++
	}
	return v.i > start
}

func (v *validator) literal(lit string) bool {
	if len(v.b)-v.i < len(lit) || string(v.b[v.i:v.i+len(lit)]) != lit {
		return false
	}
	v.i += len(lit)
	return true
}
