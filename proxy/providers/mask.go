package providers

import (
	"regexp"
	"strings"
)

// secretLike matches what looks like an API key in an upstream's text
// (OpenAI's 401 quotes part of the key it was sent, starred out; Anthropic
// keys start with sk-ant-). A sentence's final dot is not part of it.
var secretLike = regexp.MustCompile(`\b(sk|key)-[A-Za-z0-9_*.-]{5,}[A-Za-z0-9_*-]`)

// MaskSecrets hides key-like words in text that is shown, stored or logged.
func MaskSecrets(s string) string {
	if !strings.Contains(s, "sk-") && !strings.Contains(s, "key-") {
		return s
	}
	return secretLike.ReplaceAllString(s, "$1-…")
}

// maskKey hides key, whatever it looks like, then anything key-like. A key
// of a known shape keeps its prefix ("sk-…"), as the pattern writes it; a key
// shorter than 4 characters is left to the pattern: replacing it everywhere
// would garble the text.
func maskKey(s, key string) string {
	if len(key) >= 4 {
		mark := "…"
		for _, prefix := range []string{"sk-", "key-"} {
			if strings.HasPrefix(key, prefix) {
				mark = prefix + "…"
			}
		}
		s = strings.ReplaceAll(s, key, mark)
	}
	return MaskSecrets(s)
}
