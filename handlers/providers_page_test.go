package handlers_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"gateway/models"
	"gateway/models/dbtest"
)

func TestProvidersPage(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		const key = "sk-provider-secret-ABCD1234wxyz"
		p := mustProvider(t, s, "openai-main", key)
		q := &models.Provider{Name: "claude", APIType: models.APITypeAnthropic, BaseURL: "https://api.anthropic.com", SupportsResponses: true}
		if err := s.CreateProvider(context.Background(), q, models.ProviderSecrets{APIKey: "short"}); err != nil {
			t.Fatal(err)
		}
		mustDeployment(t, s, &models.Deployment{PublicName: "gpt-4o", ProviderID: p.ID, UpstreamModel: "a"})
		mustDeployment(t, s, &models.Deployment{PublicName: "mini", ProviderID: p.ID, UpstreamModel: "b"})
		b := ta.browser(t)
		b.signIn()

		rec := b.get("/providers")
		wantStatus(t, "GET /providers", rec, http.StatusOK)
		wantFullPage(t, "GET /providers", rec)
		doc := parseHTML(t, rec)
		if _, ok := testid(doc, "nav-providers").Attr("aria-current"); !ok {
			t.Error("Providers is not current in the nav")
		}
		rows := testid(doc, "provider")
		if rows.Length() != 2 {
			t.Fatalf("%d provider rows, want 2", rows.Length())
		}
		first := rows.Filter(`[data-provider-id="` + strconv.FormatInt(p.ID, 10) + `"]`)
		for id, want := range map[string]string{"provider-name": "openai-main", "provider-api-type": "openai",
			"provider-base-url": "https://api.example.com/v1", "provider-key": "…wxyz", "provider-responses": "no", "provider-entries": "2"} {
			if got := text(first, id); got != want {
				t.Errorf("%s = %q, want %q", id, got, want)
			}
		}
		second := rows.Filter(`[data-provider-id="` + strconv.FormatInt(q.ID, 10) + `"]`)
		if got := text(second, "provider-key"); got != "hidden" {
			t.Errorf("a key too short to show any of = %q, want hidden", got)
		}
		if got := text(second, "provider-responses"); got != "yes" {
			t.Errorf("provider-responses = %q, want yes", got)
		}
		if strings.Contains(rec.Body.String(), key[:12]) {
			t.Error("the page shows the key")
		}
		if testid(doc, "provider-form").Length() != 1 {
			t.Error("no add form")
		}

		rec = b.do("GET", "/providers", nil, hx())
		wantStatus(t, "htmx GET /providers", rec, http.StatusOK)
		wantPartial(t, "htmx GET /providers", rec)
		if testid(parseHTML(t, rec), "provider").Length() != 2 {
			t.Error("htmx partial without the providers")
		}
	})
}

