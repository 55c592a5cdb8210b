package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"gateway/cmd/gateway/litellm"
	"gateway/models"
	"gateway/models/dbtest"
)

// gatewayState is what the management API lists, as the importer's tests
// read it back.
type gatewayState struct {
	providers, entries, pools []map[string]any
	fallbacks                 []litellm.Fallback
}

func readState(t *testing.T, g *Gateway) gatewayState {
	t.Helper()
	var s gatewayState
	for _, get := range []struct {
		path string
		out  any
	}{{"/api/providers", &s.providers}, {"/api/models", &s.entries}, {"/api/pools", &s.pools}, {"/api/fallbacks", &s.fallbacks}} {
		status, b := api(t, g, "GET", get.path, nil)
		if status != http.StatusOK || json.Unmarshal(b, get.out) != nil {
			t.Fatalf("GET %s: %d %s", get.path, status, b)
		}
	}
	return s
}

func (s gatewayState) String() string {
	b, _ := json.Marshal(map[string]any{"providers": s.providers, "entries": s.entries, "pools": s.pools, "fallbacks": s.fallbacks})
	return string(b)
}

// TestImportLiteLLMIntoGateway imports testdata/litellm/live.yaml into a
// running gateway: a missing variable writes nothing, --dry-run writes
// nothing, the import creates what the file describes (read back through
// the API) and a second run creates nothing.
func TestImportLiteLLMIntoGateway(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dsn, dataDir string) {
		g, _ := startGateway(t, testConfig(dsn, dataDir))
		env := liveEnv()
		env["GATEWAY_ADMIN_URL"] = "http://" + g.AdminAddr()
		env["GATEWAY_MASTER_KEY"] = testMasterKey
		// An admin's anthropic provider with the same settings is reused; a
		// deepseek provider elsewhere is kept, and the import's is deepseek-2.
		mustAPI(t, g, "POST", "/api/providers", map[string]any{"name": "anthropic", "api_type": "anthropic",
			"base_url": "https://api.anthropic.com", "api_key": env["ANTHROPIC_API_KEY"]}, http.StatusCreated)
		mustAPI(t, g, "POST", "/api/providers", map[string]any{"name": "deepseek", "api_type": "openai",
			"base_url": "https://deepseek.internal/v1", "api_key": "sk-other-deepseek-key"}, http.StatusCreated)
		const file = "testdata/litellm/live.yaml"
		before := readState(t, g)

		t.Run("missing variable", func(t *testing.T) {
			short := maps.Clone(env)
			delete(short, "GROQ_API_KEY")
			r := cli(short, "import", "litellm", file)
			r.wantErr(t, "model_list[4] (llama-70b): litellm_params.api_key: environment variable GROQ_API_KEY is not set")
			r.wantErr(t, "nothing was changed")
			if after := readState(t, g); after.String() != before.String() {
				t.Errorf("the gateway changed:\n%s\nwas\n%s", after, before)
			}
		})

		t.Run("dry run", func(t *testing.T) {
			r := cli(env, "import", "litellm", file, "--dry-run")
			r.wantOK(t, "would create  openai ", "would create  openai-2 ", "exists        anthropic ",
				"would create  deepseek-2 ", "would set  gpt-4o ", "Dry run, nothing was changed")
			for _, secret := range []string{env["OPENAI_API_KEY"], env["GROQ_API_KEY"], "sk-local-0000000000"} {
				if strings.Contains(r.stdout, secret) {
					t.Errorf("the dry run printed a secret %q:\n%s", secret, r.stdout)
				}
			}
			if after := readState(t, g); after.String() != before.String() {
				t.Errorf("the dry run changed the gateway:\n%s", after)
			}
		})

		t.Run("import", func(t *testing.T) {
			r := cli(env, "import", "litellm", file)
			r.wantOK(t, "created  openai ", "Not mapped",
				"model_list[0] (gpt-4o): model_info.id",
				"model_list[2] (claude-sonnet): litellm_params.max_budget",
				"model_list[7] (command-r): cohere/command-r-plus not imported",
				"router_settings.redis_host", "litellm_settings.drop_params", "general_settings.master_key",
				"Created 5 providers and 7 model entries; set 5 pool settings and 4 fallback lists.")
			wantImported(t, readState(t, g), r.stdout)
			// Every write of the import is in the audit log, as the master
			// key's through the importer, and no key of the file is.
			es, err := g.Store.ListAudit(context.Background(), models.AuditFilter{Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, e := range es {
				if e.Via == "import litellm" && e.Actor == models.ActorMasterKey {
					n++
				}
				for _, secret := range []string{env["OPENAI_API_KEY"], env["GROQ_API_KEY"], env["ANTHROPIC_API_KEY"]} {
					if strings.Contains(e.Before+e.After, secret) {
						t.Errorf("a secret in the audit log: %s %s", e.Kind, e.Name)
					}
				}
			}
			if n != 5+7+5+4 {
				t.Errorf("%d audit entries by the importer, want 21 (5 providers, 7 entries, 5 pools, 4 fallback lists)", n)
			}
		})

		t.Run("second run", func(t *testing.T) {
			imported := readState(t, g)
			for _, args := range [][]string{{"--dry-run"}, {}} {
				r := cli(env, append([]string{"import", "litellm", file}, args...)...)
				r.wantOK(t, "Nothing new: the gateway already has everything this file describes.")
				if strings.Contains(r.stdout, "created") || strings.Contains(r.stdout, "would") {
					t.Errorf("%v: a second run writes:\n%s", args, r.stdout)
				}
			}
			if after := readState(t, g); after.String() != imported.String() {
				t.Errorf("the second run changed the gateway:\n%s\nwas\n%s", after, imported)
			}
		})
	})
}

