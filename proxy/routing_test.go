package proxy_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/option"

	"gateway/models"
	"gateway/proxy"
)

func TestWildcardRoutes(t *testing.T) {
	e := newEnv(t, proxy.Options{})
	for _, d := range []models.Deployment{
		{PublicName: "openai/*", UpstreamModel: "*"},
		{PublicName: "openai/o1-*", UpstreamModel: "reasoning-*"},
		{PublicName: "openai/gpt-special", UpstreamModel: "special-upstream"},
		{PublicName: "fixed/*", UpstreamModel: "always-this"},
	} {
		e.addDeployment(d)
	}
	e.reload()
	for _, tc := range []struct {
		model, wantUpstream string
	}{
		{"openai/gpt-4o", "gpt-4o"},                   // '*' takes the matched part
		{"openai/o1-mini", "reasoning-mini"},          // the longest prefix wins
		{"openai/gpt-special", "special-upstream"},    // an explicit entry wins over wildcards
		{"fixed/anything", "always-this"},             // no '*' upstream: used as is
		{"openai/nested/name:tag", "nested/name:tag"}, // the whole rest, slashes included
	} {
		t.Run(tc.model, func(t *testing.T) {
			var resp *http.Response
			if _, err := e.client().Chat.Completions.New(context.Background(), userMessage(tc.model), option.WithResponseInto(&resp)); err != nil {
				t.Fatal(err)
			}
			if got := e.up.last(t).Body["model"]; got != tc.wantUpstream {
				t.Errorf("upstream model: got %v, want %q", got, tc.wantUpstream)
			}
			if got := resp.Header.Get("X-Gateway-Upstream-Model"); got != tc.wantUpstream {
				t.Errorf("x-gateway-upstream-model: got %q, want %q", got, tc.wantUpstream)
			}
		})
	}
	for _, model := range []string{"openai/", "other/gpt-4o", "openai"} {
		t.Run("unknown "+model, func(t *testing.T) {
			resp, body := e.post("/v1/chat/completions", e.key, strings.NewReader(chatBody(model, false)))
			if resp.StatusCode != http.StatusNotFound {
				t.Fatalf("status: got %d, want 404: %s", resp.StatusCode, body)
			}
			mustContain(t, "message", decodeError(t, body).Error.Message, "no healthy deployments for this model")
		})
	}
}

func TestReloadServesNewDeployment(t *testing.T) {
	e := newEnv(t, proxy.Options{})
	e.reload()
	if resp, body := e.post("/v1/chat/completions", e.key, strings.NewReader(chatBody("late-model", false))); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("before reload: got %d, want 404: %s", resp.StatusCode, body)
	}
	e.addDeployment(models.Deployment{PublicName: "late-model", UpstreamModel: "late-upstream"})
	e.reload()
	resp, body := e.post("/v1/chat/completions", e.key, strings.NewReader(chatBody("late-model", false)))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("after reload: got %d: %s", resp.StatusCode, body)
	}
	if got := e.up.last(t).Body["model"]; got != "late-upstream" {
		t.Errorf("upstream model: got %v", got)
	}
}

func TestDisabledPoolHasNoDeployments(t *testing.T) {
	e := newEnv(t, proxy.Options{})
	id := e.addDeployment(models.Deployment{PublicName: "parked", UpstreamModel: "x"})
	if _, err := e.store.UpdateDeployment(context.Background(), id, func(d *models.Deployment) error {
		d.Enabled = false
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.reload()
	resp, body := e.post("/v1/chat/completions", e.key, strings.NewReader(chatBody("parked", false)))
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("status: got %d, want 404: %s", resp.StatusCode, body)
	}
	mustContain(t, "message", decodeError(t, body).Error.Message, "no healthy deployments for this model")
	if e.up.count() != 0 {
		t.Error("a disabled member was called")
	}
}

func TestListModels(t *testing.T) {
	e := newEnv(t, proxy.Options{})
	for _, name := range []string{"gpt-b", "gpt-a", "gpt-a", "claude-x", "openai/*"} {
		e.addDeployment(models.Deployment{PublicName: name, UpstreamModel: "u"})
	}
	e.reload()
	for _, tc := range []struct {
		name    string
		allowed []string
		want    []string
	}{
		{"all models", nil, []string{"claude-x", "gpt-a", "gpt-b", "openai/*"}},
		{"allow-list", []string{"gpt-*", "openai/*"}, []string{"gpt-a", "gpt-b", "openai/*"}},
		{"exact entry", []string{"claude-x"}, []string{"claude-x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := e.addKey(tc.allowed...)
			e.reload() // a new key, like a new model, is served after a reload
			page, err := e.client(option.WithAPIKey(key)).Models.List(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range page.Data {
				got = append(got, m.ID)
				if m.Object != "model" || m.OwnedBy != "gateway" || m.Created == 0 {
					t.Errorf("entry %+v: want object model, owned_by gateway, created set", m)
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("models: got %v, want %v", got, tc.want)
			}
		})
	}
	t.Run("no key", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, e.gw.URL+"/v1/models", nil)
		if resp, body := e.do(req); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("status: got %d, want 401: %s", resp.StatusCode, body)
		}
	})
}

func TestHealthAndRoot(t *testing.T) {
	e := newEnv(t, proxy.Options{})
	get := func(method, path string) int {
		t.Helper()
		req, err := http.NewRequest(method, e.gw.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, _ := e.do(req)
		return resp.StatusCode
	}
	if got := get(http.MethodGet, "/health/readiness"); got != http.StatusServiceUnavailable || e.proxy.Ready() {
		t.Errorf("readiness before the first reload: got %d, want 503", got)
	}
	if resp, body := e.post("/v1/chat/completions", e.key, strings.NewReader(chatBody("m", false))); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("chat before the first reload: got %d, want 503: %s", resp.StatusCode, body)
	}
	e.reload()
	for _, tc := range []struct {
		method, path string
		want         int
	}{
		{http.MethodGet, "/health/liveliness", 200},
		{http.MethodGet, "/health/readiness", 200},
		{http.MethodHead, "/", 200}, // Claude Code's first request, without a key
		{http.MethodGet, "/", 200},
		{http.MethodGet, "/v1/nothing-here", 404},
		{http.MethodGet, "/v1/chat/completions", 405},
		{http.MethodPost, "/health/readiness", 405},
	} {
		if got := get(tc.method, tc.path); got != tc.want {
			t.Errorf("%s %s: got %d, want %d", tc.method, tc.path, got, tc.want)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, e.gw.URL+"/v1/unknown", nil)
	resp, body := e.do(req)
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown path: got %d", resp.StatusCode)
	}
	if got := decodeError(t, body); got.Error.Code != "unknown_url" {
		t.Errorf("unknown path code: got %q", got.Error.Code)
	}
}

func TestChatWithoutV1Prefix(t *testing.T) {
	e := newEnv(t, proxy.Options{})
	e.addDeployment(models.Deployment{PublicName: "m", UpstreamModel: "u"})
	e.reload()
	resp, body := e.post("/chat/completions", e.key, strings.NewReader(chatBody("m", false)))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status: got %d: %s", resp.StatusCode, body)
	}
	var got struct{ Model string }
	if err := json.Unmarshal(body, &got); err != nil || got.Model != "u" {
		t.Errorf("body: %s (%v)", body, err)
	}
}
