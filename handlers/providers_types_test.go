package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gateway/models"
	"gateway/models/dbtest"
	"gateway/proxy/providers"
	"gateway/views"
)

// Secrets of the new provider types, each distinctive enough to grep for.
const (
	azureKey        = "azure-LEAK-key-0123456789abcdef"
	azureKey2       = "azure-LEAK-rotated-key-55554444"
	awsSecret       = "awsLEAKsecretABCDEFGHIJKLMNOPQRST"
	awsToken        = "awsLEAKtoken-zyxwvutsrq9876"
	awsToken2       = "awsLEAKtoken-rotated-11112222"
	geminiKey       = "AIzaLEAK-gemini-key-000011112222"
	geminiKey2      = "AIzaLEAK-gemini-rotated-77778888"
	privateKeyBytes = "LEAKPRIVATEKEYMATERIAL0123456789"
)

// keyFile is a service account key file as Google issues it (the private
// key is not a real one: nothing here signs).
func keyFile(keyID string) string {
	b, err := json.MarshalIndent(map[string]string{
		"type":           "service_account",
		"project_id":     "my-project-123",
		"private_key_id": keyID,
		"private_key":    "-----BEGIN PRIVATE KEY-----\n" + privateKeyBytes + "\n-----END PRIVATE KEY-----\n",
		"client_email":   "gateway@my-project-123.iam.gserviceaccount.com",
		"client_id":      "123456789012345678901",
		"token_uri":      "https://oauth2.googleapis.com/token",
	}, "", "  ")
	if err != nil {
		panic(err)
	}
	return string(b)
}