// wantImported checks the gateway's state after importing live.yaml.
func wantImported(t *testing.T, s gatewayState, report string) {
	t.Helper()
	providers := map[string]string{}
	for _, p := range s.providers {
		providers[fmt.Sprint(p["name"])] = fmt.Sprintf("%s %s %s", p["api_type"], p["base_url"], p["api_key_last4"])
	}
	wantProviders := map[string]string{
		"openai":               "openai https://api.openai.com/v1 0001",
		"openai-2":             "openai https://api.openai.com/v1 0002",
		"anthropic":            "anthropic https://api.anthropic.com 0004",
		"groq":                 "openai https://api.groq.com/openai/v1 0010",
		"deepseek":             "openai https://deepseek.internal/v1 -key",
		"deepseek-2":           "openai https://api.deepseek.com/v1 0009",
		"openai-vllm.internal": "openai http://vllm.internal:8000/v1 0000",
	}
	if fmt.Sprint(providers) != fmt.Sprint(wantProviders) {
		t.Errorf("providers\n got %v\nwant %v", providers, wantProviders)
	}

	if strings.Contains(report, "Not applied") {
		t.Errorf("the report says something was not applied:\n%s", report)
	}
	tests := []struct {
		public, provider, upstream string
		want                       map[string]any // fields of GET /api/models
	}{
		// openai has no order beside openai-2's 2: LiteLLM serves it only
		// while openai-2 is out, the tier after.
		{"gpt-4o", "openai", "gpt-4o", map[string]any{"weight": 3.0, "timeout_seconds": 120.0, "cooldown_seconds": nil,
			"input_price": 2.5, "output_price": 10.0, "cache_read_price": 1.25, "context_window": 128000.0,
			"rpm_limit": 500.0, "tpm_limit": nil, "priority": 3.0}},
		{"gpt-4o", "openai-2", "gpt-4o", map[string]any{"weight": 1.0, "cooldown_seconds": nil, "context_window": nil,
			"rpm_limit": nil, "priority": 2.0}},
		{"claude-sonnet", "anthropic", "claude-sonnet-4-5", map[string]any{"weight": nil, "cooldown_seconds": nil, "priority": 0.0,
			"input_price": nil, "cache_write_price": 3.75, "cache_write_1h_price": 6.0, "long_context_threshold": 200000.0,
			"long_input_price": 6.0, "long_cache_write_1h_price": 12.0, "long_output_price": nil}},
		{"claude-sonnet", "anthropic", "claude-haiku-4-5", map[string]any{"weight": 0.0}},
		{"llama-70b", "groq", "llama-3.3-70b-versatile", map[string]any{"enabled": true, "rpm_limit": nil, "tpm_limit": nil}},
		// No price in the file: unset, the catalog's (it has none for DeepSeek).
		{"deepseek-chat", "deepseek-2", "deepseek-chat", map[string]any{"input_price": nil, "output_price": nil}},
		{"local-llama", "openai-vllm.internal", "llama-3.1-8b-instruct", map[string]any{"timeout_seconds": nil}},
	}
	if len(s.entries) != len(tests) {
		t.Errorf("%d model entries, want %d", len(s.entries), len(tests))
	}
	for _, tt := range tests {
		i := slices.IndexFunc(s.entries, func(e map[string]any) bool {
			return e["public_name"] == tt.public && e["provider"] == tt.provider && e["upstream_model"] == tt.upstream
		})
		if i < 0 {
			t.Errorf("no entry %s → %s %s", tt.public, tt.provider, tt.upstream)
			continue
		}
		for k, v := range tt.want {
			if got, ok := s.entries[i][k]; !ok || fmt.Sprint(got) != fmt.Sprint(v) {
				t.Errorf("%s → %s %s: %s = %v, want %v", tt.public, tt.provider, tt.upstream, k, got, v)
			}
		}
	}

	if len(s.pools) != 5 {
		t.Errorf("%d pools with settings, want 5: %v", len(s.pools), s.pools)
	}
	for _, p := range s.pools {
		if p["num_retries"] != 3.0 || p["allowed_fails"] != 2.0 || p["sticky_ttl_seconds"] != nil || p["routing_strategy"] != "least-busy" {
			t.Errorf("pool %v, want num_retries 3, allowed_fails 2, no sticky TTL, routing_strategy least-busy", p)
		}
	}

	got := jsonOfAny(s.fallbacks)
	want := `[{"public_name":"*","kind":"general","targets":["deepseek-chat"]},` +
		`{"public_name":"claude-sonnet","kind":"content_policy","targets":["gpt-4o","deepseek-chat"]},` +
		`{"public_name":"gpt-4o","kind":"context_window","targets":["llama-70b"]},` +
		`{"public_name":"gpt-4o","kind":"general","targets":["claude-sonnet"]}]`
	if got != want {
		t.Errorf("fallbacks\n got %s\nwant %s", got, want)
	}
}

