package handlers

import (
	"context"
	"net/http"
	"time"

	"gateway/models"
	"gateway/proxy/providers"
)

// providerJSON is a provider in API answers: its settings, the fields of its
// type, and of each secret of its type only its last four characters (when
// it is long enough to spare them), never the secret. A field of another
// type is absent.
type providerJSON struct {
	ID                      int64     `json:"id"`
	Name                    string    `json:"name"`
	APIType                 string    `json:"api_type"`
	BaseURL                 string    `json:"base_url"`
	APIKeyLast4             *string   `json:"api_key_last4,omitempty"`
	SupportsResponses       bool      `json:"supports_responses"`
	APIVersion              *string   `json:"api_version,omitempty"`
	Region                  *string   `json:"region,omitempty"`
	AWSAccessKeyID          *string   `json:"aws_access_key_id,omitempty"`
	AWSSecretAccessKeyLast4 *string   `json:"aws_secret_access_key_last4,omitempty"`
	AWSSessionTokenLast4    *string   `json:"aws_session_token_last4,omitempty"`
	Project                 *string   `json:"project,omitempty"`
	Location                *string   `json:"location,omitempty"`
	CredentialsJSONLast4    *string   `json:"credentials_json_last4,omitempty"`
	CreatedAt               time.Time `json:"created_at"`
	UpdatedAt               time.Time `json:"updated_at"`
}

func providerJSONOf(p *models.Provider) providerJSON {
	typ, ok := providers.Lookup(p.APIType)
	of := func(name, v string) *string {
		if hasField(typ, name) || (!ok && name == "api_key") {
			return &v
		}
		return nil
	}
	return providerJSON{
		ID:                      p.ID,
		Name:                    p.Name,
		APIType:                 p.APIType,
		BaseURL:                 p.BaseURL,
		APIKeyLast4:             of("api_key", p.APIKeyLast4),
		SupportsResponses:       p.SupportsResponses,
		APIVersion:              of("api_version", p.APIVersion),
		Region:                  of("region", p.Region),
		AWSAccessKeyID:          of("aws_access_key_id", p.AWSAccessKeyID),
		AWSSecretAccessKeyLast4: of("aws_secret_access_key", p.AWSSecretLast4),
		AWSSessionTokenLast4:    of("aws_session_token", p.AWSSessionTokenLast4),
		Project:                 of("project", p.Project),
		Location:                of("location", p.Location),
		CredentialsJSONLast4:    of("credentials_json", p.CredentialsLast4),
		CreatedAt:               p.CreatedAt,
		UpdatedAt:               p.UpdatedAt,
	}
}

// createProvider handles POST /api/providers.
func (a *App) createProvider(w http.ResponseWriter, r *http.Request) {
	createAs(a, w, r, a.newProvider, writtenAs(a, providerJSONOf))
}

// newProvider stores the provider a POST body describes. Its rules depend
// on its type, so the body is checked as a whole, not by the tags alone.
func (a *App) newProvider(ctx context.Context, body jsonBody) (*models.Provider, error) {
	var in providerInput
	if err := mergeBody(body, &in); err != nil {
		return nil, err
	}
	if err := a.validateProvider(&in, in.given(), nil); err != nil {
		return nil, err
	}
	var p models.Provider
	in.applyTo(&p)
	return &p, nameTaken(a.store.CreateProvider(ctx, &p, in.secrets()), "provider", in.Name)
}

// listProviders handles GET /api/providers.
func (a *App) listProviders(w http.ResponseWriter, r *http.Request) {
	listAs(a, w, r, a.store.ListProviders, providerJSONOf)
}

// updateProvider handles PATCH /api/providers/{id}.
func (a *App) updateProvider(w http.ResponseWriter, r *http.Request) {
	patchAs(a, w, r, "provider", a.editProvider, writtenAs(a, providerJSONOf))
}

// editProvider applies a PATCH body to provider id. The store takes the
// secrets to replace as an argument, so they are read from the body first:
// sent is the body alone, over nothing.
func (a *App) editProvider(ctx context.Context, id int64, body jsonBody) (*models.Provider, error) {
	var sent providerInput
	if err := mergeBody(body, &sent); err != nil {
		return nil, err
	}
	var in providerInput
	p, err := a.store.UpdateProvider(ctx, id, sent.secrets(), func(p *models.Provider) error {
		in = providerInputOf(p)
		if err := mergeBody(body, &in); err != nil {
			return err
		}
		in.dropOldBaseURL(p, body)
		if err := a.validateProvider(&in, sent.given(), p); err != nil {
			return err
		}
		in.applyTo(p)
		return nil
	})
	return p, nameTaken(err, "provider", in.Name)
}

// deleteProvider handles DELETE /api/providers/{id}; a provider that model
// entries use is refused with 409.
func (a *App) deleteProvider(w http.ResponseWriter, r *http.Request) {
	deleteAs(a, w, r, "provider", a.store.DeleteProvider, a.written)
}
