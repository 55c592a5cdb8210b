package litellm

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// importEnv is the environment the testdata configs read with os.environ/.
func importEnv() map[string]string {
	return map[string]string{
		"OPENAI_API_KEY":        "sk-openai-primary-0001",
		"OPENAI_API_KEY_BACKUP": "sk-openai-backup-0002",
		"AZURE_API_KEY":         "azure-key-0000000003",
		"ANTHROPIC_API_KEY":     "sk-ant-key-000000004",
		"AWS_ACCESS_KEY_ID":     "AKIAEXAMPLE000000005",
		"AWS_SECRET_ACCESS_KEY": "aws-secret-00000000006",
		"AWS_SESSION_TOKEN":     "aws-session-0000000007",
		"VERTEX_SA_FILE":        "testdata/vertex-sa.json",
		"GEMINI_API_KEY":        "gemini-key-000000008",
		"DEEPSEEK_API_KEY":      "sk-deepseek-00000009",
		"GROQ_API_KEY":          "gsk-groq-0000000010",
		"OPENROUTER_API_KEY":    "sk-or-key-000000011",
		"TOGETHERAI_API_KEY":    "together-key-0000012",
		"DASHSCOPE_API_KEY":     "sk-dashscope-000013",
		"XAI_API_KEY":           "xai-key-00000000014",
	}
}

func getenvOf(env map[string]string) func(string) string {
	return func(k string) string { return env[k] }
}

func mustPlan(t *testing.T, file string, env map[string]string) *Plan {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := ReadConfig(raw, getenvOf(env), os.ReadFile)
	if err != nil {
		t.Fatalf("plan %s: %v", file, err)
	}
	return plan
}

// jsonOf is v as the importer would send it.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestImportPlanProviders checks the POST /api/providers bodies planned for
// every prefix of the mixed config, the types the running gateway of this
// branch does not take yet included.
func TestImportPlanProviders(t *testing.T) {
	plan := mustPlan(t, "testdata/config.yaml", importEnv())
	saFile, err := os.ReadFile("testdata/vertex-sa.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		want map[string]any
	}{
		{"openai", map[string]any{"api_type": "openai", "base_url": "https://api.openai.com/v1", "api_key": "sk-openai-primary-0001"}},
		{"azure-contoso-eu", map[string]any{"api_type": "azure", "base_url": "https://contoso-eu.openai.azure.com/",
			"api_key": "azure-key-0000000003", "api_version": "2024-10-21"}},
		{"anthropic", map[string]any{"api_type": "anthropic", "base_url": "https://api.anthropic.com", "api_key": "sk-ant-key-000000004"}},
		{"bedrock-us-east-1", map[string]any{"api_type": "bedrock", "base_url": "https://bedrock-runtime.us-east-1.amazonaws.com",
			"region": "us-east-1", "aws_access_key_id": "AKIAEXAMPLE000000005", "aws_secret_access_key": "aws-secret-00000000006",
			"aws_session_token": "aws-session-0000000007"}},
		{"vertex-acme-ml-us-east5", map[string]any{"api_type": "vertex", "base_url": "https://us-east5-aiplatform.googleapis.com",
			"project": "acme-ml", "location": "us-east5", "credentials_json": strings.TrimSpace(string(saFile))}},
		{"gemini", map[string]any{"api_type": "gemini", "base_url": "https://generativelanguage.googleapis.com", "api_key": "gemini-key-000000008"}},
		// Other credentials in the same place: a second provider.
		{"vertex-acme-ml-us-east5-2", map[string]any{"api_type": "vertex", "base_url": "https://us-east5-aiplatform.googleapis.com",
			"project": "acme-ml", "location": "us-east5",
			"credentials_json": `{"type": "service_account", "project_id": "acme-ml", "private_key_id": "ffffffffffffffff9999"}`}},
		// The runtime endpoint is the base; explicit keys take no session token from the environment.
		{"bedrock-eu-west-1", map[string]any{"api_type": "bedrock", "base_url": "https://bedrock-runtime.eu-west-1.vpce.example.com",
			"region": "eu-west-1", "aws_access_key_id": "AKIAEXAMPLE000000005", "aws_secret_access_key": "aws-secret-00000000006"}},
		{"deepseek", map[string]any{"api_type": "openai", "base_url": "https://api.deepseek.com/v1", "api_key": "sk-deepseek-00000009"}},
		{"groq", map[string]any{"api_type": "openai", "base_url": "https://api.groq.com/openai/v1", "api_key": "gsk-groq-0000000010"}},
		{"openrouter", map[string]any{"api_type": "openai", "base_url": "https://openrouter.ai/api/v1", "api_key": "sk-or-key-000000011"}},
		{"together-ai", map[string]any{"api_type": "openai", "base_url": "https://api.together.xyz/v1", "api_key": "together-key-0000012"}},
		{"dashscope", map[string]any{"api_type": "openai", "base_url": "https://dashscope-intl.aliyuncs.com/compatible-mode/v1", "api_key": "sk-dashscope-000013"}},
		{"xai", map[string]any{"api_type": "openai", "base_url": "https://api.x.ai/v1", "api_key": "xai-key-00000000014"}},
		{"openai-vllm.internal", map[string]any{"api_type": "openai", "base_url": "http://vllm.internal:8000/v1", "api_key": "sk-local-0000000000"}},
	}
	if len(plan.Providers) != len(tests) {
		t.Errorf("planned %d providers, want %d", len(plan.Providers), len(tests))
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if i >= len(plan.Providers) {
				t.Fatal("not planned")
			}
			got := plan.Providers[i]
			if got.Name != tt.name {
				t.Errorf("name = %q, want %q", got.Name, tt.name)
			}
			if g, w := jsonOf(t, got.Body), jsonOf(t, tt.want); g != w {
				t.Errorf("body\n got %s\nwant %s", g, w)
			}
		})
	}
}

