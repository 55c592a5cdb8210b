package proxy

import (
	"context"
	"fmt"
	"net/http"

	"gateway/models"
	"gateway/proxy/providers"
)

// Reload rebuilds the snapshot from the store and swaps it in atomically;
// requests in flight finish on the snapshot they started with. Reloads run one
// at a time so that an older read can never replace a newer one, but requests
// never wait for them.
func (s *Server) Reload(ctx context.Context) error {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	// Before budgets are read: they then include what the spool held.
	if err := s.logs.OpenSpool(ctx); err != nil {
		return err
	}
	d, err := s.loadSnapshotData(ctx)
	if err != nil {
		return fmt.Errorf("proxy: reload: %w", err)
	}
	providers, retired := s.prepareProviders(d.deployments)
	snap := buildSnapshot(d, providers, s.states)
	s.syncAccounts(d, snap)
	s.snap.Store(snap)
	s.states.retain(deploymentIDs(d.deployments))
	for _, t := range retired {
		t.CloseIdleConnections()
	}
	s.log.Info("routing table loaded", "pools", len(snap.pools), "keys", len(snap.keys), "providers", len(providers))
	return nil
}

func (s *Server) loadSnapshotData(ctx context.Context) (snapshotData, error) {
	store := s.store
	var d snapshotData
	var err error
	if d.catalog, err = s.prices.Load(ctx, store); err != nil {
		return d, err
	}
	allow, _, err := store.GetSetting(ctx, models.SettingAllowUnpricedWithBudget)
	if err != nil {
		return d, err
	}
	d.allowUnpriced = allow == "true"
	if d.deployments, err = store.ListDeployments(ctx); err != nil {
		return d, err
	}
	if d.keys, err = store.ListKeys(ctx); err != nil {
		return d, err
	}
	if d.settings, err = store.ListPoolSettings(ctx); err != nil {
		return d, err
	}
	if d.fallbacks, err = store.ListFallbacks(ctx); err != nil {
		return d, err
	}
	if d.users, err = store.ListUsers(ctx); err != nil {
		return d, err
	}
	d.teams, err = store.ListTeams(ctx)
	return d, err
}

// prepareProviders returns one provider per id that a deployment uses, with
// its key decrypted and its transport reused while the base URL is unchanged,
// and the transports that are no longer used. Caller holds reloadMu.
func (s *Server) prepareProviders(ds []models.Deployment) (map[int64]*provider, []*http.Transport) {
	out := make(map[int64]*provider)
	next := make(map[int64]*cachedTransport)
	for i := range ds {
		p := &ds[i].Provider
		if _, done := out[p.ID]; done {
			continue
		}
		ct := s.transports[p.ID]
		if ct == nil || ct.baseURL != p.BaseURL {
			ct = &cachedTransport{baseURL: p.BaseURL, transport: providers.NewTransport()}
		}
		next[p.ID] = ct
		secrets, err := s.store.ProviderSecrets(p)
		pr := newProvider(p, secrets, err, ct.transport)
		if pr.err != nil {
			s.log.Error("provider is misconfigured; its model entries will fail", "provider", p.Name, "err", pr.err)
		}
		out[p.ID] = pr
	}
	var retired []*http.Transport
	for id, ct := range s.transports {
		if next[id] != ct {
			retired = append(retired, ct.transport)
		}
	}
	s.transports = next
	return out, retired
}

func deploymentIDs(ds []models.Deployment) map[int64]bool {
	ids := make(map[int64]bool, len(ds))
	for _, d := range ds {
		ids[d.ID] = true
	}
	return ids
}
