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
	"cmp"
	"net/http"
	"net/url"
	"strings"

	"github.com/aws/smithy-go/encoding/httpbinding"

	"gateway/models"
)

// Protocol is the wire protocol a provider type's chat endpoint speaks.
type Protocol string

// The wire protocols of the provider types.
const (
	ProtocolOpenAI    Protocol = "openai"    // OpenAI Chat Completions
	ProtocolAnthropic Protocol = "anthropic" // Anthropic Messages
	ProtocolGemini    Protocol = "gemini"    // Google's generateContent
	ProtocolConverse  Protocol = "converse"  // AWS Bedrock's Converse
)

// AnthropicVersion is asked of Anthropic-type upstreams when the caller
// named none (an OpenAI caller never does, nor does a check).
const AnthropicVersion = "2023-06-01"

// Type is one api_type's rules.
type Type struct {
	Name     string
	Protocol Protocol
	// Fields are the settings a provider of this type takes beyond name,
	// api_type, base_url and supports_responses, in the order the
	// Providers page shows them.
	Fields []Field
	// DefaultBase is the base URL when none is given, from the provider's
	// fields (nil when a base URL is required).
	DefaultBase func(p *models.Provider) string
	// basePath normalises the base URL's path (without a trailing slash) by
	// the vendor SDK's convention.
	basePath func(path string) string
	// call is the path (and query) of a generation by model, after the base.
	call func(c *Client, model string, stream bool) string
	// models is the path of the model list on the base's host, the cheapest
	// call that proves a URL and a key (Test connection); "" when the type
	// has none there.
	models func(c *Client) string
	// auth builds the authorizer of one provider of this type.
	auth func(p *models.Provider, s models.ProviderSecrets, t *http.Transport) (Authorizer, error)
}

// Field is a setting of a provider type, named as the management API
// names it.
type Field struct {
	Name     string // "api_key", "region", …
	Label    string // as the Providers page shows it
	Secret   bool   // sealed, write-only, shown by its last four characters
	Required bool   // for a secret: on create; it is kept when left empty later
	Default  string // what an empty value means
}

// The fields of the types, by name.
var (
	fieldAPIKey          = Field{Name: "api_key", Label: "API key", Secret: true, Required: true}
	fieldAPIVersion      = Field{Name: "api_version", Label: "API version", Default: "2024-10-21"}
	fieldRegion          = Field{Name: "region", Label: "AWS region", Required: true}
	fieldAWSAccessKeyID  = Field{Name: "aws_access_key_id", Label: "AWS access key id", Required: true}
	fieldAWSSecret       = Field{Name: "aws_secret_access_key", Label: "AWS secret access key", Secret: true, Required: true}
	fieldAWSSessionToken = Field{Name: "aws_session_token", Label: "AWS session token (temporary credentials)", Secret: true}
	fieldProject         = Field{Name: "project", Label: "Google Cloud project", Required: true}
	fieldLocation        = Field{Name: "location", Label: "Location (global, us, eu or a region)", Default: "global"}
	fieldCredentials     = Field{Name: "credentials_json", Label: "Service account key (JSON)", Secret: true, Required: true}
)

var types = map[string]*Type{
	models.APITypeOpenAI: {
		Name: models.APITypeOpenAI, Protocol: ProtocolOpenAI, Fields: []Field{fieldAPIKey},
		basePath: versionedPath,
		call:     fixedPath("/chat/completions"),
		models:   func(*Client) string { return "/models" },
		auth: func(_ *models.Provider, s models.ProviderSecrets, _ *http.Transport) (Authorizer, error) {
			return newHeaderAuth("Authorization", "Bearer "+s.APIKey, nil), nil
		},
	},
	models.APITypeAnthropic: {
		Name: models.APITypeAnthropic, Protocol: ProtocolAnthropic, Fields: []Field{fieldAPIKey},
		basePath: trimVersion("/v1"),
		call:     fixedPath("/v1/messages"),
		models:   func(*Client) string { return "/v1/models" },
		auth: func(_ *models.Provider, s models.ProviderSecrets, _ *http.Transport) (Authorizer, error) {
			return newHeaderAuth("X-Api-Key", s.APIKey, map[string]string{"Anthropic-Version": AnthropicVersion}), nil
		},
	},
}