// TestImportPlanEntries checks the POST /api/models bodies: the upstream
// model each prefix leaves, limits, priority and prices per million tokens;
// the router's cooldown_time is not every entry's (see
// TestImportPlanPoolsFallbacksUnmapped).
func TestImportPlanEntries(t *testing.T) {
	plan := mustPlan(t, "testdata/config.yaml", importEnv())
	tests := []struct {
		source, provider, want string
	}{
		{"model_list[0]", "openai", `{"cache_read_price":1.25,"context_window":128000,"input_price":2.5,"output_price":10,"priority":1,"public_name":"gpt-4o","rpm_limit":500,"timeout_seconds":120,"tpm_limit":200000,"upstream_model":"gpt-4o","weight":3}`},
		{"model_list[1]", "azure-contoso-eu", `{"priority":2,"public_name":"gpt-4o","upstream_model":"gpt-4o-eu","weight":1}`},
		{"model_list[2]", "anthropic", `{"public_name":"claude-sonnet","upstream_model":"claude-sonnet-4-5"}`},
		{"model_list[3]", "bedrock-us-east-1", `{"public_name":"claude-sonnet","upstream_model":"us.anthropic.claude-sonnet-4-5-20250929-v1:0"}`},
		{"model_list[4]", "vertex-acme-ml-us-east5", `{"public_name":"claude-sonnet","upstream_model":"claude-sonnet-4-5@20250929"}`},
		{"model_list[5]", "gemini", `{"public_name":"gemini-flash","rpm_limit":1000,"upstream_model":"gemini-2.5-flash"}`},
		{"model_list[6]", "vertex-acme-ml-us-east5-2", `{"public_name":"gemini-flash","upstream_model":"gemini-2.5-flash"}`},
		{"model_list[7]", "bedrock-eu-west-1", `{"public_name":"nova-pro","upstream_model":"amazon.nova-pro-v1:0"}`},
		{"model_list[8]", "deepseek", `{"public_name":"deepseek-chat","upstream_model":"deepseek-chat"}`},
		{"model_list[9]", "groq", `{"public_name":"llama-70b","upstream_model":"llama-3.3-70b-versatile"}`},
		{"model_list[10]", "openrouter", `{"public_name":"llama-70b","upstream_model":"meta-llama/llama-3.3-70b-instruct"}`},
		{"model_list[11]", "together-ai", `{"public_name":"llama-70b","upstream_model":"meta-llama/Llama-3.3-70B-Instruct-Turbo"}`},
		{"model_list[12]", "dashscope", `{"public_name":"qwen-max","upstream_model":"qwen-max"}`},
		{"model_list[13]", "xai", `{"public_name":"grok","upstream_model":"grok-4"}`},
		{"model_list[14]", "openai-vllm.internal", `{"public_name":"local-llama","upstream_model":"llama-3.1-8b-instruct"}`},
	}
	if len(plan.Entries) != len(tests) {
		t.Errorf("planned %d entries, want %d (model_list[15], cohere/, is not one)", len(plan.Entries), len(tests))
	}
	for i, tt := range tests {
		t.Run(tt.source, func(t *testing.T) {
			if i >= len(plan.Entries) {
				t.Fatal("not planned")
			}
			got := plan.Entries[i]
			if got.Source != tt.source || plan.Providers[got.Provider].Name != tt.provider {
				t.Errorf("%s → %s, want %s → %s", got.Source, plan.Providers[got.Provider].Name, tt.source, tt.provider)
			}
			if g := jsonOf(t, got.Body); g != tt.want {
				t.Errorf("body\n got %s\nwant %s", g, tt.want)
			}
		})
	}
}

