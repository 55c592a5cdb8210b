package handlers

import (
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"gateway/models"
	"gateway/proxy/providers"
)

// providerTypeNames are the api_types the API and the Providers page take,
// in the order the page offers them; each one's fields are in the
// providers package's table.
var providerTypeNames = []string{models.APITypeOpenAI, models.APITypeAnthropic, models.APITypeAzure,
	models.APITypeBedrock, models.APITypeGemini, models.APITypeVertex}

// providerInput is a provider as the API's bodies and the page's form give
// it: the settings every type has, the fields of all types, and the secrets
// in clear. Which type fields apply, and which are required, is the type's
// (checkType); the tags hold what is true of every type.
type providerInput struct {
	Name              string `json:"name" validate:"required,max=200,singleline"`
	APIType           string `json:"api_type" validate:"required"`
	BaseURL           string `json:"base_url" validate:"omitempty,max=2000,baseurl"`
	SupportsResponses bool   `json:"supports_responses"`
	APIVersion        string `json:"api_version" validate:"max=40"`
	Region            string `json:"region" validate:"max=40"`
	AWSAccessKeyID    string `json:"aws_access_key_id" validate:"max=128"`
	Project           string `json:"project" validate:"max=200"`
	Location          string `json:"location" validate:"max=60"`
	// Secrets: empty keeps the stored one on an update.
	APIKey             string `json:"api_key" validate:"omitempty,max=4000,printascii"`
	AWSSecretAccessKey string `json:"aws_secret_access_key" validate:"omitempty,max=4000,printascii"`
	AWSSessionToken    string `json:"aws_session_token" validate:"omitempty,max=8000,printascii"`
	CredentialsJSON    string `json:"credentials_json" validate:"max=64000"`
}

// providerInputOf is p's settings as an input, without its secrets: the
// base an update applies its changes to.
func providerInputOf(p *models.Provider) providerInput {
	return providerInput{Name: p.Name, APIType: p.APIType, BaseURL: p.BaseURL, SupportsResponses: p.SupportsResponses,
		APIVersion: p.APIVersion, Region: p.Region, AWSAccessKeyID: p.AWSAccessKeyID, Project: p.Project, Location: p.Location}
}

// field is the value of the type field named name (a providers.Field's
// Name), nil for a name no type has.
func (in *providerInput) field(name string) *string {
	switch name {
	case "api_key":
		return &in.APIKey
	case "api_version":
		return &in.APIVersion
	case "region":
		return &in.Region
	case "aws_access_key_id":
		return &in.AWSAccessKeyID
	case "aws_secret_access_key":
		return &in.AWSSecretAccessKey
	case "aws_session_token":
		return &in.AWSSessionToken
	case "project":
		return &in.Project
	case "location":
		return &in.Location
	case "credentials_json":
		return &in.CredentialsJSON
	}
	return nil
}

// typeFieldNames are the names of every type's fields, each once.
var typeFieldNames = []string{"api_key", "api_version", "region", "aws_access_key_id", "aws_secret_access_key",
	"aws_session_token", "project", "location", "credentials_json"}

// given lists the type fields that hold a value: in an input decoded from a
// body over a zero input, the fields the caller sent.
func (in *providerInput) given() []string {
	var names []string
	for _, name := range typeFieldNames {
		if *in.field(name) != "" {
			names = append(names, name)
		}
	}
	return names
}

// secrets are the input's secrets; empty ones keep the stored ones.
func (in *providerInput) secrets() models.ProviderSecrets {
	return models.ProviderSecrets{APIKey: in.APIKey, AWSSecretAccessKey: in.AWSSecretAccessKey,
		AWSSessionToken: in.AWSSessionToken, CredentialsJSON: in.CredentialsJSON}
}

// applyTo sets p's settings from the input, which checkType accepted. A
// field that is not of the type is emptied, a secret of another type
// dropped: what a type change leaves behind is of no use and must not be
// shown.
func (in *providerInput) applyTo(p *models.Provider) {
	typ, _ := providers.Lookup(in.APIType)
	keep := func(name, v string) string {
		if hasField(typ, name) {
			return v
		}
		return ""
	}
	p.Name, p.APIType, p.BaseURL, p.SupportsResponses = in.Name, in.APIType, in.BaseURL, in.SupportsResponses
	p.APIVersion, p.Region, p.AWSAccessKeyID = keep("api_version", in.APIVersion), keep("region", in.Region), keep("aws_access_key_id", in.AWSAccessKeyID)
	p.Project, p.Location = keep("project", in.Project), keep("location", in.Location)
	for _, s := range storedSecrets(p) {
		if !hasField(typ, s.name) {
			*s.cipher, *s.last4 = nil, "" // the api key's is sealed empty again: its column is never null
		}
	}
}

// storedSecret is one of a provider's sealed secrets.
type storedSecret struct {
	name   string
	cipher *[]byte
	last4  *string
}

func storedSecrets(p *models.Provider) []storedSecret {
	return []storedSecret{
		{"api_key", &p.APIKeyCipher, &p.APIKeyLast4},
		{"aws_secret_access_key", &p.AWSSecretCipher, &p.AWSSecretLast4},
		{"aws_session_token", &p.AWSSessionTokenCipher, &p.AWSSessionTokenLast4},
		{"credentials_json", &p.CredentialsCipher, &p.CredentialsLast4},
	}
}

// secretStored: p holds the secret named name. A type without an api key
// still stores an empty one, sealed, so its type must have the field.
func secretStored(p *models.Provider, name string) bool {
	if p == nil {
		return false
	}
	typ, _ := providers.Lookup(p.APIType)
	for _, s := range storedSecrets(p) {
		if s.name == name {
			return hasField(typ, name) && len(*s.cipher) > 0
		}
	}
	return false
}

