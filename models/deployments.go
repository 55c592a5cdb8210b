package models

import (
	"context"

	"gorm.io/gorm"
)

// CreateDeployment stores a model entry after checking its provider exists.
func (s *Store) CreateDeployment(ctx context.Context, d *Deployment) error {
	return s.g(ctx).Transaction(func(tx *gorm.DB) error {
		if err := providerExists(tx, d.ProviderID); err != nil {
			return err
		}
		if err := createRow(ctx, s, tx, d, "model entry", "Provider"); err != nil {
			return err
		}
		return tx.First(&d.Provider, d.ProviderID).Error
	})
}

// ListDeployments returns every model entry with its provider, grouped by
// public name.
func (s *Store) ListDeployments(ctx context.Context) ([]Deployment, error) {
	var ds []Deployment
	if err := s.g(ctx).Preload("Provider").Order("public_name, id").Find(&ds).Error; err != nil {
		return nil, wrap(err, "list model entries")
	}
	return ds, nil
}

// GetDeployment returns one model entry with its provider.
func (s *Store) GetDeployment(ctx context.Context, id int64) (*Deployment, error) {
	var d Deployment
	if err := s.g(ctx).Preload("Provider").First(&d, id).Error; err != nil {
		return nil, wrap(err, "get model entry %d", id)
	}
	return &d, nil
}

// UpdateDeployment lets apply change the entry and writes every column back,
// so that a weight set to 0 stays 0.
func (s *Store) UpdateDeployment(ctx context.Context, id int64, apply func(*Deployment) error) (*Deployment, error) {
	d, err := updateByID(ctx, s, id, "model entry", func(tx *gorm.DB, d *Deployment) error {
		if err := apply(d); err != nil {
			return err
		}
		return providerExists(tx, d.ProviderID)
	})
	if err != nil {
		return nil, err
	}
	return s.GetDeployment(ctx, d.ID)
}

// DeleteDeployment deletes a model entry and its last health check.
func (s *Store) DeleteDeployment(ctx context.Context, id int64) error {
	return s.g(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Where("deployment_id = ?", id).Delete(&HealthCheck{}).Error; err != nil {
			return wrap(err, "delete model entry %d", id)
		}
		return deleteByID[Deployment](ctx, s, tx, id, "model entry")
	})
}

func providerExists(tx *gorm.DB, id int64) error {
	var n int64
	if err := tx.Model(&Provider{}).Where("id = ?", id).Count(&n).Error; err != nil {
		return wrap(err, "find provider %d", id)
	}
	if n == 0 {
		return invalid("provider_id", "no provider with id %d", id)
	}
	return nil
}