// TestImportPlanPoolsFallbacksUnmapped checks router_settings as every
// imported pool's settings, the three fallback kinds from both sections,
// and the list of what was not mapped.
func TestImportPlanPoolsFallbacksUnmapped(t *testing.T) {
	plan := mustPlan(t, "testdata/config.yaml", importEnv())
	var pools []string
	for _, p := range plan.Pools {
		if g, w := jsonOf(t, p.Body), `{"allowed_fails":2,"num_retries":3,"routing_strategy":"least-busy"}`; g != w {
			t.Errorf("pool %s: %s, want %s", p.PublicName, g, w)
		}
		pools = append(pools, p.PublicName)
	}
	wantPools := []string{"gpt-4o", "claude-sonnet", "gemini-flash", "nova-pro", "deepseek-chat", "llama-70b", "qwen-max", "grok", "local-llama"}
	if !slices.Equal(pools, wantPools) {
		t.Errorf("pools %v, want %v", pools, wantPools)
	}
	wantFallbacks := `[{"public_name":"claude-sonnet","kind":"content_policy","targets":["gpt-4o","llama-70b"]},` +
		`{"public_name":"gpt-4o","kind":"context_window","targets":["gemini-flash"]},` +
		`{"public_name":"gpt-4o","kind":"general","targets":["claude-sonnet"]},` +
		`{"public_name":"llama-70b","kind":"general","targets":["deepseek-chat","qwen-max"]}]`
	if g := jsonOf(t, plan.Fallbacks); g != wantFallbacks {
		t.Errorf("fallbacks\n got %s\nwant %s", g, wantFallbacks)
	}
	wantUnmapped := []string{
		"model_list[0] (gpt-4o): model_info.id",
		"model_list[1] (gpt-4o): litellm_params.max_budget",
		"model_list[1] (gpt-4o): model_info.base_model",
		"model_list[14] (local-llama): litellm_params.stream_timeout",
		"model_list[15] (command-r): cohere/command-r-plus not imported: cohere/ is not a provider the gateway has an api_type for",
		"router_settings.cooldown_time: 30 s is LiteLLM's cooldown when an upstream sends no retry-after; the gateway's is 60 s (an entry's cooldown_time becomes its cooldown_seconds, which overrides retry-after)",
		"router_settings.redis_host",
		"litellm_settings.drop_params",
		"litellm_settings.success_callback",
		"general_settings.database_url",
		"general_settings.master_key",
	}
	if !slices.Equal(plan.Unmapped, wantUnmapped) {
		t.Errorf("unmapped\n got %q\nwant %q", plan.Unmapped, wantUnmapped)
	}
}