// The types served through another vendor's cloud. Their calls are built
// per model (the model is in the URL), and bedrock and vertex sign each call
// or send a token.
func init() {
	types[models.APITypeAzure] = &Type{
		Name: models.APITypeAzure, Protocol: ProtocolOpenAI,
		Fields:   []Field{fieldAPIKey, fieldAPIVersion},
		basePath: trimVersion("/openai"),
		call: func(c *Client, model string, _ bool) string {
			return "/openai/deployments/" + url.PathEscape(model) + "/chat/completions?api-version=" + c.apiVersion
		},
		models: func(c *Client) string { return "/openai/models?api-version=" + c.apiVersion },
		auth: func(_ *models.Provider, s models.ProviderSecrets, _ *http.Transport) (Authorizer, error) {
			return newHeaderAuth("Api-Key", s.APIKey, nil), nil
		},
	}
	types[models.APITypeBedrock] = &Type{
		Name: models.APITypeBedrock, Protocol: ProtocolConverse,
		Fields: []Field{fieldRegion, fieldAWSAccessKeyID, fieldAWSSecret, fieldAWSSessionToken},
		DefaultBase: func(p *models.Provider) string {
			return "https://bedrock-runtime." + p.Region + ".amazonaws.com"
		},
		basePath: func(path string) string { return path },
		call:     bedrockPath,
		models:   func(*Client) string { return "" }, // on another host (bedrock.REGION), another service
		auth:     newSigV4Auth,
	}
	types[models.APITypeGemini] = &Type{
		Name: models.APITypeGemini, Protocol: ProtocolGemini,
		Fields:      []Field{fieldAPIKey},
		DefaultBase: func(*models.Provider) string { return GeminiAPIBase },
		basePath:    trimVersion("/v1beta"),
		call: func(_ *Client, model string, stream bool) string {
			return "/v1beta/models/" + url.PathEscape(model) + geminiMethod(stream, false)
		},
		models: func(*Client) string { return "/v1beta/models" },
		auth: func(_ *models.Provider, s models.ProviderSecrets, _ *http.Transport) (Authorizer, error) {
			return newHeaderAuth("X-Goog-Api-Key", s.APIKey, nil), nil
		},
	}
	types[models.APITypeVertex] = &Type{
		Name: models.APITypeVertex, Protocol: ProtocolGemini, // and ProtocolAnthropic for claude-… models: see ProtocolOf
		Fields:      []Field{fieldProject, fieldLocation, fieldCredentials},
		DefaultBase: vertexBase,
		basePath:    trimVersion("/v1"),
		call:        vertexPath,
		models:      func(*Client) string { return "" }, // the publisher list is not the project's: it proves nothing
		auth:        newOAuthAuth,
	}
}

// fixedPath: a type whose endpoint does not name the model.
func fixedPath(path string) func(*Client, string, bool) string {
	return func(*Client, string, bool) string { return path }
}

// geminiMethod is the method of a Gemini model (anthropic: of a Claude
// model on Vertex), and the stream's SSE framing.
func geminiMethod(stream, anthropic bool) string {
	switch {
	case anthropic && stream:
		return ":streamRawPredict"
	case anthropic:
		return ":rawPredict"
	case stream:
		return ":streamGenerateContent?alt=sse"
	}
	return ":generateContent"
}

// vertexPath: Google's models and Anthropic's are published apart.
func vertexPath(c *Client, model string, stream bool) string {
	publisher, claude := "google", c.Type.ProtocolOf(model) == ProtocolAnthropic
	if claude {
		publisher = "anthropic"
	}
	return c.vertexPrefix + publisher + "/models/" + url.PathEscape(model) + geminiMethod(stream, claude)
}

// bedrockPath: the model id (an ARN or an inference profile's id may hold
// ':' and '/') is one path segment, every reserved character escaped as
// AWS's own SDK escapes it, so that the URL sent and the path signed agree.
func bedrockPath(_ *Client, model string, stream bool) string {
	op := "/converse"
	if stream {
		op = "/converse-stream"
	}
	return "/model/" + httpbinding.EscapePath(model, true) + op
}

// vertexBase is Vertex AI's host for the provider's location.
func vertexBase(p *models.Provider) string { return VertexBaseURL(p.Location) }

// VertexBaseURL is Vertex AI's host for a location ("": the default,
// global): global → aiplatform.googleapis.com, the multi-regions us and eu
// → aiplatform.{us|eu}.rep.googleapis.com, a region R →
// R-aiplatform.googleapis.com.
func VertexBaseURL(location string) string {
	switch loc := cmp.Or(location, fieldLocation.Default); loc {
	case "global":
		return "https://aiplatform.googleapis.com"
	case "us", "eu":
		return "https://aiplatform." + loc + ".rep.googleapis.com"
	default:
		return "https://" + loc + "-aiplatform.googleapis.com"
	}
}

// ProtocolOf is the protocol a call to upstreamModel speaks: the type's,
// but on vertex a Claude model speaks Anthropic's (rawPredict).
func (t *Type) ProtocolOf(upstreamModel string) Protocol {
	if t.Name == models.APITypeVertex && strings.HasPrefix(upstreamModel, "claude") {
		return ProtocolAnthropic
	}
	return t.Protocol
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

// trimVersion: a base given with the API's version (or, for azure, its
// /openai) has it dropped: the type's paths carry it.
func trimVersion(suffix string) func(string) string {
	return func(path string) string { return strings.TrimSuffix(path, suffix) }
}

// urlPath is u's path without its trailing slashes.
func urlPath(u *url.URL) string { return strings.TrimRight(u.Path, "/") }

// GeminiAPIBase is the Gemini API's own host, a gemini provider's base URL
// when it names none.
const GeminiAPIBase = "https://generativelanguage.googleapis.com"
