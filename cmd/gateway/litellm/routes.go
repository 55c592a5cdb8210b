package litellm

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"gateway/proxy/providers"
)

// This file maps litellm_params.model's provider prefix to a provider of the
// gateway: its api_type, base URL and credentials, and the upstream model.

// openAIRoute is a LiteLLM prefix served by an OpenAI-compatible API.
type openAIRoute struct {
	base   string // "" when LiteLLM needs api_base for it
	keyEnv string // where LiteLLM looks for the key when api_key is absent
}

// openAIRoutes are the OpenAI-compatible prefixes, with the bases LiteLLM's
// provider pages give them.
var openAIRoutes = map[string]openAIRoute{
	"openai":        {"https://api.openai.com/v1", "OPENAI_API_KEY"},
	"openrouter":    {"https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"},
	"deepseek":      {"https://api.deepseek.com/v1", "DEEPSEEK_API_KEY"},
	"groq":          {"https://api.groq.com/openai/v1", "GROQ_API_KEY"},
	"together_ai":   {"https://api.together.xyz/v1", "TOGETHERAI_API_KEY"},
	"fireworks_ai":  {"https://api.fireworks.ai/inference/v1", "FIREWORKS_AI_API_KEY"},
	"mistral":       {"https://api.mistral.ai/v1", "MISTRAL_API_KEY"},
	"xai":           {"https://api.x.ai/v1", "XAI_API_KEY"},
	"dashscope":     {"https://dashscope-intl.aliyuncs.com/compatible-mode/v1", "DASHSCOPE_API_KEY"},
	"cerebras":      {"https://api.cerebras.ai/v1", "CEREBRAS_API_KEY"},
	"deepinfra":     {"https://api.deepinfra.com/v1/openai", "DEEPINFRA_API_KEY"},
	"nvidia_nim":    {"https://integrate.api.nvidia.com/v1", "NVIDIA_NIM_API_KEY"},
	"moonshot":      {"https://api.moonshot.ai/v1", "MOONSHOT_API_KEY"},
	"hosted_vllm":   {"", "HOSTED_VLLM_API_KEY"},
	"lm_studio":     {"", "LM_STUDIO_API_KEY"},
	"litellm_proxy": {"", "LITELLM_PROXY_API_KEY"},
	"azure_ai":      {"", "AZURE_AI_API_KEY"},
}

// refusedRoutes are prefixes an OpenAI-compatible type would serve wrongly.
var refusedRoutes = map[string]string{
	"perplexity": "its API is at the host's root, and the gateway adds /v1 to an openai-type base without a path",
}

// routeResult is one model_list entry's provider and upstream model.
type routeResult struct {
	name     string         // the provider's readable name, before any -2
	body     map[string]any // POST /api/providers
	upstream string
	skip     string // why the entry is not imported, when it is not
	notes    []string
}

// routeOf maps an entry's litellm_params (model already taken) to a provider.
func routeOf(model string, p *yamlFields, readFile func(string) ([]byte, error)) routeResult {
	prefix, rest, ok := strings.Cut(model, "/")
	if !ok {
		return bareModelRoute(model, p)
	}
	switch prefix {
	case "anthropic":
		return anthropicRoute(rest, p)
	case "azure":
		return azureRoute(rest, p)
	case "bedrock":
		return bedrockRoute(rest, p)
	case "gemini":
		return geminiRoute(rest, p)
	case "vertex_ai":
		return vertexRoute(rest, p, readFile)
	}
	if r, ok := openAIRoutes[prefix]; ok {
		return openAICompatibleRoute(prefix, rest, r, p)
	}
	if why, ok := refusedRoutes[prefix]; ok {
		return routeResult{skip: prefix + "/: " + why}
	}
	return routeResult{skip: fmt.Sprintf("%s/ is not a provider the gateway has an api_type for", prefix)}
}

// bareModelRoute: LiteLLM infers the provider of a model without a prefix
// from its own model list; only the two obvious families are followed.
func bareModelRoute(model string, p *yamlFields) routeResult {
	for _, fam := range []string{"gpt-", "chatgpt-", "o1", "o3", "o4"} {
		if strings.HasPrefix(model, fam) {
			return openAICompatibleRoute("openai", model, openAIRoutes["openai"], p)
		}
	}
	if strings.HasPrefix(model, "claude-") {
		return anthropicRoute(model, p)
	}
	return routeResult{skip: "no provider prefix (write it as openai/…, anthropic/…)"}
}

// keyOf is api_key, else the environment variable LiteLLM falls back to.
func keyOf(p *yamlFields, env string) string {
	if p.has("api_key") {
		return p.str("api_key")
	}
	if v := p.env(env); v != "" {
		return v
	}
	p.fail("api_key", "not given, and %s is not set", env)
	return ""
}

func openAICompatibleRoute(prefix, rest string, r openAIRoute, p *yamlFields) routeResult {
	base := cmp.Or(p.str("api_base"), r.base)
	if base == "" {
		return routeResult{skip: prefix + "/ needs api_base"}
	}
	name := strings.ReplaceAll(prefix, "_", "-")
	if base != r.base {
		name = "openai-" + hostOf(base)
	}
	return routeResult{name: name, upstream: rest, body: map[string]any{
		"api_type": "openai", "base_url": base, "api_key": keyOf(p, r.keyEnv),
	}}
}

func anthropicRoute(rest string, p *yamlFields) routeResult {
	return hostedRoute("anthropic", "https://api.anthropic.com", "ANTHROPIC_API_KEY", rest, p)
}

func geminiRoute(rest string, p *yamlFields) routeResult {
	return hostedRoute("gemini", providers.GeminiAPIBase, "GEMINI_API_KEY", rest, p)
}