func TestAddProviderForm(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		mustProvider(t, s, "taken", "sk-provider-0000000000")
		b := ta.browser(t)
		tok := b.signIn()
		const key = "sk-typed-into-the-form-9876"

		bad := formOf(tok, "name", "", "api_type", "cohere", "base_url", "ftp://x", "api_key", key)
		rec := b.post("/providers", bad, nil)
		wantStatus(t, "invalid form", rec, http.StatusUnprocessableEntity)
		wantFullPage(t, "invalid form", rec)
		doc := parseHTML(t, rec)
		for id, want := range map[string]string{"error-name": "is required", "error-api_type": "must be one of: openai, anthropic, azure, bedrock, gemini, vertex",
			"error-base_url": "must be an absolute http:// or https:// URL, without credentials, query or fragment"} {
			if got := text(doc, id); got != want {
				t.Errorf("%s = %q, want %q", id, got, want)
			}
		}
		if v, _ := testid(doc, "input-base_url").Attr("value"); v != "ftp://x" {
			t.Errorf("typed base_url not kept: %q", v)
		}
		if strings.Contains(rec.Body.String(), key) {
			t.Error("the re-rendered form holds the typed key")
		}
		if !strings.Contains(text(doc, "provider-key-again"), "Enter the API key again") {
			t.Error("the form dropped the typed key without asking for it again")
		}

		rec = b.post("/providers", bad, hx())
		wantStatus(t, "invalid htmx form", rec, http.StatusUnprocessableEntity)
		wantPartial(t, "invalid htmx form", rec)
		if !strings.HasPrefix(strings.TrimSpace(rec.Body.String()), `<form`) || text(parseHTML(t, rec), "error-name") != "is required" {
			t.Errorf("htmx error answer is not the form with its errors:\n%s", rec.Body)
		}

		taken := formOf(tok, "name", "taken", "api_type", "openai", "base_url", "https://api.openai.com/v1", "api_key", key)
		rec = b.post("/providers", taken, nil)
		wantStatus(t, "taken name", rec, http.StatusUnprocessableEntity)
		if got := text(parseHTML(t, rec), "error-name"); got != `a provider named "taken" already exists` {
			t.Errorf("error-name = %q", got)
		}
		if ta.reloader.n.Load() != 0 {
			t.Error("a refused form reloaded the routing table")
		}

		good := formOf(tok, "name", "anthropic", "api_type", "anthropic", "base_url", "https://api.anthropic.com",
			"api_key", key, "supports_responses", "true")
		wantSeeOther(t, "valid form", b.post("/providers", good, nil), false, "/providers")
		good.Set("name", "anthropic-2")
		wantSeeOther(t, "valid htmx form", b.post("/providers", good, hx()), true, "/providers")
		if got := ta.reloader.n.Load(); got != 2 {
			t.Errorf("Reload called %d times, want 2", got)
		}
		ps, err := s.ListProviders(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) != 3 || ps[1].Name != "anthropic" || ps[1].APIType != "anthropic" || !ps[1].SupportsResponses || ps[1].APIKeyLast4 != "9876" {
			t.Fatalf("stored providers: %+v", ps)
		}
		if got, err := s.ProviderSecrets(&ps[1]); err != nil || got.APIKey != key {
			t.Errorf("stored key = %q, %v", got, err)
		}
	})
}

func TestEditProviderForm(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		const oldKey, newKey = "sk-old-provider-key-1111", "sk-new-provider-key-2222"
		p := mustProvider(t, s, "openai-main", oldKey)
		mustProvider(t, s, "other", "sk-provider-0000000000")
		id := strconv.FormatInt(p.ID, 10)
		b := ta.browser(t)
		tok := b.signIn()

		rec := b.get("/providers/" + id + "/edit")
		wantStatus(t, "GET edit", rec, http.StatusOK)
		doc := parseHTML(t, rec)
		if v, _ := testid(doc, "input-base_url").Attr("value"); v != "https://api.example.com/v1" {
			t.Errorf("edit form base_url = %q", v)
		}
		if v, _ := testid(doc, "input-api_key").Attr("value"); v != "" {
			t.Errorf("edit form shows a key: %q", v)
		}
		if ph, _ := testid(doc, "input-api_key").Attr("placeholder"); ph != "empty keeps …1111" {
			t.Errorf("key placeholder = %q", ph)
		}
		if action, _ := testid(doc, "provider-form").Attr("action"); action != "/providers/"+id {
			t.Errorf("edit form posts to %q", action)
		}
		if strings.Contains(rec.Body.String(), oldKey) {
			t.Error("the edit page shows the key")
		}
		wantStatus(t, "edit of a missing provider", b.get("/providers/999/edit"), http.StatusNotFound)

		// An empty key keeps the stored one.
		edit := formOf(tok, "name", "openai-main", "api_type", "openai", "base_url", "https://api2.example.com/v1", "api_key", "")
		wantSeeOther(t, "edit", b.post("/providers/"+id, edit, nil), false, "/providers")
		got, err := s.GetProvider(context.Background(), p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if k, _ := s.ProviderSecrets(got); got.BaseURL != "https://api2.example.com/v1" || k.APIKey != oldKey {
			t.Errorf("after edit: base %q key %+v, want the new base and the old key", got.BaseURL, k)
		}
		edit.Set("api_key", newKey)
		wantSeeOther(t, "edit with a key", b.post("/providers/"+id, edit, hx()), true, "/providers")
		got, _ = s.GetProvider(context.Background(), p.ID)
		if k, _ := s.ProviderSecrets(got); k.APIKey != newKey || got.APIKeyLast4 != "2222" {
			t.Errorf("after a new key: %+v (last4 %q)", k, got.APIKeyLast4)
		}

		edit.Set("name", "other")
		rec = b.post("/providers/"+id, edit, nil)
		wantStatus(t, "edit to a taken name", rec, http.StatusUnprocessableEntity)
		doc = parseHTML(t, rec)
		if text(doc, "error-name") != `a provider named "other" already exists` || text(doc, "edit-provider-name") != "openai-main" {
			t.Errorf("refused edit page: %s", text(doc, "content"))
		}
		if strings.Contains(rec.Body.String(), newKey) {
			t.Error("the refused edit form holds the typed key")
		}
		edit.Set("name", "")
		rec = b.post("/providers/"+id, edit, hx())
		wantStatus(t, "invalid htmx edit", rec, http.StatusUnprocessableEntity)
		wantPartial(t, "invalid htmx edit", rec)
		if text(parseHTML(t, rec), "error-name") != "is required" {
			t.Errorf("htmx edit errors: %s", rec.Body)
		}
		wantStatus(t, "edit of a missing provider", b.post("/providers/999", edit, nil), http.StatusNotFound)
	})
}

