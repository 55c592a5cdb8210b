package providers_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"gateway/models"
	"gateway/proxy/providers"
	"gateway/proxy/upstreamtest"
)

func provider(apiType, base string) *models.Provider {
	return &models.Provider{APIType: apiType, BaseURL: base}
}

func key(k string) models.ProviderSecrets { return models.ProviderSecrets{APIKey: k} }

// TestBaseURLRule: the proxy's calls and Test connection's model list read
// a base URL by one rule per type.
func TestBaseURLRule(t *testing.T) {
	for _, tc := range []struct {
		apiType, base, chat, models string
	}{
		{"anthropic", "https://api.anthropic.com", "https://api.anthropic.com/v1/messages", "https://api.anthropic.com/v1/models"},
		{"anthropic", "https://api.anthropic.com/", "https://api.anthropic.com/v1/messages", "https://api.anthropic.com/v1/models"},
		{"anthropic", "https://api.anthropic.com/v1/", "https://api.anthropic.com/v1/messages", "https://api.anthropic.com/v1/models"},
		{"anthropic", "https://gw.example/anthropic", "https://gw.example/anthropic/v1/messages", "https://gw.example/anthropic/v1/models"},
		{"openai", "https://api.openai.com/v1", "https://api.openai.com/v1/chat/completions", "https://api.openai.com/v1/models"},
		{"openai", "https://api.openai.com/v1/", "https://api.openai.com/v1/chat/completions", "https://api.openai.com/v1/models"},
		{"openai", "https://api.openai.com", "https://api.openai.com/v1/chat/completions", "https://api.openai.com/v1/models"},
		{"openai", "https://api.openai.com/", "https://api.openai.com/v1/chat/completions", "https://api.openai.com/v1/models"},
		{"openai", "https://openrouter.ai/api/v1", "https://openrouter.ai/api/v1/chat/completions", "https://openrouter.ai/api/v1/models"},
		{"openai", "http://127.0.0.1:8000/v1?api-version=2", "http://127.0.0.1:8000/v1/chat/completions?api-version=2", "http://127.0.0.1:8000/v1/models?api-version=2"},
	} {
		c, err := providers.New(provider(tc.apiType, tc.base), key("k"), nil)
		if err != nil {
			t.Errorf("%s %s: %v", tc.apiType, tc.base, err)
			continue
		}
		if got := c.CallURL("m", false); got != tc.chat {
			t.Errorf("%s %s: chat %q, want %q", tc.apiType, tc.base, got, tc.chat)
		}
		if got := c.ModelsURL(); got != tc.models {
			t.Errorf("%s %s: models %q, want %q", tc.apiType, tc.base, got, tc.models)
		}
	}
	for _, bad := range [][2]string{
		{"openai", ""}, {"openai", "api.openai.com/v1"}, {"openai", "ftp://x/v1"}, {"openai", "https://"},
		{"openai", "not a url"}, {"azure-unknown", "https://x"}, {"azure", ""},
	} {
		if _, err := providers.New(provider(bad[0], bad[1]), key("k"), nil); err == nil {
			t.Errorf("New(%s, %q) accepted", bad[0], bad[1])
		}
	}
}

