package pricing

import (
	"cmp"
	"context"
	"fmt"
	"sync"

	"gateway/models"
)

// ForEntry is the prices of a model entry when it calls upstreamModel (a
// wildcard route's model for this request): its own, over the catalog's
// row for its base model or else that upstream model.
func ForEntry(c *Catalog, providerType string, e *models.Deployment, upstreamModel string) Prices {
	model := cmp.Or(e.BaseModel, upstreamModel)
	return Effective(e.Prices, c.Lookup(providerType, model), FamilyOf(providerType, model))
}

// Store is the catalog in effect, read from the database: the built-in one
// with the rows an admin imported over it. It parses the imported rows
// again only when they changed.
type Store struct {
	mu  sync.Mutex
	raw string
	cat *Catalog
}

// Load returns the catalog in effect now.
func (s *Store) Load(ctx context.Context, store *models.Store) (*Catalog, error) {
	raw, ok, err := store.GetSetting(ctx, models.SettingPriceCatalog)
	if err != nil {
		return nil, fmt.Errorf("pricing: load the imported catalog: %w", err)
	}
	if !ok || raw == "" {
		return Builtin(), nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cat != nil && s.raw == raw {
		return s.cat, nil
	}
	f, err := Parse([]byte(raw))
	if err != nil {
		return nil, err
	}
	s.raw, s.cat = raw, New(f, Builtin())
	return s.cat, nil
}
