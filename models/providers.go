package models

import (
	"context"
	"fmt"

	"gorm.io/gorm"
)

// CreateProvider stores p with apiKey sealed.
func (s *Store) CreateProvider(ctx context.Context, p *Provider, apiKey string) error {
	if err := s.sealKey(p, apiKey); err != nil {
		return err
	}
	if err := s.g(ctx).Create(p).Error; err != nil {
		return wrap(err, "create provider %q", p.Name)
	}
	return nil
}

// ListProviders returns every provider in id order.
func (s *Store) ListProviders(ctx context.Context) ([]Provider, error) {
	return listAll[Provider](ctx, s, "providers")
}

// GetProvider returns one provider.
func (s *Store) GetProvider(ctx context.Context, id int64) (*Provider, error) {
	return getByID[Provider](ctx, s, id, "provider")
}

// UpdateProvider lets apply change the provider; a non-empty newAPIKey replaces
// the stored key, an empty one keeps it.
func (s *Store) UpdateProvider(ctx context.Context, id int64, newAPIKey string, apply func(*Provider) error) (*Provider, error) {
	return updateByID(ctx, s, id, "provider", func(_ *gorm.DB, p *Provider) error {
		if err := apply(p); err != nil {
			return err
		}
		if newAPIKey == "" {
			return nil
		}
		return s.sealKey(p, newAPIKey)
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
		return deleteByID[Provider](ctx, tx, id, "provider")
	})
}

// ProviderAPIKey decrypts the provider's api key. Only the proxy's snapshot
// builder and live checks call it.
func (s *Store) ProviderAPIKey(p *Provider) (string, error) {
	return s.cipher.Decrypt(p.APIKeyCipher)
}

func (s *Store) sealKey(p *Provider, apiKey string) error {
	sealed, err := s.cipher.Encrypt(apiKey)
	if err != nil {
		return err
	}
	p.APIKeyCipher = sealed
	p.APIKeyLast4 = last4(apiKey)
	return nil
}

// last4 is what the admin may see of a secret: its last four characters, and
// nothing at all of a secret too short to hide the rest.
func last4(s string) string {
	if len(s) < 12 {
		return ""
	}
	return s[len(s)-4:]
}
