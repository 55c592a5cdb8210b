package proxy

import (
	"context"
	"net/http"
	"testing"
	"time"

	"gateway/models"
	"gateway/models/dbtest"
)

func TestKeyAllows(t *testing.T) {
	k := &virtualKey{models: []string{"gpt-4o", "anthropic/*"}}
	for model, want := range map[string]bool{
		"gpt-4o": true, "gpt-4o-mini": false, "anthropic/claude": true, "anthropic/*": true, "anthropic": false, "other": false,
	} {
		if got := k.allows(model); got != want {
			t.Errorf("%s: got %v, want %v", model, got, want)
		}
	}
	if !(&virtualKey{}).allows("anything") {
		t.Error("an empty allow-list must allow every model")
	}
}

// TestReloadKeepsTransportsAndState: a reload keeps a provider's transport
// while its base URL is unchanged, and members' runtime state always.
func TestReloadKeepsTransportsAndState(t *testing.T) {
	ctx := context.Background()
	store := dbtest.MustOpenStore(t, "", t.TempDir())
	s := New(store, Options{})
	t.Cleanup(func() { s.Close(ctx) })
	p := &models.Provider{Name: "p", APIType: models.APITypeOpenAI, BaseURL: "http://127.0.0.1:1/v1"}
	if err := store.CreateProvider(ctx, p, models.ProviderSecrets{APIKey: "sk-provider"}); err != nil {
		t.Fatal(err)
	}
	d := &models.Deployment{PublicName: "m", ProviderID: p.ID, UpstreamModel: "u", Enabled: true}
	if err := store.CreateDeployment(ctx, d); err != nil {
		t.Fatal(err)
	}
	member := func() *member {
		t.Helper()
		if err := s.Reload(ctx); err != nil {
			t.Fatal(err)
		}
		return s.snap.Load().poolNamed("m").members[0]
	}
	first := member()
	first.state.coolDown(time.Now(), time.Hour, "test")
	second := member()
	if second.provider.client.Transport() != first.provider.client.Transport() {
		t.Error("an unchanged provider got a new transport")
	}
	if second.state != first.state || !second.state.coolingDown(time.Now()) {
		t.Error("runtime state was lost in a reload")
	}
	if _, err := store.UpdateProvider(ctx, p.ID, models.ProviderSecrets{}, func(p *models.Provider) error {
		p.BaseURL = "http://127.0.0.1:2/v1"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if third := member(); third.provider.client.Transport() == first.provider.client.Transport() {
		t.Error("a provider with a new base URL kept its old transport")
	}
}

func TestRouteLookup(t *testing.T) {
	snap := buildSnapshot(snapshotData{deployments: []models.Deployment{
		{ID: 1, PublicName: "a/*", UpstreamModel: "*", Enabled: true},
		{ID: 2, PublicName: "a/b-*", UpstreamModel: "x-*-y", Enabled: true},
		{ID: 3, PublicName: "a/b-exact", UpstreamModel: "e", Enabled: true},
		{ID: 4, PublicName: "*", UpstreamModel: "catch-*", Enabled: true},
		{ID: 5, PublicName: "off/*", UpstreamModel: "*", Enabled: false},
	}}, map[int64]*provider{}, newMemberStates())
	for model, want := range map[string]string{
		"a/gpt":     "gpt",
		"a/b-1":     "x-1-y",
		"a/b-exact": "e",
		"zzz":       "catch-zzz",
		"off/m":     "catch-off/m", // a disabled wildcard is no route: the catch-all takes it
	} {
		rt, ok := snap.route(model)
		if !ok {
			t.Errorf("%s: no route", model)
			continue
		}
		if got := rt.pool.members[0].upstreamModelFor(rt); got != want {
			t.Errorf("%s: upstream %q, want %q", model, got, want)
		}
	}
}

func TestKeyByHashMatchesModels(t *testing.T) {
	secret, err := models.NewKeySecret()
	if err != nil {
		t.Fatal(err)
	}
	want := &virtualKey{id: 7}
	snap := &snapshot{keys: map[string]*virtualKey{models.HashKey(secret): want}}
	if got, ok := snap.keyByHash(secret); !ok || got != want {
		t.Error("keyByHash does not find a key stored under models.HashKey")
	}
	if _, ok := snap.keyByHash(secret + "x"); ok {
		t.Error("keyByHash found a wrong secret")
	}
}

func BenchmarkAuthenticate(b *testing.B) {
	keys := make([]models.VirtualKey, 10_000)
	secrets := make([]string, len(keys))
	for i := range keys {
		secret, err := models.NewKeySecret()
		if err != nil {
			b.Fatal(err)
		}
		secrets[i] = secret
		keys[i] = models.VirtualKey{ID: int64(i + 1), KeyHash: models.HashKey(secret), Models: models.StringList{"gpt-*"}}
	}
	snap := buildSnapshot(snapshotData{keys: keys}, nil, newMemberStates())
	h := http.Header{"Authorization": {"Bearer " + secrets[len(secrets)/2]}}
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		k, err := snap.authenticate(h, now)
		if err != nil || !k.allows("gpt-4o") {
			b.Fatal(err)
		}
	}
}

func BenchmarkSelectMember(b *testing.B) {
	ms := membersWithWeights(0, 1, 9, 5)
	b.ReportAllocs()
	for b.Loop() {
		if (simpleShuffle{}).selectMember(ms) == nil {
			b.Fatal("no member")
		}
	}
}

// benchBody is a typical agent request: a system prompt, a few turns, tools.
var benchBody = []byte(`{"model":"openai/gpt-4o","stream":true,"temperature":0.2,"messages":[` +
	`{"role":"system","content":"You are a coding agent. Follow the repository's conventions and explain briefly."},` +
	`{"role":"user","content":"Please refactor the function below so that it is shorter and says why in comments.\n\nfunc f() {}"},` +
	`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"main.go\"}"}}]},` +
	`{"role":"tool","tool_call_id":"call_1","content":"package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n"},` +
	`{"role":"user","content":"Now also add a test."}],` +
	`"tools":[{"type":"function","function":{"name":"read_file","description":"Read a file","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}]}`)

func BenchmarkParseAndRewrite(b *testing.B) {
	b.SetBytes(int64(len(benchBody)))
	b.ReportAllocs()
	for b.Loop() {
		req, err := parseChatRequest(benchBody)
		if err != nil {
			b.Fatal(err)
		}
		if out := req.rewrite("gpt-4o-2024-08-06", req.stream); len(out) == 0 {
			b.Fatal("empty body")
		}
	}
}