func TestDeleteProviderForm(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		used := mustProvider(t, s, "used", "sk-provider-0000000000")
		unused := mustProvider(t, s, "unused", "sk-provider-1111111111")
		mustDeployment(t, s, &models.Deployment{PublicName: "a", ProviderID: used.ID, UpstreamModel: "a"})
		mustDeployment(t, s, &models.Deployment{PublicName: "b", ProviderID: used.ID, UpstreamModel: "b"})
		b := ta.browser(t)
		tok := b.signIn()
		path := "/providers/" + strconv.FormatInt(used.ID, 10) + "/delete"

		rec := b.post(path, formOf(tok), nil)
		wantStatus(t, "delete of a used provider", rec, http.StatusUnprocessableEntity)
		wantFullPage(t, "delete of a used provider", rec)
		want := "used cannot be deleted: 2 model entries use it. Delete those entries or move them to another provider first (Models page)."
		if got := text(parseHTML(t, rec), "provider-delete-error"); got != want {
			t.Errorf("provider-delete-error = %q, want %q", got, want)
		}
		rec = b.post(path, formOf(tok), hx())
		wantStatus(t, "htmx delete of a used provider", rec, http.StatusUnprocessableEntity)
		wantPartial(t, "htmx delete of a used provider", rec)
		doc := parseHTML(t, rec)
		if id, _ := testid(doc, "providers").Attr("id"); id != "providers" || text(doc, "provider-delete-error") != want {
			t.Errorf("htmx refusal is not the providers list with the reason:\n%s", rec.Body)
		}
		if _, err := s.GetProvider(context.Background(), used.ID); err != nil {
			t.Errorf("the used provider is gone: %v", err)
		}

		wantSeeOther(t, "delete", b.post("/providers/"+strconv.FormatInt(unused.ID, 10)+"/delete", formOf(tok), hx()), true, "/providers")
		if _, err := s.GetProvider(context.Background(), unused.ID); err == nil {
			t.Error("the unused provider is still there")
		}
		wantStatus(t, "delete of a missing provider", b.post("/providers/999/delete", formOf(tok), nil), http.StatusNotFound)
	})
}