// TestCallURLs: each type's endpoint per model and stream, the model
// escaped into one path segment.
func TestCallURLs(t *testing.T) {
	g := upstreamtest.NewGoogleTokenServer(t)
	vertex := models.ProviderSecrets{CredentialsJSON: g.KeyFile()}
	aws := models.ProviderSecrets{AWSSecretAccessKey: "secret-access-key-0123"}
	for _, tc := range []struct {
		name    string
		p       models.Provider
		s       models.ProviderSecrets
		model   string
		stream  bool
		want    string
		models_ string
	}{
		{"azure", models.Provider{APIType: "azure", BaseURL: "https://res.openai.azure.com"}, key("k"), "gpt-4o prod", false,
			"https://res.openai.azure.com/openai/deployments/gpt-4o%20prod/chat/completions?api-version=2024-10-21",
			"https://res.openai.azure.com/openai/models?api-version=2024-10-21"},
		{"azure version", models.Provider{APIType: "azure", BaseURL: "https://res.openai.azure.com/openai/", APIVersion: "2025-01-01-preview"}, key("k"), "d", true,
			"https://res.openai.azure.com/openai/deployments/d/chat/completions?api-version=2025-01-01-preview",
			"https://res.openai.azure.com/openai/models?api-version=2025-01-01-preview"},
		{"gemini", models.Provider{APIType: "gemini"}, key("k"), "gemini-2.5-flash", false,
			"https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
			"https://generativelanguage.googleapis.com/v1beta/models"},
		{"gemini stream", models.Provider{APIType: "gemini", BaseURL: "http://127.0.0.1:9/v1beta"}, key("k"), "gemini-2.5-flash", true,
			"http://127.0.0.1:9/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", "http://127.0.0.1:9/v1beta/models"},
		{"vertex gemini", models.Provider{APIType: "vertex", Project: "p1", Location: "us-central1"}, vertex, "gemini-2.5-pro", false,
			"https://us-central1-aiplatform.googleapis.com/v1/projects/p1/locations/us-central1/publishers/google/models/gemini-2.5-pro:generateContent", ""},
		{"vertex gemini stream global", models.Provider{APIType: "vertex", Project: "p1"}, vertex, "gemini-2.5-pro", true,
			"https://aiplatform.googleapis.com/v1/projects/p1/locations/global/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse", ""},
		{"vertex claude", models.Provider{APIType: "vertex", Project: "p1", Location: "eu"}, vertex, "claude-sonnet-4@20250514", false,
			"https://aiplatform.eu.rep.googleapis.com/v1/projects/p1/locations/eu/publishers/anthropic/models/claude-sonnet-4@20250514:rawPredict", ""},
		{"vertex claude stream", models.Provider{APIType: "vertex", Project: "p1", Location: "us-east5"}, vertex, "claude-sonnet-4@20250514", true,
			"https://us-east5-aiplatform.googleapis.com/v1/projects/p1/locations/us-east5/publishers/anthropic/models/claude-sonnet-4@20250514:streamRawPredict", ""},
		{"bedrock", models.Provider{APIType: "bedrock", Region: "us-west-2", AWSAccessKeyID: "AKIA"}, aws, "anthropic.claude-3-haiku-20240307-v1:0", false,
			"https://bedrock-runtime.us-west-2.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse", ""},
		{"bedrock arn stream", models.Provider{APIType: "bedrock", Region: "us-east-1", AWSAccessKeyID: "AKIA"}, aws,
			"arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-v1:0", true,
			"https://bedrock-runtime.us-east-1.amazonaws.com/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fus.anthropic.claude-sonnet-4-v1%3A0/converse-stream", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := providers.New(&tc.p, tc.s, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.CallURL(tc.model, tc.stream); got != tc.want {
				t.Errorf("CallURL = %s\nwant      %s", got, tc.want)
			}
			if got := c.ModelsURL(); got != tc.models_ {
				t.Errorf("ModelsURL = %q, want %q", got, tc.models_)
			}
			// The request keeps the escaping: the path sent is the one built.
			req, err := http.NewRequest(http.MethodPost, tc.want, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := req.URL.Scheme + "://" + req.URL.Host + req.URL.RequestURI(); got != tc.want {
				t.Errorf("sent as %s", got)
			}
		})
	}
}

// TestRequiredFields: a provider missing what its type needs is refused
// with the field's name.
func TestRequiredFields(t *testing.T) {
	for _, tc := range []struct {
		p    models.Provider
		s    models.ProviderSecrets
		want string
	}{
		{models.Provider{APIType: "bedrock", AWSAccessKeyID: "AKIA"}, models.ProviderSecrets{AWSSecretAccessKey: "s"}, "region"},
		{models.Provider{APIType: "bedrock", Region: "us-east-1"}, models.ProviderSecrets{AWSSecretAccessKey: "s"}, "aws_access_key_id"},
		{models.Provider{APIType: "bedrock", Region: "us-east-1", AWSAccessKeyID: "AKIA"}, models.ProviderSecrets{}, "aws_secret_access_key"},
		{models.Provider{APIType: "vertex"}, models.ProviderSecrets{CredentialsJSON: "{}"}, "project"},
		{models.Provider{APIType: "vertex", Project: "p"}, models.ProviderSecrets{}, "credentials_json"},
		{models.Provider{APIType: "vertex", Project: "p"}, models.ProviderSecrets{CredentialsJSON: "not json"}, "credentials_json"},
		{models.Provider{APIType: "gemini"}, models.ProviderSecrets{}, "api_key"},
		{models.Provider{APIType: "azure", BaseURL: "https://x"}, models.ProviderSecrets{}, "api_key"},
	} {
		_, err := providers.New(&tc.p, tc.s, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %+v: err %v, want one naming %s", tc.p.APIType, tc.p, err, tc.want)
		}
	}
}

// TestAuthorize: each header type's key goes into its own header, with
// the headers the type requires, and nowhere else.
func TestAuthorize(t *testing.T) {
	for _, tc := range []struct {
		apiType string
		want    http.Header
	}{
		{"openai", http.Header{"Authorization": {"Bearer sk-test"}}},
		{"anthropic", http.Header{"X-Api-Key": {"sk-test"}, "Anthropic-Version": {providers.AnthropicVersion}}},
		{"azure", http.Header{"Api-Key": {"sk-test"}}},
		{"gemini", http.Header{"X-Goog-Api-Key": {"sk-test"}}},
	} {
		c, err := providers.New(provider(tc.apiType, "https://example.com"), key("sk-test"), nil)
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest(http.MethodPost, "https://example.com/x", nil)
		req.Header = http.Header{}
		if err := c.Authorize(req, nil); err != nil {
			t.Fatal(err)
		}
		if len(req.Header) != len(tc.want) {
			t.Errorf("%s: headers %v, want %v", tc.apiType, req.Header, tc.want)
		}
		for k, v := range tc.want {
			if got := req.Header.Get(k); got != v[0] {
				t.Errorf("%s: %s = %q, want %q", tc.apiType, k, got, v[0])
			}
		}
	}
}

// TestSigV4: a bedrock call is signed so that AWS's own check (the same
// signer, the known secret) accepts it, ARN path and session token
// included; another secret or a changed body is refused.
func TestSigV4(t *testing.T) {
	creds := upstreamtest.AWSCredentials{AccessKeyID: "AKIAFAKE", SecretAccessKey: "fake-secret-key/0123456789",
		SessionToken: "fake-session-token", Region: "eu-west-1", Service: "bedrock"}
	var mu sync.Mutex
	var verdicts []error
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get("X-Tamper") != "" {
			body = append(body, ' ')
		}
		err := creds.VerifySigV4(r, body)
		mu.Lock()
		verdicts = append(verdicts, err)
		mu.Unlock()
	}))
	defer srv.Close()
	for _, secret := range []string{creds.SecretAccessKey, "another-secret"} {
		p := &models.Provider{APIType: "bedrock", BaseURL: srv.URL, Region: creds.Region, AWSAccessKeyID: creds.AccessKeyID}
		c, err := providers.New(p, models.ProviderSecrets{AWSSecretAccessKey: secret, AWSSessionToken: creds.SessionToken}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tamper := range []bool{false, true} {
			body := []byte(`{"messages":[]}`)
			req, err := http.NewRequestWithContext(context.Background(), http.MethodPost,
				c.CallURL("arn:aws:bedrock:eu-west-1:123:inference-profile/eu.anthropic.claude-v1:0", true), strings.NewReader(string(body)))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			if tamper {
				req.Header.Set("X-Tamper", "1")
			}
			if err := c.Authorize(req, body); err != nil {
				t.Fatal(err)
			}
			resp, err := c.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(verdicts) != 4 || verdicts[0] != nil || verdicts[1] == nil || verdicts[2] == nil || verdicts[3] == nil {
		t.Fatalf("verdicts (right, tampered, wrong secret, both) = %v", verdicts)
	}
}

// TestVertexToken: the key file's token endpoint issues a token for a JWT
// signed with its key; calls share it until shortly before it expires,
// and a refused key is an auth failure.
func TestVertexToken(t *testing.T) {
	g := upstreamtest.NewGoogleTokenServer(t)
	g.ExpiresIn = 3600
	p := &models.Provider{APIType: "vertex", Project: "test-project", Location: "us-central1", BaseURL: "http://127.0.0.1:9"}
	c, err := providers.New(p, models.ProviderSecrets{CredentialsJSON: g.KeyFile()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		req := httptest.NewRequest(http.MethodPost, c.CallURL("gemini-2.5-pro", false), nil)
		if err := c.Authorize(req, nil); err != nil {
			t.Fatal(err)
		}
		if !g.Authorized(req.Header) {
			t.Fatalf("Authorization %q is no token the endpoint issued", req.Header.Get("Authorization"))
		}
	}
	if n := g.Fetches(); n != 1 {
		t.Errorf("token fetched %d times for 3 calls, want 1", n)
	}
	// A token about to expire is replaced before it does.
	g.ExpiresIn = 30
	c, _ = providers.New(p, models.ProviderSecrets{CredentialsJSON: g.KeyFile()}, nil)
	for range 2 {
		req := httptest.NewRequest(http.MethodPost, c.CallURL("gemini-2.5-pro", false), nil)
		if err := c.Authorize(req, nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := g.Fetches(); n != 2 {
		t.Errorf("fetches = %d, want 2: a 30 s token is fetched once and reused within its first half", n)
	}
	// A cancelled caller's fetch ends with it.
	c, _ = providers.New(p, models.ProviderSecrets{CredentialsJSON: g.KeyFile()}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, c.CallURL("gemini-2.5-pro", false), nil)
	if err := c.Authorize(req, nil); err == nil {
		t.Error("a fetch under a cancelled context succeeded")
	}
	g.Refuse()
	req = httptest.NewRequest(http.MethodPost, c.CallURL("gemini-2.5-pro", false), nil)
	err = c.Authorize(req, nil)
	var te *providers.TokenError
	if !asTokenError(err, &te) || !te.Refused() {
		t.Errorf("refused key: err %v, want a refused TokenError", err)
	}
	if strings.Contains(c.Mask(err.Error()), "PRIVATE KEY") {
		t.Error("the error quotes the key")
	}
	_ = time.Second
}

// TestMask: one masker for what the proxy stores and what the admin pages
// show: key-like words, and every secret of the provider whatever it
// looks like.
func TestMask(t *testing.T) {
	const k = "custom-provider-key-abcdef"
	c, err := providers.New(provider("openai", "https://example.com"), key(k), nil)
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"Incorrect API key provided: sk-proj-abc123*****wxyz.": "Incorrect API key provided: sk-….",
		"invalid x-api-key sk-ant-api03-AbC_d-eF":              "invalid x-api-key sk-…",
		"the key " + k + " is wrong":                           "the key … is wrong",
		"bad key-ABCDEFGH1234 given":                           "bad key-… given",
		"a task-force and a sk-abc":                            "a task-force and a sk-abc",
		"nothing secret here":                                  "nothing secret here",
	} {
		if got := c.Mask(in); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
	if got := providers.MaskSecrets("401: sk-live-0123456789"); got != "401: sk-…" {
		t.Errorf("MaskSecrets = %q", got)
	}
	c, err = providers.New(provider("openai", "https://example.com"), key("sk-1234"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Mask("bad key sk-1234."); got != "bad key sk-…." {
		t.Errorf("Mask(short sk- key) = %q", got)
	}
	// Bedrock's secret and session token, vertex's key file and its parts.
	c, err = providers.New(&models.Provider{APIType: "bedrock", Region: "us-east-1", AWSAccessKeyID: "AKIA"},
		models.ProviderSecrets{AWSSecretAccessKey: "wJalrXUtnFEMI/K7MDENG", AWSSessionToken: "IQoJb3JpZ2luX2VjEJr"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Mask("sig wJalrXUtnFEMI/K7MDENG tok IQoJb3JpZ2luX2VjEJr"); got != "sig … tok …" {
		t.Errorf("bedrock Mask = %q", got)
	}
	g := upstreamtest.NewGoogleTokenServer(t)
	c, err = providers.New(&models.Provider{APIType: "vertex", Project: "p"}, models.ProviderSecrets{CredentialsJSON: g.KeyFile()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Mask("file " + g.KeyFile() + " id " + g.KeyID); strings.Contains(got, "PRIVATE") || strings.Contains(got, g.KeyID) {
		t.Errorf("vertex Mask left the key: %q", got)
	}
}
