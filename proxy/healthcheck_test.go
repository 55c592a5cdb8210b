package proxy_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"gateway/models"
	"gateway/proxy"
)

// failingUpstream answers every request with status and an OpenAI-shaped
// error whose message quotes the key it was sent, as OpenAI's 401 does.
func failingUpstream(t *testing.T, status int) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s. Or the server broke.","type":"server_error","code":null}}`,
			strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	}))
	t.Cleanup(s.Close)
	return s
}

// closedURL is a URL where nothing listens.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	l.Close()
	return url
}

// TestCheckPool: one pool with members of every kind; each is called in its
// own protocol (or not at all) and reported as it answered.
func TestCheckPool(t *testing.T) {
	e := newEnv(t, proxy.Options{})
	an := newFakeAnthropic(t)
	anthropicID := e.addProvider("anthropic-main", models.APITypeAnthropic, an.URL)
	brokenID := e.addProvider("broken-openai", models.APITypeOpenAI, failingUpstream(t, 500).URL+"/v1")
	refusingID := e.addProvider("refusing-anthropic", models.APITypeAnthropic, failingUpstream(t, 401).URL)
	downID := e.addProvider("down", models.APITypeOpenAI, closedURL(t)+"/v1")
	badID := e.addProvider("bad-url", models.APITypeOpenAI, "ftp://nowhere")

	ids := map[string]int64{
		"openai ok":     e.addDeployment(models.Deployment{PublicName: "pool", UpstreamModel: "gpt-up"}),
		"anthropic ok":  e.addDeployment(models.Deployment{PublicName: "pool", UpstreamModel: "claude-up", ProviderID: anthropicID}),
		"500":           e.addDeployment(models.Deployment{PublicName: "pool", UpstreamModel: "m", ProviderID: brokenID}),
		"401":           e.addDeployment(models.Deployment{PublicName: "pool", UpstreamModel: "m", ProviderID: refusingID}),
		"unreachable":   e.addDeployment(models.Deployment{PublicName: "pool", UpstreamModel: "m", ProviderID: downID}),
		"misconfigured": e.addDeployment(models.Deployment{PublicName: "pool", UpstreamModel: "m", ProviderID: badID}),
		"other pool":    e.addDeployment(models.Deployment{PublicName: "other", UpstreamModel: "o"}),
	}
	disabled := &models.Deployment{PublicName: "pool", ProviderID: e.providerID, UpstreamModel: "disabled-up"}
	if err := e.store.CreateDeployment(context.Background(), disabled); err != nil {
		t.Fatal(err)
	}
	e.reload()

	results, ok := e.proxy.CheckPool(context.Background(), "pool")
	if !ok {
		t.Fatal("CheckPool(pool): not served")
	}
	byID := map[int64]proxy.CheckResult{}
	for _, r := range results {
		byID[r.DeploymentID] = r
	}
	if len(results) != 6 || len(byID) != 6 {
		t.Fatalf("got %d results for %d members, want one per enabled member (6): %+v", len(results), len(byID), results)
	}
	if _, ok := byID[disabled.ID]; ok {
		t.Error("the disabled member was checked")
	}
	for _, tc := range []struct {
		member string
		ok     bool
		err    string // a part of Err
	}{
		{"openai ok", true, ""},
		{"anthropic ok", true, ""},
		{"500", false, "HTTP 500: Incorrect API key provided: sk-…. Or the server broke."},
		{"401", false, "HTTP 401: Incorrect API key provided:"},
		{"unreachable", false, "connection refused"},
		{"misconfigured", false, "provider is misconfigured: base URL"},
	} {
		got := byID[ids[tc.member]]
		if got.OK != tc.ok || !strings.Contains(got.Err, tc.err) || got.Skipped {
			t.Errorf("%s: got %+v, want ok=%v and an error containing %q", tc.member, got, tc.ok, tc.err)
		}
		if tc.ok && got.Err != "" {
			t.Errorf("%s: ok with error %q", tc.member, got.Err)
		}
		if strings.Contains(got.Err, upstreamKey) || strings.Contains(got.Err, upstreamKey[:12]) {
			t.Errorf("%s: the provider key is in the result: %q", tc.member, got.Err)
		}
	}
	if r := byID[ids["openai ok"]]; r.Latency <= 0 {
		t.Errorf("a check that was answered has latency %v", r.Latency)
	}

	// Each upstream got a 1-token request in its own protocol, with its key.
	req := e.up.last(t)
	if req.Path != "/v1/chat/completions" || req.Header.Get("Authorization") != "Bearer "+upstreamKey {
		t.Errorf("openai check: path %q, Authorization %q", req.Path, req.Header.Get("Authorization"))
	}
	if req.Body["model"] != "gpt-up" || req.Body["max_tokens"] != 1.0 {
		t.Errorf("openai check body = %s", req.Raw)
	}
	areq := an.last(t)
	if areq.Path != "/v1/messages" || areq.Header.Get("X-Api-Key") != upstreamKey ||
		areq.Header.Get("Anthropic-Version") != "2023-06-01" || areq.Header.Get("Authorization") != "" {
		t.Errorf("anthropic check: path %q, headers %v", areq.Path, areq.Header)
	}
	if areq.Body["model"] != "claude-up" || areq.Body["max_tokens"] != 1.0 || areq.Body["messages"] == nil {
		t.Errorf("anthropic check body = %s", areq.Raw)
	}
	if n := e.up.count(); n != 1 {
		t.Errorf("the openai upstream got %d requests, want 1 (other pools and disabled members are not checked)", n)
	}

	// A check is not traffic: no statistics, no cooldown.
	for _, st := range e.proxy.Stats() {
		if st.Requests != 0 {
			t.Errorf("deployment %d counts %d requests after a check", st.ID, st.Requests)
		}
	}
	members, _ := e.proxy.PoolStatus("pool", nil)
	for _, m := range members.Members {
		if m.CoolingDown {
			t.Errorf("member %d cools down after a failed check", m.ID)
		}
	}
}

