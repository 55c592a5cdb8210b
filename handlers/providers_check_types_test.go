package handlers_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"gateway/models"
	"gateway/models/dbtest"
	"gateway/proxy/upstreamtest"
)

// TestTestConnectionOfEveryType: Test connection makes each new type's
// cheapest proving call with that type's credentials, checked by fakes of
// the vendors: Azure's and Gemini's model lists with their key headers, a
// 1-token Converse call signed with SigV4 on a bedrock provider's first
// entry, a 1-token Vertex call with a token from the key file's own token
// endpoint. Wrong credentials fail the check, and a bedrock provider
// without an entry is told to add one.
func TestTestConnectionOfEveryType(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		ta := newTestApp(t, s)
		var paths sync32
		creds := upstreamtest.AWSCredentials{AccessKeyID: "AKIDEXAMPLETEST", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
			Region: "eu-west-1", Service: "bedrock"}
		tokens := upstreamtest.NewGoogleTokenServer(t)
		vendor := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			paths.add(r.Method + " " + r.URL.EscapedPath() + "?" + r.URL.RawQuery)
			w.Header().Set("Content-Type", "application/json")
			switch {
			case strings.HasPrefix(r.URL.Path, "/openai/models"):
				if r.Header.Get("Api-Key") != "azure-key-0123456789" || r.URL.Query().Get("api-version") != "2024-10-21" {
					w.WriteHeader(http.StatusUnauthorized)
					io.WriteString(w, `{"error":{"code":"401","message":"Access denied due to invalid subscription key or wrong API endpoint."}}`)
					return
				}
				io.WriteString(w, `{"object":"list","data":[{"id":"gpt-4o"},{"id":"gpt-4o-mini"}]}`)
			case r.URL.Path == "/v1beta/models":
				if r.Header.Get("X-Goog-Api-Key") != "gemini-key-0123456789" {
					w.WriteHeader(http.StatusBadRequest)
					io.WriteString(w, `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}`)
					return
				}
				io.WriteString(w, `{"models":[{"name":"models/gemini-2.5-flash"},{"name":"models/gemini-2.5-pro"},{"name":"models/embedding-001"}]}`)
			case strings.HasPrefix(r.URL.Path, "/model/"):
				if err := creds.VerifySigV4(r, body); err != nil {
					upstreamtest.WriteAWSError(w, http.StatusForbidden, "InvalidSignatureException", "The request signature we calculated does not match the signature you provided.")
					return
				}
				io.WriteString(w, `{"output":{"message":{"role":"assistant","content":[{"text":"p"}]}},"stopReason":"max_tokens","usage":{"inputTokens":3,"outputTokens":1,"totalTokens":4}}`)
			case strings.Contains(r.URL.Path, "/publishers/google/models/"):
				if !tokens.Authorized(r.Header) {
					w.WriteHeader(http.StatusUnauthorized)
					io.WriteString(w, `{"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}`)
					return
				}
				io.WriteString(w, `{"candidates":[{"content":{"role":"model","parts":[{"text":"p"}]},"finishReason":"MAX_TOKENS"}],"usageMetadata":{"promptTokenCount":2,"candidatesTokenCount":1}}`)
			default:
				http.NotFound(w, r)
			}
		}))
		t.Cleanup(vendor.Close)

		add := func(p *models.Provider, secrets models.ProviderSecrets, model string) string {
			t.Helper()
			p.BaseURL = vendor.URL
			if err := s.CreateProvider(ctx, p, secrets); err != nil {
				t.Fatal(err)
			}
			if model != "" {
				if err := s.CreateDeployment(ctx, &models.Deployment{PublicName: p.Name + "-model", ProviderID: p.ID, UpstreamModel: model, Enabled: true}); err != nil {
					t.Fatal(err)
				}
			}
			return strconv.FormatInt(p.ID, 10)
		}
		azure := add(&models.Provider{Name: "azure", APIType: models.APITypeAzure}, models.ProviderSecrets{APIKey: "azure-key-0123456789"}, "")
		azureBad := add(&models.Provider{Name: "azure-bad", APIType: models.APITypeAzure}, models.ProviderSecrets{APIKey: "azure-key-wrong-9999"}, "")
		gemini := add(&models.Provider{Name: "gemini", APIType: models.APITypeGemini}, models.ProviderSecrets{APIKey: "gemini-key-0123456789"}, "")
		bedrock := add(&models.Provider{Name: "bedrock", APIType: models.APITypeBedrock, Region: creds.Region, AWSAccessKeyID: creds.AccessKeyID},
			models.ProviderSecrets{AWSSecretAccessKey: creds.SecretAccessKey}, "arn:aws:bedrock:eu-west-1:123456789012:inference-profile/eu.anthropic.claude-sonnet-4-5-v1:0")
		bedrockBad := add(&models.Provider{Name: "bedrock-bad", APIType: models.APITypeBedrock, Region: creds.Region, AWSAccessKeyID: creds.AccessKeyID},
			models.ProviderSecrets{AWSSecretAccessKey: "not-the-secret-access-key-0000"}, "amazon.nova-pro-v1:0")
		bedrockEmpty := add(&models.Provider{Name: "bedrock-empty", APIType: models.APITypeBedrock, Region: creds.Region, AWSAccessKeyID: creds.AccessKeyID},
			models.ProviderSecrets{AWSSecretAccessKey: creds.SecretAccessKey}, "")
		vertex := add(&models.Provider{Name: "vertex", APIType: models.APITypeVertex, Project: "test-project", Location: "europe-west4"},
			models.ProviderSecrets{CredentialsJSON: tokens.KeyFile()}, "gemini-2.5-flash")

		b := ta.browser(t)
		tok := b.signIn()
		check := func(id string) map[string]string {
			t.Helper()
			rec := b.post("/providers/"+id+"/test", formOf(tok), hx())
			wantStatus(t, "test "+id, rec, http.StatusOK)
			for _, secret := range []string{"azure-key-", "gemini-key-", creds.SecretAccessKey, "not-the-secret", "PRIVATE KEY"} {
				if strings.Contains(rec.Body.String(), secret) {
					t.Errorf("the check of %s shows a secret (%q)", id, secret)
				}
			}
			doc := parseHTML(t, rec)
			ok, _ := testid(doc, "provider-check").Attr("data-ok")
			return map[string]string{"ok": ok, "http": text(doc, "provider-check-http"), "message": text(doc, "provider-check-message")}
		}
		for _, tc := range []struct {
			name, id, ok, http, message, path string
		}{
			{"azure", azure, "true", "200", "2 models listed", "GET /openai/models?api-version=2024-10-21"},
			{"azure with a wrong key", azureBad, "false", "401", "Access denied due to invalid subscription key or wrong API endpoint.", ""},
			{"gemini", gemini, "true", "200", "3 models listed", "GET /v1beta/models?"},
			{"bedrock", bedrock, "true", "200", "a 1-token generation answered",
				"POST /model/arn%3Aaws%3Abedrock%3Aeu-west-1%3A123456789012%3Ainference-profile%2Feu.anthropic.claude-sonnet-4-5-v1%3A0/converse?"},
			{"bedrock with a wrong secret", bedrockBad, "false", "403", "The request signature we calculated does not match the signature you provided.", ""},
			{"vertex", vertex, "true", "200", "a 1-token generation answered",
				"POST /v1/projects/test-project/locations/europe-west4/publishers/google/models/gemini-2.5-flash:generateContent?"},
		} {
			got := check(tc.id)
			if got["ok"] != tc.ok || got["http"] != tc.http || got["message"] != tc.message {
				t.Errorf("%s: %v, want ok=%s http=%s %q", tc.name, got, tc.ok, tc.http, tc.message)
			}
			if tc.path != "" && paths.last() != tc.path {
				t.Errorf("%s called %q, want %q", tc.name, paths.last(), tc.path)
			}
		}
		calls := paths.count()
		got := check(bedrockEmpty)
		if got["ok"] != "false" || !strings.HasPrefix(got["message"], "add a model entry for this provider first") || paths.count() != calls {
			t.Errorf("bedrock without entries: %v (calls %d → %d)", got, calls, paths.count())
		}
		if tokens.Fetches() != 1 {
			t.Errorf("vertex check fetched %d tokens, want 1", tokens.Fetches())
		}
	})
}

// sync32 records the requests a fake saw, from its handler's goroutines.
type sync32 struct {
	n    atomic.Int32
	seen atomic.Value // string: the last request
}

func (s *sync32) add(v string) { s.n.Add(1); s.seen.Store(v) }
func (s *sync32) count() int   { return int(s.n.Load()) }
func (s *sync32) last() string {
	v, _ := s.seen.Load().(string)
	return v
}