// modelsServer is a provider's models endpoint that checks the
// authentication of its protocol; it answers 401 with the key echoed, as
// OpenAI does (partly starred), when the key is not want.
func modelsServer(t *testing.T, apiType, want string) (*httptest.Server, *atomic.Value) {
	t.Helper()
	var path atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path.Store(r.URL.Path)
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if apiType == models.APITypeAnthropic {
			got = r.Header.Get("X-Api-Key")
			if r.Header.Get("Anthropic-Version") != "2023-06-01" {
				http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"anthropic-version: header is required"}}`, http.StatusBadRequest)
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		if got != want {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+got+`. You can find your API key at https://platform.openai.com.","code":"invalid_api_key"}}`)
			return
		}
		io.WriteString(w, `{"object":"list","data":[{"id":"m1"},{"id":"m2"},{"id":"m3"}]}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &path
}

func TestTestProviderConnection(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		const good, bad = "sk-good-provider-key-1234", "sk-wrong-provider-key-5678"
		oai, oaiPath := modelsServer(t, models.APITypeOpenAI, good)
		ant, antPath := modelsServer(t, models.APITypeAnthropic, good)
		dead := deadURL(t)
		add := func(name, apiType, base, key string) string {
			p := &models.Provider{Name: name, APIType: apiType, BaseURL: base}
			if err := s.CreateProvider(context.Background(), p, models.ProviderSecrets{APIKey: key}); err != nil {
				t.Fatal(err)
			}
			return strconv.FormatInt(p.ID, 10)
		}
		openaiOK := add("openai", models.APITypeOpenAI, oai.URL+"/v1/", good)
		// A redundant /v1 on an anthropic base is dropped, as the proxy does.
		anthropicOK := add("anthropic", models.APITypeAnthropic, ant.URL+"/v1", good)
		wrongKey := add("wrong", models.APITypeOpenAI, oai.URL+"/v1", bad)
		down := add("down", models.APITypeOpenAI, dead, good)
		b := ta.browser(t)
		tok := b.signIn()
		check := func(id string) (*httptest.ResponseRecorder, map[string]string) {
			t.Helper()
			rec := b.post("/providers/"+id+"/test", formOf(tok), hx())
			wantStatus(t, "test "+id, rec, http.StatusOK)
			wantPartial(t, "test "+id, rec)
			doc := parseHTML(t, rec)
			ok, _ := testid(doc, "provider-check").Attr("data-ok")
			return rec, map[string]string{"ok": ok, "status": text(doc, "provider-check-status"),
				"http": text(doc, "provider-check-http"), "message": text(doc, "provider-check-message")}
		}

		_, got := check(openaiOK)
		if got["ok"] != "true" || got["http"] != "200" || got["message"] != "3 models listed" || oaiPath.Load() != "/v1/models" {
			t.Errorf("openai check: %v, path %v", got, oaiPath.Load())
		}
		_, got = check(anthropicOK)
		if got["ok"] != "true" || got["status"] != "ok" || antPath.Load() != "/v1/models" {
			t.Errorf("anthropic check: %v, path %v", got, antPath.Load())
		}
		rec, got := check(wrongKey)
		if got["ok"] != "false" || got["status"] != "failed" || got["http"] != "401" ||
			got["message"] != "Incorrect API key provided: sk-…. You can find your API key at https://platform.openai.com." {
			t.Errorf("wrong key check: %v", got)
		}
		if strings.Contains(rec.Body.String(), bad[:12]) || strings.Contains(rec.Body.String(), "5678") {
			t.Errorf("the check shows the key:\n%s", rec.Body)
		}
		_, got = check(down)
		if got["ok"] != "false" || got["http"] != "" || !strings.HasPrefix(got["message"], "no answer: ") {
			t.Errorf("unreachable check: %v", got)
		}

		// Without htmx, the page with the result under the provider's row.
		rec = b.post("/providers/"+openaiOK+"/test", formOf(tok), nil)
		wantStatus(t, "test without htmx", rec, http.StatusOK)
		wantFullPage(t, "test without htmx", rec)
		if id, _ := testid(parseHTML(t, rec), "provider-check").Attr("id"); id != "check-"+openaiOK {
			t.Errorf("check result id %q", id)
		}
		wantStatus(t, "test of a missing provider", b.post("/providers/999/test", formOf(tok), hx()), http.StatusNotFound)
	})
}

// deadURL is the URL of a port nothing listens on any more.
func deadURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/v1"
}