// TestImportPlanRoutes maps single entries: prefixes, LiteLLM's own
// environment fallbacks, and what is refused or left out.
func TestImportPlanRoutes(t *testing.T) {
	tests := []struct {
		name, params string
		env          map[string]string
		want         string // the provider body, or "skip: …" for an entry left out
		upstream     string
	}{
		{"bare gpt model is openai", `model: gpt-4o-mini
      api_key: k-000000000001`, nil,
			`{"api_key":"k-000000000001","api_type":"openai","base_url":"https://api.openai.com/v1"}`, "gpt-4o-mini"},
		{"bare claude model is anthropic, key from ANTHROPIC_API_KEY", `model: claude-haiku-4-5`,
			map[string]string{"ANTHROPIC_API_KEY": "ant-from-env"},
			`{"api_key":"ant-from-env","api_type":"anthropic","base_url":"https://api.anthropic.com"}`, "claude-haiku-4-5"},
		{"anthropic with api_base", `model: anthropic/claude-opus-4-1
      api_base: https://claude.proxy.example/v1
      api_key: k`, nil,
			`{"api_key":"k","api_type":"anthropic","base_url":"https://claude.proxy.example/v1"}`, "claude-opus-4-1"},
		{"azure from AZURE_API_BASE, default api_version", `model: azure/prod-gpt4o
      api_key: k`, map[string]string{"AZURE_API_BASE": "https://prod.openai.azure.com"},
			`{"api_key":"k","api_type":"azure","base_url":"https://prod.openai.azure.com"}`, "prod-gpt4o"},
		{"bedrock invoke route, region and keys from the environment", `model: bedrock/invoke/anthropic.claude-3-haiku-20240307-v1:0`,
			map[string]string{"AWS_REGION": "us-west-2", "AWS_ACCESS_KEY_ID": "AKIA1", "AWS_SECRET_ACCESS_KEY": "s", "AWS_SESSION_TOKEN": "tok"},
			`{"api_type":"bedrock","aws_access_key_id":"AKIA1","aws_secret_access_key":"s","aws_session_token":"tok","base_url":"https://bedrock-runtime.us-west-2.amazonaws.com","region":"us-west-2"}`,
			"anthropic.claude-3-haiku-20240307-v1:0"},
		{"vertex global from inline JSON", `model: vertex_ai/gemini-2.5-pro
      vertex_project: p1
      vertex_location: global
      vertex_credentials: '{"private_key_id": "x"}'`, nil,
			`{"api_type":"vertex","base_url":"https://aiplatform.googleapis.com","credentials_json":"{\"private_key_id\": \"x\"}","location":"global","project":"p1"}`,
			"gemini-2.5-pro"},
		{"vertex multi-region eu", `model: vertex_ai/gemini-2.5-pro
      vertex_project: p1
      vertex_location: eu
      vertex_credentials: '{}'`, nil,
			`{"api_type":"vertex","base_url":"https://aiplatform.eu.rep.googleapis.com","credentials_json":"{}","location":"eu","project":"p1"}`,
			"gemini-2.5-pro"},
		{"fireworks", `model: fireworks_ai/accounts/fireworks/models/llama-v3p1-8b-instruct
      api_key: k`, nil,
			`{"api_key":"k","api_type":"openai","base_url":"https://api.fireworks.ai/inference/v1"}`, "accounts/fireworks/models/llama-v3p1-8b-instruct"},
		{"mistral", `model: mistral/mistral-large-latest
      api_key: k`, nil, `{"api_key":"k","api_type":"openai","base_url":"https://api.mistral.ai/v1"}`, "mistral-large-latest"},
		{"hosted_vllm with api_base", `model: hosted_vllm/qwen3
      api_base: http://gpu-1:8000/v1
      api_key: k`, nil, `{"api_key":"k","api_type":"openai","base_url":"http://gpu-1:8000/v1"}`, "qwen3"},
		{"hosted_vllm without api_base", `model: hosted_vllm/qwen3`, nil, "skip: hosted_vllm/ needs api_base", ""},
		{"vertex model of another publisher", `model: vertex_ai/meta/llama-4
      vertex_project: p`, nil, "skip: the gateway's vertex type serves gemini-… and claude-… models only", ""},
		{"perplexity", `model: perplexity/sonar
      api_key: k`, nil, "skip: perplexity/: its API is at the host's root, and the gateway adds /v1 to an openai-type base without a path", ""},
		{"unknown bare model", `model: command-r`, nil, "skip: no provider prefix (write it as openai/…, anthropic/…)", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := "model_list:\n  - model_name: m\n    litellm_params:\n      " + tt.params + "\n"
			plan, err := ReadConfig([]byte(cfg), getenvOf(tt.env), os.ReadFile)
			if err != nil {
				t.Fatal(err)
			}
			if skip, ok := strings.CutPrefix(tt.want, "skip: "); ok {
				if len(plan.Entries) != 0 || len(plan.Unmapped) != 1 || !strings.HasSuffix(plan.Unmapped[0], skip) {
					t.Errorf("entries %d, unmapped %q; want it left out: %s", len(plan.Entries), plan.Unmapped, skip)
				}
				return
			}
			if len(plan.Providers) != 1 || len(plan.Entries) != 1 {
				t.Fatalf("planned %d providers and %d entries, want 1 and 1 (unmapped: %q)", len(plan.Providers), len(plan.Entries), plan.Unmapped)
			}
			if g := jsonOf(t, plan.Providers[0].Body); g != tt.want {
				t.Errorf("provider\n got %s\nwant %s", g, tt.want)
			}
			if g := plan.Entries[0].Body["upstream_model"]; g != tt.upstream {
				t.Errorf("upstream_model = %v, want %s", g, tt.upstream)
			}
		})
	}
}

