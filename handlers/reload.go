package handlers

import (
	"context"
	"fmt"
	"time"
)

// reload rebuilds the proxy's routing table after a write. The write is
// already committed, so the rebuild must not die with a caller that hangs up.
func (a *App) reload(ctx context.Context) error {
	if a.reloader == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := a.reloader.Reload(ctx); err != nil {
		a.logger(ctx).Error("rebuild routing table after an admin write", "err", err)
		return fmt.Errorf("%w: %w", errReload, err)
	}
	return nil
}
