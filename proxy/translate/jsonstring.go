package translate

import "unicode/utf8"

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