func hasField(typ *providers.Type, name string) bool {
	return typ != nil && slices.ContainsFunc(typ.Fields, func(f providers.Field) bool { return f.Name == name })
}

// validateProvider checks the input against the rules of every provider
// (the tags) and of its type. given are the type fields the caller sent;
// stored is the provider being edited, nil when creating one: its secrets
// need not be sent again.
func (a *App) validateProvider(in *providerInput, given []string, stored *models.Provider) error {
	return joinInputErrors(checkType(in, given, stored), a.validateStruct(in))
}

// checkType checks the fields of the input's type: required ones are
// there, each has its form, and no other type's field was sent.
func checkType(in *providerInput, given []string, stored *models.Provider) *inputError {
	var errs inputError
	fail := func(field, format string, args ...any) {
		errs.fields = append(errs.fields, badInput(field, format, args...).fields...)
	}
	typ, ok := providers.Lookup(in.APIType)
	if !ok {
		if in.APIType != "" {
			fail("api_type", "must be one of: %s", strings.Join(providerTypeNames, ", "))
		}
		return errs.orNil()
	}
	for _, name := range given {
		if !hasField(typ, name) {
			fail(name, "is not a field of api_type %s", typ.Name)
		}
	}
	if typ.DefaultBase == nil && in.BaseURL == "" {
		fail("base_url", "is required for api_type %s", typ.Name)
	}
	for _, f := range typ.Fields {
		v := *in.field(f.Name)
		switch {
		case v == "" && f.Required && !(f.Secret && secretStored(stored, f.Name)):
			fail(f.Name, "is required for api_type %s", typ.Name)
		case v != "":
			if msg := fieldFormat(f.Name, v); msg != "" {
				fail(f.Name, "%s", msg)
			}
		}
	}
	return errs.orNil()
}

// orNil is nil for an error that holds no field: a nil *inputError in an
// error interface would not be nil.
func (e *inputError) orNil() *inputError {
	if len(e.fields) == 0 {
		return nil
	}
	return e
}

var (
	// An AWS region: us-east-1, eu-central-2, us-gov-west-1, ap-southeast-4.
	awsRegion = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]{1,2}$`)
	// A Google Cloud region: us-central1, europe-west4, northamerica-northeast2.
	// It becomes part of a host name, so nothing else gets through.
	googleRegion = regexp.MustCompile(`^[a-z]+-[a-z]+[0-9]{1,2}$`)
	// Azure OpenAI's api-version: 2024-10-21, 2024-12-01-preview.
	azureAPIVersion = regexp.MustCompile(`^([0-9]{4}-[0-9]{2}-[0-9]{2})(-preview)?$`)
	// An AWS access key id: AKIA… or ASIA…, letters and digits.
	awsAccessKeyID = regexp.MustCompile(`^[A-Za-z0-9]+$`)
	// A Google Cloud project id (my-project-123), possibly domain-scoped
	// (example.com:my-project). It becomes part of a URL path.
	googleProject = regexp.MustCompile(`^([a-z0-9.-]+:)?[a-z][a-z0-9-]*[a-z0-9]$`)
)

// fieldFormat says what is wrong with a type field's value, "" when
// nothing is. It never quotes the value: it may be a secret.
func fieldFormat(name, v string) string {
	switch name {
	case "region":
		if !awsRegion.MatchString(v) {
			return "must be an AWS region such as us-east-1"
		}
	case "location":
		if v != "global" && v != "us" && v != "eu" && !googleRegion.MatchString(v) {
			return "must be global, us, eu or a Google Cloud region such as us-central1"
		}
	case "api_version":
		m := azureAPIVersion.FindStringSubmatch(v)
		if m == nil {
			return "must be an Azure OpenAI API version such as 2024-10-21 or 2024-12-01-preview"
		}
		if _, err := time.Parse(time.DateOnly, m[1]); err != nil {
			return "must be an Azure OpenAI API version such as 2024-10-21 or 2024-12-01-preview: the date is not one"
		}
	case "aws_access_key_id":
		if !awsAccessKeyID.MatchString(v) {
			return "must be an AWS access key id (letters and digits, such as AKIA…)"
		}
	case "project":
		if !googleProject.MatchString(v) {
			return "must be a Google Cloud project id (lowercase letters, digits and hyphens, such as my-project-123)"
		}
	case "credentials_json":
		return serviceAccountKeyProblem(v)
	}
	return ""
}

// serviceAccountKeyProblem says what keeps v from being a service account
// key file, "" when it is one. The proxy gets its OAuth tokens with
// client_email and private_key from token_uri.
func serviceAccountKeyProblem(v string) string {
	var key map[string]any
	if err := json.Unmarshal([]byte(v), &key); err != nil || key == nil {
		return "must be a service account key file's content (JSON): it is not a JSON object"
	}
	if t, _ := key["type"].(string); t != "service_account" {
		return `must be a service account key file: its "type" is not "service_account"`
	}
	for _, name := range []string{"client_email", "private_key", "token_uri"} {
		if s, _ := key[name].(string); s == "" {
			return "must be a service account key file: it has no " + name
		}
	}
	if u, err := url.Parse(key["token_uri"].(string)); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "must be a service account key file: its token_uri is not an http(s) URL"
	}
	return ""
}

// dropOldBaseURL: an update that changes the api_type without naming a base
// URL drops the old type's base URL when the new type has a default one;
// the old type's URL would only send the new type's calls to the wrong host.
func (in *providerInput) dropOldBaseURL(p *models.Provider, body jsonBody) {
	if _, named := body["base_url"]; named || in.APIType == p.APIType {
		return
	}
	if typ, ok := providers.Lookup(in.APIType); ok && typ.DefaultBase != nil {
		in.BaseURL = ""
	}
}