// TestImportPlanErrors: what stops the import before anything is written,
// each named.
func TestImportPlanErrors(t *testing.T) {
	tests := []struct {
		name, config string
		want         []string
	}{
		{"missing variable", "model_list:\n  - model_name: m\n    litellm_params:\n      model: openai/gpt-4o\n      api_key: os.environ/NOPE_KEY\n",
			[]string{"model_list[0] (m): litellm_params.api_key: environment variable NOPE_KEY is not set"}},
		{"every missing variable at once", `model_list:
  - model_name: a
    litellm_params: {model: openai/gpt-4o, api_key: os.environ/KEY_A}
  - model_name: b
    litellm_params: {model: gemini/gemini-2.5-pro, api_key: os.environ/KEY_B}
`, []string{"KEY_A is not set", "KEY_B is not set"}},
		{"no key and no default variable", "model_list:\n  - model_name: m\n    litellm_params: {model: groq/llama}\n",
			[]string{"litellm_params.api_key: not given, and GROQ_API_KEY is not set"}},
		{"azure without api_base", "model_list:\n  - model_name: m\n    litellm_params: {model: azure/d, api_key: k}\n",
			[]string{"azure/ needs api_base"}},
		{"bedrock without region", "model_list:\n  - model_name: m\n    litellm_params: {model: bedrock/amazon.nova-lite-v1:0, aws_access_key_id: a, aws_secret_access_key: s}\n",
			[]string{"aws_region_name: not given"}},
		{"vertex key file missing", "model_list:\n  - model_name: m\n    litellm_params: {model: vertex_ai/gemini-2.5-pro, vertex_project: p, vertex_credentials: testdata/nope.json}\n",
			[]string{"vertex_credentials: read the service account key file"}},
		{"vertex credentials not JSON", "model_list:\n  - model_name: m\n    litellm_params: {model: vertex_ai/gemini-2.5-pro, vertex_project: p, vertex_credentials: '{not json'}\n",
			[]string{"vertex_credentials: not a service account key"}},
		{"rpm not a number", "model_list:\n  - model_name: m\n    litellm_params: {model: openai/x, api_key: k, rpm: lots}\n",
			[]string{"litellm_params.rpm: want a number"}},
		{"order past the last tier", "model_list:\n  - model_name: m\n    litellm_params: {model: openai/x, api_key: k, order: 1001}\n",
			[]string{"litellm_params.order: want a whole number of at most 1000 (the gateway's last tier), got 1001"}},
		{"fallbacks not a list", "model_list: []\nrouter_settings:\n  fallbacks: 3\n",
			[]string{"router_settings.fallbacks: want a list"}},
		{"no model_list", "router_settings: {num_retries: 2}\n", []string{"no model_list"}},
		{"not YAML", "model_list: [\n", []string{"not a LiteLLM config.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadConfig([]byte(tt.config), getenvOf(nil), os.ReadFile)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestImportPlanTiersAndLimits: LiteLLM's order becomes the tier, an entry
// without one going after those with one in its pool (LiteLLM routes it only
// while they are out), and a limit of 0, which the gateway does not take,
// is listed rather than sent.
func TestImportPlanTiersAndLimits(t *testing.T) {
	config := `model_list:
  - model_name: tiered
    litellm_params: {model: openai/unordered, api_key: k}
  - model_name: tiered
    litellm_params: {model: openai/second, api_key: k, order: 2}
  - model_name: tiered
    litellm_params: {model: openai/first, api_key: k, order: 1, rpm: 0}
  - model_name: flat
    litellm_params: {model: openai/flat, api_key: k, tpm: 5000}
    rpm: 0
  - model_name: last
    litellm_params: {model: openai/at-the-end, api_key: k, order: 1000}
  - model_name: last
    litellm_params: {model: openai/after-it, api_key: k}
`
	plan, err := ReadConfig([]byte(config), getenvOf(nil), os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range plan.Entries {
		got = append(got, jsonOf(t, e.Body))
	}
	want := []string{
		`{"priority":3,"public_name":"tiered","upstream_model":"unordered"}`,
		`{"priority":2,"public_name":"tiered","upstream_model":"second"}`,
		`{"priority":1,"public_name":"tiered","upstream_model":"first"}`,
		`{"public_name":"flat","tpm_limit":5000,"upstream_model":"flat"}`,
		`{"priority":1000,"public_name":"last","upstream_model":"at-the-end"}`,
		`{"priority":1000,"public_name":"last","upstream_model":"after-it"}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("entries\n got %s\nwant %s", got, want)
	}
	wantUnmapped := []string{
		"model_list[2] (tiered): litellm_params.rpm: 0 lets no request through, and the gateway's limits are 1 or more (null is no limit): disable the entry to keep it out",
		"model_list[3] (flat): rpm: 0 lets no request through, and the gateway's limits are 1 or more (null is no limit): disable the entry to keep it out",
	}
	if !slices.Equal(plan.Unmapped, wantUnmapped) {
		t.Errorf("unmapped\n got %q\nwant %q", plan.Unmapped, wantUnmapped)
	}
}