// TestImportLiteLLMFailedWrite: a write the gateway refuses is reported
// and the exit status says so, while the rest goes on.
func TestImportLiteLLMFailedWrite(t *testing.T) {
	g, _ := startGateway(t, testConfig("", t.TempDir()))
	file := t.TempDir() + "/config.yaml"
	config := `model_list:
  - model_name: solo
    litellm_params: {model: openai/gpt-4o-mini, api_key: sk-solo-000000000001}
router_settings:
  fallbacks: [{solo: [solo]}]
`
	if err := os.WriteFile(file, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"GATEWAY_ADMIN_URL": "http://" + g.AdminAddr(), "GATEWAY_MASTER_KEY": testMasterKey}
	r := cli(env, "import", "litellm", file)
	r.wantErr(t, "import: 1 writes failed")
	for _, w := range []string{"created  solo", "failed  solo  general  → solo", "cannot fall back to itself"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("report does not say %q:\n%s", w, r.stdout)
		}
	}
	if s := readState(t, g); len(s.entries) != 1 || len(s.fallbacks) != 0 {
		t.Errorf("want the entry and no fallbacks: %s", s)
	}
}

// olderGateway fakes the management API of a gateway from before tiers,
// limits and strategies: it refuses those fields as unknown, as the API
// refuses any field it does not have, and records what it was sent.
type olderGateway struct {
	*httptest.Server
	mu     sync.Mutex
	writes []string // "METHOD path body"
}

