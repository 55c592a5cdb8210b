package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"sync"
	"time"

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

// notifyTimeout bounds the notice to the other gateways.
const notifyTimeout = 10 * time.Second

// Reload rebuilds the local table and tells the others, whatever became of
// the rebuild: the change is committed, and a replica that is not told keeps
// serving the old table. The notice has its own deadline, so that a rebuild
// that ran out of time does not take the notice with it.
func (a announcingReloader) Reload(ctx context.Context) error {
	rebuilt := a.proxy.Reload(ctx)
	notifyCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), notifyTimeout)
	defer cancel()
	return errors.Join(rebuilt, a.db.NotifyChange(notifyCtx, a.origin))
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
