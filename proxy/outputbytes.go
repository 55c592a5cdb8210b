package proxy

import (
	"unicode/utf8"

	"gateway/proxy/jsonscan"
)

// A stream cut before the upstream's final usage (the caller left, the
// upstream broke off) is billed for the output that reached the caller. The
// pass-through adapters forward events undecoded, so they count that output
// with the cheap scans below rather than a second decoding of every event.

// estimatedUsage is a cut stream's usage: its output from the bytes that
// reached the caller, bytesPerToken to a token rounded up (any output costs
// something); its input as the stream reported it (Anthropic's
// message_start), else the request's own estimate.
func estimatedUsage(u usage, outBytes int64, promptTokens int) usage {
	u.OutputTokens = (outBytes + bytesPerToken - 1) / bytesPerToken
	if u.InputTokens == 0 {
		u.InputTokens = int64(promptTokens)
	}
	return u
}

// chatChunk is what the OpenAI pass-through needs to know of a chunk.
type chatChunk struct {
	outputBytes int64 // content, refusal, tool-call arguments, reasoning
	// mayEnd: a usage or a finish_reason that is not null, for the decoder
	// to judge; only the last chunk or two have one.
	mayEnd bool
}

// scanChatChunk reads what the pass-through needs of a chunk in one pass.
// Reasoning counts once whether a server sends it as reasoning_content,
// reasoning, or (some do) the same text as both.
func scanChatChunk(data []byte) chatChunk {
	var c chatChunk
	var reasoningContent, reasoning int64
	eachField(data, func(key, value []byte) {
		switch string(key) {
		case "content", "refusal", "arguments":
			c.outputBytes += stringBytes(value)
		case "reasoning_content":
			reasoningContent += stringBytes(value)
		case "reasoning":
			reasoning += stringBytes(value)
		case "usage", "finish_reason":
			c.mayEnd = c.mayEnd || value[0] != 'n'
		}
	})
	c.outputBytes += max(reasoningContent, reasoning)
	return c
}

// messagesBlockOutputBytes is the output in an Anthropic content block
// event: text, thinking or tool input JSON.
func messagesBlockOutputBytes(data []byte) int64 {
	var n int64
	eachField(data, func(key, value []byte) {
		switch string(key) {
		case "text", "thinking", "partial_json":
			n += stringBytes(value)
		}
	})
	return n
}

// responsesDeltaOutputBytes is the output in a Responses ….delta event.
func responsesDeltaOutputBytes(data []byte) int64 {
	var n int64
	eachField(data, func(key, value []byte) {
		if string(key) == "delta" {
			n += stringBytes(value)
		}
	})
	return n
}

// eachField calls f with every key in data, nested ones included, and data
// from the key's value on (never empty). It is one pass that skips every
// string whole, so text that mentions a key is never taken for one; it is
// a filter, not a parser: on malformed JSON it finds what it finds, and a
// decoder judges where it matters.
func eachField(data []byte, f func(key, value []byte)) {
	for i := 0; i < len(data); {
		if data[i] != '"' {
			i++
			continue
		}
		end := jsonscan.SkipString(data, i)
		j := jsonscan.SkipSpace(data, end)
		if j >= len(data) || data[j] != ':' || end-1 <= i {
			i = end
			continue
		}
		v := jsonscan.SkipSpace(data, j+1)
		if v >= len(data) {
			return
		}
		f(data[i+1:end-1], data[v:])
		i = v
	}
}

// stringBytes is the decoded length of the JSON string value starts with,
// 0 when it is no string.
func stringBytes(value []byte) int64 {
	if value[0] != '"' {
		return 0
	}
	return jsonStringBytes(value, 0)
}

// jsonStringBytes is the decoded length in bytes of the JSON string that
// starts at b[i] == '"'.
func jsonStringBytes(b []byte, i int) int64 {
	var n int64
	for i++; i < len(b); i++ {
		switch b[i] {
		case '"':
			return n
		case '\\':
			if i+1 < len(b) && b[i+1] == 'u' && i+5 < len(b) {
				n += int64(escapedRuneBytes(b[i+2 : i+6]))
				i += 5
				continue
			}
			n++
			i++
		default:
			n++
		}
	}
	return n
}

// escapedRuneBytes is the UTF-8 length of the code point of a \u escape's
// four hex digits; a surrogate pair's two escapes make one 4-byte rune.
func escapedRuneBytes(hex []byte) int {
	var r rune
	for _, c := range hex {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 1 // not an escape a decoder accepts: count it as a byte
		}
	}
	switch {
	case 0xD800 <= r && r < 0xDC00:
		return 4
	case 0xDC00 <= r && r < 0xE000:
		return 0
	}
	return utf8.RuneLen(r)
}