// jsonString is s as a JSON string, for a body built by hand.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// providersState is every stored provider, sealed secrets included: equal
// states mean nothing was written.
func providersState(t *testing.T, s *models.Store) string {
	t.Helper()
	ps, err := s.ListProviders(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(ps)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wantSecrets checks the provider's secrets in clear.
func wantSecrets(name string, want models.ProviderSecrets) func(t *testing.T, s *models.Store) {
	return func(t *testing.T, s *models.Store) {
		t.Helper()
		ps, err := s.ListProviders(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for i := range ps {
			if ps[i].Name != name {
				continue
			}
			got, err := s.ProviderSecrets(&ps[i])
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("secrets of %s = %+v, want %+v", name, got, want)
			}
			return
		}
		t.Errorf("no provider %s", name)
	}
}

// refused is a request the API must answer 400 without writing anything.
type refused struct {
	name, method, body, errMsg string
}

func TestAPIProviderTypes(t *testing.T) {
	for _, tc := range []struct {
		apiType string
		create  string
		want    map[string]any // in the create answer
		absent  []string
		secrets models.ProviderSecrets
		// patch replaces one secret (or a setting); the others are kept.
		patch        string
		patchWant    map[string]any
		patchSecrets models.ProviderSecrets
		refused      []refused
	}{
		{
			apiType: "azure",
			create:  `{"name":"p","api_type":"azure","base_url":"https://res.openai.azure.com","api_key":"` + azureKey + `"}`,
			want: map[string]any{"api_type": "azure", "base_url": "https://res.openai.azure.com", "api_key_last4": "cdef",
				"api_version": ""},
			absent:       []string{"api_key", "region", "project", "aws_secret_access_key_last4", "credentials_json_last4"},
			secrets:      models.ProviderSecrets{APIKey: azureKey},
			patch:        `{"api_version":"2024-12-01-preview"}`,
			patchWant:    map[string]any{"api_version": "2024-12-01-preview", "api_key_last4": "cdef"},
			patchSecrets: models.ProviderSecrets{APIKey: azureKey},
			refused: []refused{
				{"missing key", "POST", `{"name":"q","api_type":"azure","base_url":"https://res.openai.azure.com"}`, "api_key: is required for api_type azure"},
				{"missing base_url", "POST", `{"name":"q","api_type":"azure","api_key":"k"}`, "base_url: is required for api_type azure"},
				{"foreign field", "POST", `{"name":"q","api_type":"azure","base_url":"https://r.openai.azure.com","api_key":"k","region":"us-east-1"}`,
					"region: is not a field of api_type azure"},
				{"bad api_version", "POST", `{"name":"q","api_type":"azure","base_url":"https://r.openai.azure.com","api_key":"k","api_version":"v1"}`,
					"api_version: must be an Azure OpenAI API version such as 2024-10-21 or 2024-12-01-preview"},
				{"impossible date", "POST", `{"name":"q","api_type":"azure","base_url":"https://r.openai.azure.com","api_key":"k","api_version":"2024-13-01"}`,
					"api_version: must be an Azure OpenAI API version"},
				{"patch foreign field", "PATCH", `{"project":"my-project"}`, "project: is not a field of api_type azure"},
				{"patch base_url away", "PATCH", `{"base_url":""}`, "base_url: is required for api_type azure"},
			},
		},
		{
			apiType: "bedrock",
			create: `{"name":"p","api_type":"bedrock","region":"eu-central-1","aws_access_key_id":"AKIAIOSFODNN7EXAMPLE",` +
				`"aws_secret_access_key":"` + awsSecret + `","aws_session_token":"` + awsToken + `"}`,
			want: map[string]any{"api_type": "bedrock", "base_url": "", "region": "eu-central-1", "aws_access_key_id": "AKIAIOSFODNN7EXAMPLE",
				"aws_secret_access_key_last4": "QRST", "aws_session_token_last4": "9876"},
			absent:       []string{"api_key_last4", "aws_secret_access_key", "aws_session_token", "api_version", "location"},
			secrets:      models.ProviderSecrets{AWSSecretAccessKey: awsSecret, AWSSessionToken: awsToken},
			patch:        `{"aws_session_token":"` + awsToken2 + `","aws_secret_access_key":""}`,
			patchWant:    map[string]any{"aws_secret_access_key_last4": "QRST", "aws_session_token_last4": "2222", "region": "eu-central-1"},
			patchSecrets: models.ProviderSecrets{AWSSecretAccessKey: awsSecret, AWSSessionToken: awsToken2},
			refused: []refused{
				{"missing secret", "POST", `{"name":"q","api_type":"bedrock","region":"us-east-1","aws_access_key_id":"AKIAIOSFODNN7EXAMPLE"}`,
					"aws_secret_access_key: is required for api_type bedrock"},
				{"missing region", "POST", `{"name":"q","api_type":"bedrock","aws_access_key_id":"AKIA1","aws_secret_access_key":"s"}`,
					"region: is required for api_type bedrock"},
				{"bad region", "POST", `{"name":"q","api_type":"bedrock","region":"Frankfurt","aws_access_key_id":"AKIA1","aws_secret_access_key":"s"}`,
					"region: must be an AWS region such as us-east-1"},
				{"bad access key id", "POST", `{"name":"q","api_type":"bedrock","region":"us-east-1","aws_access_key_id":"AKIA 1","aws_secret_access_key":"s"}`,
					"aws_access_key_id: must be an AWS access key id"},
				{"foreign secret", "POST", `{"name":"q","api_type":"bedrock","region":"us-east-1","aws_access_key_id":"AKIA1","aws_secret_access_key":"s","api_key":"` + azureKey + `"}`,
					"api_key: is not a field of api_type bedrock"},
				{"patch region away", "PATCH", `{"region":""}`, "region: is required for api_type bedrock"},
				{"patch bad region", "PATCH", `{"region":"us_east_1","aws_session_token":"` + awsToken + `"}`, "region: must be an AWS region"},
				{"patch to vertex without a key file", "PATCH", `{"api_type":"vertex","project":"my-project"}`,
					"credentials_json: is required for api_type vertex"},
				{"patch to vertex keeping a bedrock field", "PATCH", `{"api_type":"vertex","project":"my-project","region":"us-east-1","credentials_json":` + jsonString(keyFile("k1")) + `}`,
					"region: is not a field of api_type vertex"},
			},
		},
		{
			apiType:      "gemini",
			create:       `{"name":"p","api_type":"gemini","api_key":"` + geminiKey + `"}`,
			want:         map[string]any{"api_type": "gemini", "base_url": "", "api_key_last4": "2222"},
			absent:       []string{"api_key", "api_version", "region", "project"},
			secrets:      models.ProviderSecrets{APIKey: geminiKey},
			patch:        `{"api_key":"` + geminiKey2 + `"}`,
			patchWant:    map[string]any{"api_key_last4": "8888"},
			patchSecrets: models.ProviderSecrets{APIKey: geminiKey2},
			refused: []refused{
				{"missing key", "POST", `{"name":"q","api_type":"gemini"}`, "api_key: is required for api_type gemini"},
				{"foreign field", "POST", `{"name":"q","api_type":"gemini","api_key":"k","location":"us"}`, "location: is not a field of api_type gemini"},
				{"patch foreign field", "PATCH", `{"api_version":"2024-10-21"}`, "api_version: is not a field of api_type gemini"},
			},
		},
		{
			apiType: "vertex",
			create:  `{"name":"p","api_type":"vertex","project":"my-project-123","credentials_json":` + jsonString(keyFile("0123456789abcdef")) + `}`,
			want: map[string]any{"api_type": "vertex", "base_url": "", "project": "my-project-123", "location": "",
				"credentials_json_last4": "cdef"},
			absent:       []string{"api_key_last4", "credentials_json", "region"},
			secrets:      models.ProviderSecrets{CredentialsJSON: keyFile("0123456789abcdef")},
			patch:        `{"location":"europe-west4"}`,
			patchWant:    map[string]any{"location": "europe-west4", "project": "my-project-123", "credentials_json_last4": "cdef"},
			patchSecrets: models.ProviderSecrets{CredentialsJSON: keyFile("0123456789abcdef")},
			refused: []refused{
				{"missing key file", "POST", `{"name":"q","api_type":"vertex","project":"my-project-123"}`, "credentials_json: is required for api_type vertex"},
				{"missing project", "POST", `{"name":"q","api_type":"vertex","credentials_json":` + jsonString(keyFile("k")) + `}`, "project: is required for api_type vertex"},
				{"bad location", "POST", `{"name":"q","api_type":"vertex","project":"my-project-123","location":"evil.example.com/x","credentials_json":` + jsonString(keyFile("k")) + `}`,
					"location: must be global, us, eu or a Google Cloud region such as us-central1"},
				{"key file not JSON", "POST", `{"name":"q","api_type":"vertex","project":"my-project-123","credentials_json":"` + privateKeyBytes + `"}`,
					"credentials_json: must be a service account key file's content (JSON): it is not a JSON object"},
				{"key file without client_email", "POST", `{"name":"q","api_type":"vertex","project":"my-project-123","credentials_json":` +
					jsonString(strings.Replace(keyFile("k"), `"client_email"`, `"client_mail"`, 1)) + `}`,
					"credentials_json: must be a service account key file: it has no client_email"},
				{"key file of a user", "POST", `{"name":"q","api_type":"vertex","project":"my-project-123","credentials_json":` +
					jsonString(strings.Replace(keyFile("k"), `"service_account"`, `"authorized_user"`, 1)) + `}`,
					`credentials_json: must be a service account key file: its "type" is not "service_account"`},
				{"key file as an object", "POST", `{"name":"q","api_type":"vertex","project":"my-project-123","credentials_json":` + keyFile("k") + `}`,
					"credentials_json: must be a string"},
				{"patch bad location", "PATCH", `{"location":"moon"}`, "location: must be global, us, eu or a Google Cloud region"},
				{"patch to gemini without a key", "PATCH", `{"api_type":"gemini"}`, "api_key: is required for api_type gemini"},
			},
		},
	} {
		t.Run(tc.apiType, func(t *testing.T) {
			dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
				ta := newTestApp(t, s)
				steps := []apiStep{
					{name: "create", method: "POST", path: "/api/providers", body: tc.create, status: 201, save: "p",
						want: tc.want, absent: tc.absent, verify: wantSecrets("p", tc.secrets)},
					{name: "list", method: "GET", path: "/api/providers", status: 200, count: n(1),
						check: func(t *testing.T, rec *httptest.ResponseRecorder) {
							got := decodeJSON[[]map[string]any](t, rec)[0]
							for k, v := range tc.want {
								if g, w := jsonOf(t, got[k]), jsonOf(t, v); g != w {
									t.Errorf("listed %s = %s, want %s", k, g, w)
								}
							}
						}},
					{name: "patch", method: "PATCH", path: "/api/providers/{p}", body: tc.patch, status: 200,
						want: tc.patchWant, absent: tc.absent, verify: wantSecrets("p", tc.patchSecrets)},
				}
				runSteps(t, ta, steps)
				ps, err := s.ListProviders(context.Background())
				if err != nil || len(ps) != 1 {
					t.Fatalf("providers %+v, %v", ps, err)
				}
				before := providersState(t, s)
				steps = nil
				for _, r := range tc.refused {
					path := "/api/providers"
					if r.method == "PATCH" {
						path = "/api/providers/" + strconv.FormatInt(ps[0].ID, 10)
					}
					steps = append(steps, apiStep{name: r.name, method: r.method, path: path, body: r.body, status: 400, errMsg: r.errMsg,
						check: func(t *testing.T, rec *httptest.ResponseRecorder) {
							if strings.Contains(rec.Body.String(), "LEAK") || strings.Contains(rec.Body.String(), "PRIVATE KEY") {
								t.Errorf("the refusal quotes a secret: %s", rec.Body)
							}
						},
						verify: func(t *testing.T, s *models.Store) {
							if got := providersState(t, s); got != before {
								t.Errorf("a refused request changed the providers:\n%s\nwas\n%s", got, before)
							}
						}})
				}
				runSteps(t, ta, steps)
			})
		})
	}
}

