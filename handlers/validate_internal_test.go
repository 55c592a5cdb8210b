package handlers

import "testing"

func TestValidationRules(t *testing.T) {
	tests := []struct {
		rule func(string) bool
		name string
		in   string
		want bool
	}{
		{isPublicName, "plain", "gpt-4o", true},
		{isPublicName, "with slash", "openai/gpt-4o", true},
		{isPublicName, "wildcard", "anthropic/*", true},
		{isPublicName, "default fallbacks", "*", true},
		{isPublicName, "unicode", "通义千问", true},
		{isPublicName, "empty", "", false},
		{isPublicName, "star in the middle", "claude-*-sonnet", false},
		{isPublicName, "two stars", "a**", false},
		{isPublicName, "space", "gpt 4o", false},
		{isPublicName, "tab", "gpt\t4o", false},
		{isPublicName, "newline", "gpt-4o\n", false},
		{isBaseURL, "openai", "https://api.openai.com/v1", true},
		{isBaseURL, "local http with port", "http://127.0.0.1:11434/v1/", true},
		{isBaseURL, "anthropic without version", "https://api.anthropic.com", true},
		{isBaseURL, "no scheme", "api.openai.com/v1", false},
		{isBaseURL, "ftp", "ftp://example.com", false},
		{isBaseURL, "no host", "https:///v1", false},
		{isBaseURL, "credentials", "https://user:pw@example.com/v1", false},
		{isBaseURL, "query", "https://example.com/v1?x=1", false},
		{isBaseURL, "fragment", "https://example.com/v1#x", false},
		{isBaseURL, "empty fragment", "https://example.com/v1#", false},
		{isBudgetDuration, "30m", "30m", true},
		{isBudgetDuration, "1d", "1d", true},
		{isBudgetDuration, "7d", "7d", true},
		{isBudgetDuration, "1mo", "1mo", true},
		{isBudgetDuration, "12h", "12h", true},
		{isBudgetDuration, "0d", "0d", false},
		{isBudgetDuration, "1y", "1y", false},
		{isBudgetDuration, "no number", "d", false},
		{isBudgetDuration, "space", "1 d", false},
		{isSingleLine, "text", "OpenAI 官方", true},
		{isSingleLine, "newline", "a\nb", false},
	}
	for _, tt := range tests {
		if got := tt.rule(tt.in); got != tt.want {
			t.Errorf("%s %q: got %v, want %v", tt.name, tt.in, got, tt.want)
		}
	}
}