func newOlderGateway(t *testing.T) *olderGateway {
	t.Helper()
	g := &olderGateway{}
	refuse := func(w http.ResponseWriter, body map[string]any, fields ...string) bool {
		for _, f := range fields {
			if _, ok := body[f]; ok {
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprintf(w, `{"error":{"message":"%s: unknown field"}}`, f)
				return true
			}
		}
		return false
	}
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodGet {
			if r.URL.Path == "/api/models" {
				// An entry of before: its answer has none of the newer fields.
				io.WriteString(w, `[{"id":7,"public_name":"old","provider":"elsewhere","upstream_model":"old","weight":null}]`)
				return
			}
			io.WriteString(w, "[]")
			return
		}
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		switch {
		case r.URL.Path == "/api/models" && refuse(w, body, "rpm_limit", "tpm_limit", "priority"):
			return
		case strings.HasPrefix(r.URL.Path, "/api/pools/") && refuse(w, body, "routing_strategy"):
			return
		}
		g.mu.Lock()
		g.writes = append(g.writes, r.Method+" "+r.URL.Path+" "+jsonOfAny(body))
		g.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"id":1}`)
	}))
	t.Cleanup(g.Close)
	return g
}

// liveEnv is the environment testdata/litellm/live.yaml reads with
// os.environ/.
func liveEnv() map[string]string {
	return map[string]string{
		"OPENAI_API_KEY":        "sk-openai-primary-0001",
		"OPENAI_API_KEY_BACKUP": "sk-openai-backup-0002",
		"ANTHROPIC_API_KEY":     "sk-ant-key-000000004",
		"DEEPSEEK_API_KEY":      "sk-deepseek-00000009",
		"GROQ_API_KEY":          "gsk-groq-0000000010",
	}
}

func jsonOfAny(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestImportLiteLLMOlderGateway: a gateway that does not take the newer
// fields yet gets everything else, and the report lists what it left out:
// the entry's fields known from its answers, the pool's learnt from its
// refusal.
func TestImportLiteLLMOlderGateway(t *testing.T) {
	g := newOlderGateway(t)
	file := t.TempDir() + "/config.yaml"
	config := `model_list:
  - model_name: m
    litellm_params: {model: openai/gpt-4o-mini, api_key: sk-solo-000000000001, rpm: 60, order: 1}
router_settings:
  routing_strategy: latency-based-routing
  num_retries: 1
`
	if err := os.WriteFile(file, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	r := cli(map[string]string{"GATEWAY_ADMIN_URL": g.URL, "GATEWAY_MASTER_KEY": testMasterKey}, "import", "litellm", file)
	r.wantOK(t, "Not applied (this gateway does not take these fields yet):\n",
		"  priority: m → openai gpt-4o-mini (1)\n", "  routing_strategy: pool m (latency-based)\n",
		"  rpm_limit: m → openai gpt-4o-mini (60)\n", "Created 1 providers and 1 model entries; set 1 pool settings")
	g.mu.Lock()
	defer g.mu.Unlock()
	want := []string{
		`POST /api/providers {"api_key":"sk-solo-000000000001","api_type":"openai","base_url":"https://api.openai.com/v1","name":"openai"}`,
		`POST /api/models {"provider_id":1,"public_name":"m","upstream_model":"gpt-4o-mini"}`,
		`PUT /api/pools/m {"num_retries":1}`,
	}
	if !slices.Equal(g.writes, want) {
		t.Errorf("writes\n got %q\nwant %q", g.writes, want)
	}
}