// TestAPIProviderTypeChange: a provider changes type; the new type's
// secrets are required unless stored, what the old type left is dropped.
func TestAPIProviderTypeChange(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		runSteps(t, ta, []apiStep{
			{name: "gemini", method: "POST", path: "/api/providers", status: 201, save: "p",
				body: `{"name":"p","api_type":"gemini","api_key":"` + geminiKey + `"}`},
			{name: "to azure keeps the key", method: "PATCH", path: "/api/providers/{p}", status: 200,
				body:   `{"api_type":"azure","base_url":"https://res.openai.azure.com","api_version":"2024-10-21"}`,
				want:   map[string]any{"api_type": "azure", "api_key_last4": "2222", "api_version": "2024-10-21"},
				verify: wantSecrets("p", models.ProviderSecrets{APIKey: geminiKey})},
			{name: "to bedrock", method: "PATCH", path: "/api/providers/{p}", status: 200,
				body:   `{"api_type":"bedrock","region":"us-west-2","aws_access_key_id":"AKIAIOSFODNN7EXAMPLE","aws_secret_access_key":"` + awsSecret + `"}`,
				want:   map[string]any{"api_type": "bedrock", "base_url": "", "aws_secret_access_key_last4": "QRST", "aws_session_token_last4": ""},
				absent: []string{"api_key_last4", "api_version"},
				verify: func(t *testing.T, s *models.Store) {
					wantSecrets("p", models.ProviderSecrets{AWSSecretAccessKey: awsSecret})(t, s)
					ps, _ := s.ListProviders(context.Background())
					if ps[0].APIVersion != "" || ps[0].APIKeyLast4 != "" || ps[0].BaseURL != "" {
						t.Errorf("azure's settings were kept: %+v", ps[0])
					}
				}},
			{name: "to openai needs a key", method: "PATCH", path: "/api/providers/{p}", status: 400,
				body: `{"api_type":"openai","base_url":"https://api.openai.com/v1"}`, errMsg: "api_key: is required for api_type openai"},
			{name: "to openai", method: "PATCH", path: "/api/providers/{p}", status: 200,
				body:   `{"api_type":"openai","base_url":"https://api.openai.com/v1","api_key":"sk-openai-key-abcd"}`,
				want:   map[string]any{"api_type": "openai", "api_key_last4": "abcd"},
				absent: []string{"region", "aws_access_key_id", "aws_secret_access_key_last4", "aws_session_token_last4"},
				verify: wantSecrets("p", models.ProviderSecrets{APIKey: "sk-openai-key-abcd"})},
		})
	})
}

