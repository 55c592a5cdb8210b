package models

import (
	"context"
	"encoding/json"
	"fmt"

	"gorm.io/gorm"
)

// ProviderSecrets are a provider's secrets in clear: the api key of the
// types that have one, the AWS secret key and session token of bedrock, the
// service account key file of vertex. They are stored only sealed.
type ProviderSecrets struct {
	APIKey             string
	AWSSecretAccessKey string
	AWSSessionToken    string
	CredentialsJSON    string
}

// CreateProvider stores p with its secrets sealed.
func (s *Store) CreateProvider(ctx context.Context, p *Provider, secrets ProviderSecrets) error {
	if err := s.seal(p, secrets); err != nil {
		return err
	}
	return s.g(ctx).Transaction(func(tx *gorm.DB) error {
		return createRow(ctx, s, tx, p, "provider")
	})
}

// ListProviders returns every provider in id order.
func (s *Store) ListProviders(ctx context.Context) ([]Provider, error) {
	return listAll[Provider](ctx, s, "providers")
}

// GetProvider returns one provider.
func (s *Store) GetProvider(ctx context.Context, id int64) (*Provider, error) {
	return getByID[Provider](ctx, s, id, "provider")
}

// UpdateProvider lets apply change the provider; each non-empty secret of
// replace replaces the stored one, an empty one keeps it.
func (s *Store) UpdateProvider(ctx context.Context, id int64, replace ProviderSecrets, apply func(*Provider) error) (*Provider, error) {
	return updateByID(ctx, s, id, "provider", func(_ *gorm.DB, p *Provider) error {
		if err := apply(p); err != nil {
			return err
		}
		return s.seal(p, replace)
	})
}

// DeleteProvider deletes a provider no model entry uses; otherwise ErrInUse.
func (s *Store) DeleteProvider(ctx context.Context, id int64) error {
	return s.g(ctx).Transaction(func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&Deployment{}).Where("provider_id = ?", id).Count(&n).Error; err != nil {
			return wrap(err, "delete provider %d", id)
		}
		if n > 0 {
			return fmt.Errorf("models: delete provider %d: %d model entries use it: %w", id, n, ErrInUse)
		}
		return deleteByID[Provider](ctx, s, tx, id, "provider")
	})
}

// ProviderSecrets decrypts the provider's secrets. Only the proxy's
// snapshot builder and live checks call it.
func (s *Store) ProviderSecrets(p *Provider) (ProviderSecrets, error) {
	var out ProviderSecrets
	for _, f := range p.secretFields(&out) {
		if len(*f.cipher) == 0 {
			continue
		}
		v, err := s.cipher.Decrypt(*f.cipher)
		if err != nil {
			return ProviderSecrets{}, err
		}
		*f.clear = v
	}
	return out, nil
}

// seal seals each non-empty secret into p. The api key's column is never
// null: a type without a key stores an empty one, sealed.
func (s *Store) seal(p *Provider, secrets ProviderSecrets) error {
	for _, f := range p.secretFields(&secrets) {
		if *f.clear == "" && !(f.cipher == &p.APIKeyCipher && p.APIKeyCipher == nil) {
			continue
		}
		sealed, err := s.cipher.Encrypt(*f.clear)
		if err != nil {
			return err
		}
		*f.cipher, *f.last4 = sealed, last4(*f.clear)
	}
	if secrets.CredentialsJSON != "" {
		// The end of a key file is "}"; its key's id names it.
		var key struct {
			PrivateKeyID string `json:"private_key_id"`
		}
		_ = json.Unmarshal([]byte(secrets.CredentialsJSON), &key)
		p.CredentialsLast4 = last4(key.PrivateKeyID)
	}
	return nil
}

// secretField ties a secret in clear to its sealed column and its last four.
type secretField struct {
	clear  *string
	cipher *[]byte
	last4  *string
}

func (p *Provider) secretFields(s *ProviderSecrets) [4]secretField {
	return [4]secretField{
		{&s.APIKey, &p.APIKeyCipher, &p.APIKeyLast4},
		{&s.AWSSecretAccessKey, &p.AWSSecretCipher, &p.AWSSecretLast4},
		{&s.AWSSessionToken, &p.AWSSessionTokenCipher, &p.AWSSessionTokenLast4},
		{&s.CredentialsJSON, &p.CredentialsCipher, &p.CredentialsLast4},
	}
}

// last4 is what the admin may see of a secret: its last four characters, and
// nothing at all of a secret too short to hide the rest.
func last4(s string) string {
	if len(s) < 12 {
		return ""
	}
	return s[len(s)-4:]
}
