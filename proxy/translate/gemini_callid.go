package translate

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
)

// Gemini's function calls have no ids, and Gemini 3 puts a thoughtSignature
// on the (first) functionCall part of a step, which it wants back on that
// same part in the next request (a 400 otherwise). The caller sees a call id
// this package makes, and sends it back with the call and its result; so the
// id carries the signature:
//
//	call_gemini_<tag>_<n>[_<signature>]
//
// tag is 8 hex characters of the SHA-256 of the answer's responseId (random
// when it has none), which keeps the ids of different answers apart (OpenAI
// and Anthropic refuse a conversation whose calls share an id) and the same
// answer's the same; n is the call's place among the answer's calls, from 0;
// signature is the thoughtSignature's bytes in unpadded base64url. Every
// character is in [A-Za-z0-9_-], what Anthropic allows in a tool_use id.
// Long signatures make long ids: OpenAI's own models refuse call ids over 40
// characters, so a conversation that went through Gemini 3 cannot move to
// them with its calls.
const geminiCallPrefix = "call_gemini_"

// geminiSkipSignature is the signature Google documents for function calls
// Gemini did not make (another model's, or a caller's own): a step whose
// first call has none gets it, rather than a 400 from Gemini 3.
const geminiSkipSignature = "skip_thought_signature_validator"

// geminiTag gives the tag of an answer's call ids.
func geminiTag(responseID string) string {
	if responseID == "" {
		return strings.ToLower(rand.Text()[:8])
	}
	sum := sha256.Sum256([]byte(responseID))
	return hex.EncodeToString(sum[:4])
}

// geminiCallID gives the id of an answer's nth call, carrying its
// thoughtSignature (base64, as Gemini sends it; "" for none).
func geminiCallID(tag string, n int, signature string) string {
	id := geminiCallPrefix + tag + "_" + strconv.Itoa(n)
	if raw, ok := decodeBase64(signature); ok && len(raw) > 0 {
		id += "_" + base64.RawURLEncoding.EncodeToString(raw)
	}
	return id
}

// geminiSignature gives the thoughtSignature a call id carries, in base64
// as Gemini takes it; "" for an id that carries none, or that this package
// did not make.
func geminiSignature(id string) string {
	rest, ok := strings.CutPrefix(id, geminiCallPrefix)
	if !ok || len(rest) < 10 || rest[8] != '_' {
		return ""
	}
	n, signature, _ := strings.Cut(rest[9:], "_")
	if n == "" || strings.Trim(n, "0123456789") != "" || signature == "" {
		return ""
	}
	raw, err := base64.RawURLEncoding.DecodeString(signature)
	if err != nil {
		return ""
	}
	return base64.StdEncoding.EncodeToString(raw)
}

// decodeBase64 reads a signature: standard base64 as Gemini sends bytes,
// or any other base64 alphabet Google's JSON accepts.
func decodeBase64(s string) ([]byte, bool) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if raw, err := enc.DecodeString(s); err == nil {
			return raw, true
		}
	}
	return nil, false
}