// multipartForm encodes a form with files (field name → content) as the
// browser sends the provider form.
func multipartForm(t *testing.T, form url.Values, files map[string]string) (*bytes.Buffer, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, vs := range form {
		for _, v := range vs {
			if err := mw.WriteField(k, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	for k, content := range files {
		fw, err := mw.CreateFormFile(k, k+".json")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fw.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return &buf, mw.FormDataContentType()
}

func (b *browser) postMultipart(path string, form url.Values, files map[string]string, h http.Header) *httptest.ResponseRecorder {
	b.t.Helper()
	body, ctype := multipartForm(b.t, form, files)
	if h == nil {
		h = http.Header{}
	}
	h.Set("Content-Type", ctype)
	return b.do(http.MethodPost, path, body, h)
}

func TestProviderFormTypes(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		b := ta.browser(t)
		tok := b.signIn()

		// Changing the type swaps in its fields, keeping the base URL typed.
		rec := b.do("GET", "/providers/fields?api_type=bedrock&base_url=http%3A%2F%2Ffake.test", nil, hx())
		wantStatus(t, "bedrock fields", rec, http.StatusOK)
		wantPartial(t, "bedrock fields", rec)
		doc := parseHTML(t, rec)
		for _, name := range []string{"base_url", "region", "aws_access_key_id", "aws_secret_access_key", "aws_session_token"} {
			if testid(doc, "input-"+name).Length() != 1 {
				t.Errorf("bedrock fields without %s:\n%s", name, rec.Body)
			}
		}
		if testid(doc, "input-api_key").Length() != 0 {
			t.Error("bedrock fields have an api_key")
		}
		if v, _ := testid(doc, "input-base_url").Attr("value"); v != "http://fake.test" {
			t.Errorf("base_url not kept: %q", v)
		}
		for _, name := range []string{"aws_secret_access_key", "aws_session_token"} {
			in := testid(doc, "input-"+name)
			typ, _ := in.Attr("type")
			ac, _ := in.Attr("autocomplete")
			if _, hasValue := in.Attr("value"); typ != "password" || ac != "off" || hasValue {
				t.Errorf("%s is not a write-only input: type %q autocomplete %q value %v", name, typ, ac, hasValue)
			}
		}
		rec = b.get("/providers/fields?api_type=vertex")
		wantStatus(t, "vertex fields without htmx", rec, http.StatusOK)
		wantFullPage(t, "vertex fields without htmx", rec)
		if testid(parseHTML(t, rec), "input-credentials_file").Length() != 1 {
			t.Error("the vertex form has no key file input")
		}

		// A missing secret comes back at its field, the settings kept, the
		// secrets typed asked for again.
		form := formOf(tok, "name", "aws", "api_type", "bedrock", "region", "us-east-1", "aws_access_key_id", "AKIAIOSFODNN7EXAMPLE",
			"aws_session_token", awsToken)
		rec = b.post("/providers", form, nil)
		wantStatus(t, "bedrock without a secret key", rec, http.StatusUnprocessableEntity)
		doc = parseHTML(t, rec)
		if got := text(doc, "error-aws_secret_access_key"); got != "is required for api_type bedrock" {
			t.Errorf("error-aws_secret_access_key = %q", got)
		}
		if v, _ := testid(doc, "input-region").Attr("value"); v != "us-east-1" {
			t.Errorf("region not kept: %q", v)
		}
		if !strings.Contains(text(doc, "provider-key-again"), "AWS session token") {
			t.Errorf("the typed session token is not asked for again: %q", text(doc, "provider-key-again"))
		}
		if strings.Contains(rec.Body.String(), awsToken) {
			t.Error("the refused form holds the typed token")
		}
		rec = b.post("/providers", form, hx())
		wantStatus(t, "htmx bedrock without a secret key", rec, http.StatusUnprocessableEntity)
		wantPartial(t, "htmx bedrock without a secret key", rec)
		if text(parseHTML(t, rec), "error-aws_secret_access_key") == "" {
			t.Errorf("htmx refusal without the error at its field:\n%s", rec.Body)
		}

		form.Set("aws_secret_access_key", awsSecret)
		wantSeeOther(t, "bedrock", b.post("/providers", form, nil), false, "/providers")
		vertex := formOf(tok, "name", "gcp", "api_type", "vertex", "project", "my-project-123", "location", "us")
		wantSeeOther(t, "vertex with a key file", b.postMultipart("/providers", vertex, map[string]string{"credentials_file": keyFile("0123456789abcdef")}, hx()),
			true, "/providers")
		azure := formOf(tok, "name", "az", "api_type", "azure", "base_url", "https://res.openai.azure.com", "api_key", azureKey)
		wantSeeOther(t, "azure", b.post("/providers", azure, nil), false, "/providers")
		wantSecrets("gcp", models.ProviderSecrets{CredentialsJSON: keyFile("0123456789abcdef")})(t, s)

		// The list: each type's settings, the default base URL, secrets by
		// their last four.
		rec = b.get("/providers")
		doc = parseHTML(t, rec)
		ps, err := s.ListProviders(context.Background())
		if err != nil || len(ps) != 3 {
			t.Fatalf("providers %+v, %v", ps, err)
		}
		row := func(id int64) finder {
			return testid(doc, "provider").Filter(`[data-provider-id="` + strconv.FormatInt(id, 10) + `"]`)
		}
		for _, c := range []struct {
			row      finder
			id, want string
		}{
			{row(ps[0].ID), "provider-base-url", "https://bedrock-runtime.us-east-1.amazonaws.com (default)"},
			{row(ps[0].ID), "provider-fact-region", "region us-east-1"},
			{row(ps[0].ID), "provider-fact-aws_access_key_id", "access key id AKIAIOSFODNN7EXAMPLE"},
			{row(ps[0].ID), "provider-secret-aws_secret_access_key", "secret key …QRST"},
			{row(ps[0].ID), "provider-secret-aws_session_token", "session token …9876"},
			{row(ps[1].ID), "provider-base-url", "https://aiplatform.us.rep.googleapis.com (default)"},
			{row(ps[1].ID), "provider-fact-project", "project my-project-123"},
			{row(ps[1].ID), "provider-fact-location", "location us"},
			{row(ps[1].ID), "provider-key", "…cdef"},
			{row(ps[2].ID), "provider-base-url", "https://res.openai.azure.com"},
			{row(ps[2].ID), "provider-fact-api_version", "api-version 2024-10-21 (default)"},
			{row(ps[2].ID), "provider-fact-deployments", "calls https://res.openai.azure.com/openai/deployments/{upstream model}"},
			{row(ps[2].ID), "provider-key", "…cdef"},
		} {
			if got := strings.Join(strings.Fields(text(c.row, c.id)), " "); got != c.want {
				t.Errorf("%s = %q, want %q", c.id, got, c.want)
			}
		}

		// The edit form says which secrets are stored; one replaced, the
		// other kept.
		id := strconv.FormatInt(ps[0].ID, 10)
		rec = b.get("/providers/" + id + "/edit")
		doc = parseHTML(t, rec)
		if got := strings.Join(strings.Fields(text(doc, "stored-aws_secret_access_key")), " "); got != "(stored: …QRST; leave empty to keep)" {
			t.Errorf("stored-aws_secret_access_key = %q", got)
		}
		if v, _ := testid(doc, "input-region").Attr("value"); v != "us-east-1" {
			t.Errorf("edit form region = %q", v)
		}
		rec = b.do("GET", "/providers/"+id+"/fields?api_type=vertex", nil, hx())
		if testid(parseHTML(t, rec), "stored-credentials_json").Length() != 0 {
			t.Error("a key file shown as stored on a bedrock provider")
		}
		edit := formOf(tok, "name", "aws", "api_type", "bedrock", "region", "us-west-2", "aws_access_key_id", "AKIAIOSFODNN7EXAMPLE",
			"aws_secret_access_key", "", "aws_session_token", awsToken2)
		wantSeeOther(t, "edit", b.post("/providers/"+id, edit, nil), false, "/providers")
		wantSecrets("aws", models.ProviderSecrets{AWSSecretAccessKey: awsSecret, AWSSessionToken: awsToken2})(t, s)
		edit.Set("region", "mars-1")
		before := providersState(t, s)
		rec = b.post("/providers/"+id, edit, nil)
		wantStatus(t, "edit with a bad region", rec, http.StatusUnprocessableEntity)
		if got := text(parseHTML(t, rec), "error-region"); got != "must be an AWS region such as us-east-1" {
			t.Errorf("error-region = %q", got)
		}
		if providersState(t, s) != before {
			t.Error("a refused edit changed the provider")
		}
	})
}

// TestProviderTypeSecretsNeverShown reads every provider answer and page
// with providers of each type: no secret, nor its start, appears.
func TestProviderTypeSecretsNeverShown(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		var bodies []string
		api := func(method, path, body string) {
			rec := ta.api(t, method, path, body)
			if rec.Code >= 500 {
				t.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
			}
			bodies = append(bodies, method+" "+path+"\n"+rec.Body.String())
		}
		api("POST", "/api/providers", `{"name":"az","api_type":"azure","base_url":"https://res.openai.azure.com","api_key":"`+azureKey+`"}`)
		api("POST", "/api/providers", `{"name":"aws","api_type":"bedrock","region":"us-east-1","aws_access_key_id":"AKIAIOSFODNN7EXAMPLE",`+
			`"aws_secret_access_key":"`+awsSecret+`","aws_session_token":"`+awsToken+`"}`)
		api("POST", "/api/providers", `{"name":"gem","api_type":"gemini","api_key":"`+geminiKey+`"}`)
		api("POST", "/api/providers", `{"name":"gcp","api_type":"vertex","project":"my-project-123","credentials_json":`+jsonString(keyFile("0123456789abcdef"))+`}`)
		api("POST", "/api/providers", `{"name":"x","api_type":"vertex","project":"p-1","location":"nowhere","credentials_json":`+jsonString(keyFile("k"))+`}`)
		api("POST", "/api/providers", `{"name":"x","api_type":"gemini","api_key":"`+geminiKey+`","aws_session_token":"`+awsToken+`"}`)
		api("PATCH", "/api/providers/1", `{"api_key":"`+azureKey2+`"}`)
		api("PATCH", "/api/providers/2", `{"aws_session_token":"`+awsToken2+`","region":"bad"}`)
		api("PATCH", "/api/providers/3", `{"api_key":"`+geminiKey2+`"}`)
		api("GET", "/api/providers", "")

		b := ta.browser(t)
		tok := b.signIn()
		for _, path := range []string{"/providers", "/providers/1/edit", "/providers/2/edit", "/providers/3/edit", "/providers/4/edit",
			"/providers/2/fields?api_type=bedrock", "/providers/4/fields?api_type=vertex", "/models"} {
			for _, h := range []http.Header{nil, hx()} {
				rec := b.do("GET", path, nil, h)
				bodies = append(bodies, "GET "+path+"\n"+rec.Body.String())
			}
		}
		for _, h := range []http.Header{nil, hx()} {
			rec := b.post("/providers/2", formOf(tok, "name", "aws", "api_type", "bedrock", "region", "nowhere",
				"aws_access_key_id", "AKIAIOSFODNN7EXAMPLE", "aws_secret_access_key", awsSecret, "aws_session_token", awsToken), h)
			bodies = append(bodies, "POST /providers/2 (refused)\n"+rec.Body.String())
			rec = b.postMultipart("/providers", formOf(tok, "name", "gcp2", "api_type", "vertex", "project", "my-project-123", "location", "moon"),
				map[string]string{"credentials_file": keyFile("fedcba9876543210")}, h)
			bodies = append(bodies, "POST /providers vertex (refused)\n"+rec.Body.String())
		}
		bodies = append(bodies, "log\n"+ta.logs.String())

		for _, secret := range []string{azureKey, azureKey2, awsSecret, awsToken, awsToken2, geminiKey, geminiKey2, privateKeyBytes, "PRIVATE KEY"} {
			for _, body := range bodies {
				if strings.Contains(body, secret) || strings.Contains(body, secret[:min(12, len(secret))]) {
					what, _, _ := strings.Cut(body, "\n")
					t.Errorf("%q appears in %s", secret, what)
				}
			}
		}
		all := strings.Join(bodies, "\n")
		for _, shown := range []string{`"api_key_last4":"4444"`, `"aws_secret_access_key_last4":"QRST"`, `"credentials_json_last4":"cdef"`, "…QRST", "…8888"} {
			if !strings.Contains(all, shown) {
				t.Errorf("%s not found: is the test reading the answers?", shown)
			}
		}
	})
}

// TestProviderTypeOptions: the form offers exactly the types the providers
// table has.
func TestProviderTypeOptions(t *testing.T) {
	var got []string
	for _, o := range views.APITypeOptions() {
		if _, ok := providers.Lookup(o.Value); !ok {
			t.Errorf("the form offers %q, which the providers table does not have", o.Value)
		}
		got = append(got, o.Value)
	}
	if want := []string{"openai", "anthropic", "azure", "bedrock", "gemini", "vertex"}; !slices.Equal(got, want) {
		t.Errorf("options %v, want %v", got, want)
	}
}
