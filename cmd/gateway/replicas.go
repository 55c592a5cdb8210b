package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"sync"

	"gateway/models"
	"gateway/proxy"
)

// announcingReloader rebuilds this gateway's routing table after an admin
// write and tells the other gateways on the same PostgreSQL to do the same.
type announcingReloader struct {
	proxy  *proxy.Server
	db     *models.DB
	origin string
}

func (a announcingReloader) Reload(ctx context.Context) error {
	if err := a.proxy.Reload(ctx); err != nil {
		return err
	}
	return a.db.NotifyChange(ctx, a.origin)
}

// newOrigin names this process in change notices.
func newOrigin() string {
	b := make([]byte, 8)
	rand.Read(b) //nolint:errcheck // crypto/rand does not fail on supported platforms
	return hex.EncodeToString(b)
}

// followChanges reloads the routing table whenever another gateway announces
// a change, until ctx ends; listening is closed once notices are heard (at
// once on SQLite, where there is no other gateway).
func followChanges(ctx context.Context, db *models.DB, p *proxy.Server, origin string, logger *slog.Logger, listening chan<- struct{}) {
	var once sync.Once
	ready := func() { once.Do(func() { close(listening) }) }
	defer ready()
	db.ListenChanges(ctx, origin, models.Listener{
		OnListening: ready,
		OnChange: func() {
			if err := p.Reload(ctx); err != nil {
				logger.Error("reload after another gateway's change failed", "err", err)
			}
		},
		OnError: func(err error) {
			logger.Warn("lost the change notices of other gateways; reconnecting", "err", err)
		},
	})
}
