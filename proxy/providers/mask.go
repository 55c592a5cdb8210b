package providers

import (
	"cmp"
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"gateway/models"
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

// maskSecret hides secret, whatever it looks like. A secret of a known
// shape keeps its prefix ("sk-…"), as the pattern writes it; one shorter
// than 4 characters is left to the pattern: replacing it everywhere would
// garble the text.
func maskSecret(s, secret string) string {
	if len(secret) < 4 || !strings.Contains(s, secret) {
		return s
	}
	mark := "…"
	for _, prefix := range []string{"sk-", "key-"} {
		if strings.HasPrefix(secret, prefix) {
			mark = prefix + "…"
		}
	}
	return strings.ReplaceAll(s, secret, mark)
}

// secretsOf lists what Mask hides: each secret, and of a service account
// key file its private key (also as the file escapes it) and the key's id,
// the longest first so that a part never leaves the rest of a whole behind.
func secretsOf(s models.ProviderSecrets) []string {
	out := []string{s.APIKey, s.AWSSecretAccessKey, s.AWSSessionToken, s.CredentialsJSON}
	if s.CredentialsJSON != "" {
		var key struct {
			PrivateKey   string `json:"private_key"`
			PrivateKeyID string `json:"private_key_id"`
		}
		if json.Unmarshal([]byte(s.CredentialsJSON), &key) == nil {
			escaped, _ := json.Marshal(key.PrivateKey)
			out = append(out, key.PrivateKey, strings.Trim(string(escaped), `"`), key.PrivateKeyID)
		}
	}
	out = slices.DeleteFunc(out, func(v string) bool { return len(v) < 4 })
	slices.SortFunc(out, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return slices.Compact(out)
}