// TestCheckPoolWildcard: a member whose upstream model is a pattern is not
// called; one with a fixed upstream model is.
func TestCheckPoolWildcard(t *testing.T) {
	e := newEnv(t, proxy.Options{})
	star := e.addDeployment(models.Deployment{PublicName: "wild/*", UpstreamModel: "prefix-*"})
	fixed := e.addDeployment(models.Deployment{PublicName: "wild/*", UpstreamModel: "gpt-fixed"})
	e.reload()
	results, ok := e.proxy.CheckPool(context.Background(), "wild/*")
	if !ok || len(results) != 2 {
		t.Fatalf("CheckPool(wild/*) = %+v, %v", results, ok)
	}
	for _, r := range results {
		switch r.DeploymentID {
		case star:
			if !r.Skipped || r.OK || !strings.Contains(r.Err, "wildcard pattern") {
				t.Errorf("pattern member: %+v, want skipped with a reason", r)
			}
		case fixed:
			if !r.OK || r.Skipped {
				t.Errorf("fixed member: %+v, want ok", r)
			}
		}
	}
	if got := e.up.last(t).Body["model"]; got != "gpt-fixed" || e.up.count() != 1 {
		t.Errorf("upstream got model %v in %d requests, want gpt-fixed once", got, e.up.count())
	}
}

func TestCheckPoolUnknown(t *testing.T) {
	e := newEnv(t, proxy.Options{})
	if _, ok := e.proxy.CheckPool(context.Background(), "nope"); ok {
		t.Error("CheckPool before any reload: ok")
	}
	e.addDeployment(models.Deployment{PublicName: "wild/*", UpstreamModel: "*"})
	e.reload()
	for _, name := range []string{"nope", "wild/x"} {
		if _, ok := e.proxy.CheckPool(context.Background(), name); ok {
			t.Errorf("CheckPool(%q): ok, want not served (only exact names, patterns included)", name)
		}
	}
	if e.up.count() != 0 {
		t.Error("an unknown pool called the upstream")
	}
}

// TestCheckPoolReasoningModel: an OpenAI reasoning model refuses max_tokens
// and names max_completion_tokens; the check asks again with that field.
func TestCheckPoolReasoningModel(t *testing.T) {
	e := newEnv(t, proxy.Options{})
	e.up.setRespond(func(w http.ResponseWriter, r *http.Request, req upstreamRequest) {
		if _, ok := req.Body["max_tokens"]; ok && req.Body["model"] == "gpt-5" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}}`)
			return
		}
		writeFakeCompletion(w, req)
	})
	e.addDeployment(models.Deployment{PublicName: "reasoning", UpstreamModel: "gpt-5"})
	e.addDeployment(models.Deployment{PublicName: "reasoning", UpstreamModel: "gpt-4o"})
	e.reload()
	results, ok := e.proxy.CheckPool(context.Background(), "reasoning")
	if !ok || len(results) != 2 || !results[0].OK || !results[1].OK {
		t.Fatalf("results = %+v", results)
	}
	if n := e.up.count(); n != 3 {
		t.Errorf("upstream got %d requests, want 3 (gpt-5 twice)", n)
	}
	e.up.mu.Lock()
	defer e.up.mu.Unlock()
	retried := false
	for _, req := range e.up.reqs {
		_, hasMax := req.Body["max_tokens"]
		retried = retried || req.Body["model"] == "gpt-5" && req.Body["max_completion_tokens"] == 1.0 && !hasMax
	}
	if !retried {
		t.Error("no gpt-5 request with max_completion_tokens: 1 alone")
	}
}