// hostedRoute is a provider of apiType at its official host, or at the
// api_base given, named then after its host; the key is api_key, else keyEnv.
func hostedRoute(apiType, official, keyEnv, rest string, p *yamlFields) routeResult {
	base := cmp.Or(p.str("api_base"), official)
	name := apiType
	if base != official {
		name = apiType + "-" + hostOf(base)
	}
	return routeResult{name: name, upstream: rest, body: map[string]any{
		"api_type": apiType, "base_url": base, "api_key": keyOf(p, keyEnv),
	}}
}

// azureRoute: the part after azure/ is the deployment name.
func azureRoute(rest string, p *yamlFields) routeResult {
	base := cmp.Or(p.str("api_base"), p.env("AZURE_API_BASE"))
	if base == "" {
		p.fail("api_base", "azure/ needs api_base (or AZURE_API_BASE), such as https://RESOURCE.openai.azure.com")
		return routeResult{}
	}
	body := map[string]any{"api_type": "azure", "base_url": base, "api_key": keyOf(p, "AZURE_API_KEY")}
	if v := cmp.Or(p.str("api_version"), p.env("AZURE_API_VERSION")); v != "" {
		body["api_version"] = v
	}
	resource, _, _ := strings.Cut(hostOf(base), ".")
	return routeResult{name: "azure-" + resource, upstream: rest, body: body}
}

// bedrockRoutes are LiteLLM's route prefixes inside bedrock/; the gateway
// always calls Converse.
var bedrockRoutes = []string{"converse/", "invoke/"}

func bedrockRoute(rest string, p *yamlFields) routeResult {
	var notes []string
	for _, r := range bedrockRoutes {
		if id, ok := strings.CutPrefix(rest, r); ok {
			if r == "invoke/" {
				notes = append(notes, "bedrock/invoke/ route: the gateway calls the Converse API")
			}
			rest = id
		}
	}
	region := cmp.Or(p.str("aws_region_name"), p.env("AWS_REGION_NAME"), p.env("AWS_REGION"))
	if region == "" {
		p.fail("aws_region_name", "not given, and neither AWS_REGION_NAME nor AWS_REGION is set")
	}
	base := cmp.Or(p.str("aws_bedrock_runtime_endpoint"), p.str("api_base"),
		"https://bedrock-runtime."+region+".amazonaws.com")
	body := map[string]any{
		"api_type": "bedrock", "base_url": base, "region": region,
		"aws_access_key_id":     awsValue(p, "aws_access_key_id", "AWS_ACCESS_KEY_ID"),
		"aws_secret_access_key": awsValue(p, "aws_secret_access_key", "AWS_SECRET_ACCESS_KEY"),
	}
	// The environment's session token belongs with the environment's keys only.
	token := p.str("aws_session_token")
	if !p.has("aws_session_token") && !p.has("aws_access_key_id") {
		token = p.env("AWS_SESSION_TOKEN")
	}
	if token != "" {
		body["aws_session_token"] = token
	}
	return routeResult{name: "bedrock-" + region, upstream: rest, body: body, notes: notes}
}

func awsValue(p *yamlFields, key, env string) string {
	if p.has(key) {
		return p.str(key)
	}
	v := p.env(env)
	if v == "" {
		p.fail(key, "not given, and %s is not set (the gateway signs with static AWS keys)", env)
	}
	return v
}

// vertexRoute: Gemini and Claude models on Vertex AI; credentials from
// vertex_credentials (a key file's path or its JSON), else
// GOOGLE_APPLICATION_CREDENTIALS.
func vertexRoute(rest string, p *yamlFields, readFile func(string) ([]byte, error)) routeResult {
	if !strings.HasPrefix(rest, "gemini-") && !strings.HasPrefix(rest, "claude-") {
		return routeResult{skip: "the gateway's vertex type serves gemini-… and claude-… models only"}
	}
	project := cmp.Or(p.str("vertex_project"), p.env("VERTEXAI_PROJECT"))
	if project == "" {
		p.fail("vertex_project", "not given, and VERTEXAI_PROJECT is not set")
	}
	location := cmp.Or(p.str("vertex_location"), p.env("VERTEXAI_LOCATION"))
	var notes []string
	if location == "" {
		notes = append(notes, "vertex_location not given: the gateway's default location (global) applies")
	}
	body := map[string]any{
		"api_type": "vertex", "base_url": cmp.Or(p.str("api_base"), providers.VertexBaseURL(location)),
		"project": project, "credentials_json": vertexCredentials(p, readFile),
	}
	name := "vertex-" + project
	if location != "" {
		body["location"] = location
		name += "-" + location
	}
	return routeResult{name: name, upstream: rest, body: body, notes: notes}
}

func vertexCredentials(p *yamlFields, readFile func(string) ([]byte, error)) string {
	const key = "vertex_credentials"
	v := p.str(key)
	if v == "" && !p.has(key) {
		if v = p.env("GOOGLE_APPLICATION_CREDENTIALS"); v == "" {
			p.fail(key, "not given, and GOOGLE_APPLICATION_CREDENTIALS is not set")
			return ""
		}
	}
	if v == "" {
		return ""
	}
	raw := []byte(v)
	if !strings.HasPrefix(strings.TrimSpace(v), "{") {
		b, err := readFile(v)
		if err != nil {
			p.fail(key, "read the service account key file: %v", err)
			return ""
		}
		raw = b
	}
	var sa map[string]any
	if err := json.Unmarshal(raw, &sa); err != nil {
		p.fail(key, "not a service account key (JSON object): %v", err)
		return ""
	}
	return strings.TrimSpace(string(raw))
}

// hostOf is a base URL's host name, for a provider's name.
func hostOf(base string) string {
	u, err := url.Parse(base)
	if err != nil || u.Hostname() == "" {
		return "custom"
	}
	return u.Hostname()
}
