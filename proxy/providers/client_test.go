package providers_test

import (
	"net/http"
	"testing"

	"gateway/proxy/providers"
)

// TestBaseURLRule: the proxy's chat calls and Test connection's model list
// read a base URL by one rule per type.
func TestBaseURLRule(t *testing.T) {
	for _, tc := range []struct {
		apiType, base, chat, models string
	}{
		{"anthropic", "https://api.anthropic.com", "https://api.anthropic.com/v1/messages", "https://api.anthropic.com/v1/models"},
		{"anthropic", "https://api.anthropic.com/", "https://api.anthropic.com/v1/messages", "https://api.anthropic.com/v1/models"},
		{"anthropic", "https://api.anthropic.com/v1/", "https://api.anthropic.com/v1/messages", "https://api.anthropic.com/v1/models"},
		{"anthropic", "https://gw.example/anthropic", "https://gw.example/anthropic/v1/messages", "https://gw.example/anthropic/v1/models"},
		{"openai", "https://api.openai.com/v1", "https://api.openai.com/v1/chat/completions", "https://api.openai.com/v1/models"},
		{"openai", "https://api.openai.com/v1/", "https://api.openai.com/v1/chat/completions", "https://api.openai.com/v1/models"},
		{"openai", "https://api.openai.com", "https://api.openai.com/v1/chat/completions", "https://api.openai.com/v1/models"},
		{"openai", "https://api.openai.com/", "https://api.openai.com/v1/chat/completions", "https://api.openai.com/v1/models"},
		{"openai", "https://openrouter.ai/api/v1", "https://openrouter.ai/api/v1/chat/completions", "https://openrouter.ai/api/v1/models"},
		{"openai", "http://127.0.0.1:8000/v1?api-version=2", "http://127.0.0.1:8000/v1/chat/completions?api-version=2", "http://127.0.0.1:8000/v1/models?api-version=2"},
	} {
		c, err := providers.New(tc.apiType, tc.base, "k", nil)
		if err != nil {
			t.Errorf("%s %s: %v", tc.apiType, tc.base, err)
			continue
		}
		if got := c.ChatURL(); got != tc.chat {
			t.Errorf("%s %s: chat %q, want %q", tc.apiType, tc.base, got, tc.chat)
		}
		if got := c.ModelsURL(); got != tc.models {
			t.Errorf("%s %s: models %q, want %q", tc.apiType, tc.base, got, tc.models)
		}
	}
	for _, bad := range [][2]string{
		{"openai", ""}, {"openai", "api.openai.com/v1"}, {"openai", "ftp://x/v1"}, {"openai", "https://"},
		{"openai", "not a url"}, {"azure-unknown", "https://x"},
	} {
		if _, err := providers.New(bad[0], bad[1], "k", nil); err == nil {
			t.Errorf("New(%s, %q) accepted", bad[0], bad[1])
		}
	}
}

// TestAuthorize: each type's key goes into its own header, with the headers
// the type requires, and nowhere else.
func TestAuthorize(t *testing.T) {
	for _, tc := range []struct {
		apiType string
		want    http.Header
	}{
		{"openai", http.Header{"Authorization": {"Bearer sk-test"}}},
		{"anthropic", http.Header{"X-Api-Key": {"sk-test"}, "Anthropic-Version": {providers.AnthropicVersion}}},
	} {
		c, err := providers.New(tc.apiType, "https://example.com", "sk-test", nil)
		if err != nil {
			t.Fatal(err)
		}
		got := http.Header{}
		c.Authorize(got)
		if len(got) != len(tc.want) {
			t.Errorf("%s: headers %v, want %v", tc.apiType, got, tc.want)
		}
		for k, v := range tc.want {
			if got.Get(k) != v[0] {
				t.Errorf("%s: %s = %q, want %q", tc.apiType, k, got.Get(k), v[0])
			}
		}
	}
}

// TestMask: one masker for what the proxy stores and what the admin pages
// show: key-like words, and the provider's own key whatever it looks like.
func TestMask(t *testing.T) {
	const key = "custom-provider-key-abcdef"
	c, err := providers.New("openai", "https://example.com", key, nil)
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"Incorrect API key provided: sk-proj-abc123*****wxyz.": "Incorrect API key provided: sk-….",
		"invalid x-api-key sk-ant-api03-AbC_d-eF":              "invalid x-api-key sk-…",
		"the key " + key + " is wrong":                         "the key … is wrong",
		"bad key-ABCDEFGH1234 given":                           "bad key-… given",
		"a task-force and a sk-abc":                            "a task-force and a sk-abc",
		"nothing secret here":                                  "nothing secret here",
	} {
		if got := c.Mask(in); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
	if got := providers.MaskSecrets("401: sk-live-0123456789"); got != "401: sk-…" {
		t.Errorf("MaskSecrets = %q", got)
	}
	// A key of a known shape keeps its prefix, whether the pattern or the
	// key itself finds it.
	c, err = providers.New("openai", "https://example.com", "sk-1234", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Mask("bad key sk-1234."); got != "bad key sk-…." {
		t.Errorf("Mask(short sk- key) = %q", got)
	}
}
