// Package providers holds what the gateway knows about each provider type
// (api_type): how a base URL is read, which paths its endpoints have, how
// the key is sent, and the pooled transport every call goes through. The
// proxy's requests, a pool's Check now and a provider's Test connection all
// call a provider through a Client of this package, so the rules exist once.
//
// A provider type is one entry of the table below: a new api_type (azure,
// bedrock, gemini, vertex) adds its Type here, with its own base URL rule and
// its own Authorizer when a static header does not do (SigV4 signing, OAuth
// tokens).
package providers

import (
	"net/url"
	"strings"

	"gateway/models"
)

// Protocol is the wire protocol a provider type's chat endpoint speaks.
type Protocol string

// The wire protocols of today's provider types.
const (
	ProtocolOpenAI    Protocol = "openai"    // OpenAI Chat Completions
	ProtocolAnthropic Protocol = "anthropic" // Anthropic Messages
)

// AnthropicVersion is asked of Anthropic-type upstreams when the caller
// named none (an OpenAI caller never does, nor does a check).
const AnthropicVersion = "2023-06-01"

// Type is one api_type's rules.
type Type struct {
	Name     string
	Protocol Protocol
	// ChatPath is the chat endpoint, appended to the normalised base;
	// ModelsPath lists the models, the cheapest call that proves a URL and a
	// key (Test connection).
	ChatPath, ModelsPath string
	// basePath normalises the base URL's path (without a trailing slash) by
	// the vendor SDK's convention.
	basePath func(path string) string
	// auth builds the authorizer of one provider of this type from its key.
	auth func(key string) Authorizer
}

var types = map[string]*Type{
	models.APITypeOpenAI: {
		Name: models.APITypeOpenAI, Protocol: ProtocolOpenAI,
		ChatPath: "/chat/completions", ModelsPath: "/models",
		basePath: versionedPath,
		auth:     func(key string) Authorizer { return newHeaderAuth("Authorization", "Bearer "+key, key, nil) },
	},
	models.APITypeAnthropic: {
		Name: models.APITypeAnthropic, Protocol: ProtocolAnthropic,
		ChatPath: "/v1/messages", ModelsPath: "/v1/models",
		basePath: rootPath,
		auth: func(key string) Authorizer {
			return newHeaderAuth("X-Api-Key", key, key, map[string]string{"Anthropic-Version": AnthropicVersion})
		},
	},
}

// Lookup returns the rules of an api_type; ok is false for one the gateway
// does not know.
func Lookup(apiType string) (t *Type, ok bool) {
	t, ok = types[apiType]
	return t, ok
}

// versionedPath: an openai-type base carries the API version
// ("https://api.openai.com/v1"); one without any path gets "/v1".
func versionedPath(path string) string {
	if path == "" {
		return "/v1"
	}
	return path
}

// rootPath: an anthropic-type base is the root ("https://api.anthropic.com");
// a redundant "/v1" is dropped.
func rootPath(path string) string { return strings.TrimSuffix(path, "/v1") }

// urlPath is u's path without its trailing slashes.
func urlPath(u *url.URL) string { return strings.TrimRight(u.Path, "/") }
