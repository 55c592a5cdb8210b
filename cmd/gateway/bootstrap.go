package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"gateway/models"
)

// bootstrap makes a personal setup work in one step: with no admin user it
// creates "admin" (password from the config or a printed one-time password),
// and with no virtual key it creates one and prints it once.
func bootstrap(ctx context.Context, s *models.Store, cfg Config, stdout io.Writer, logger *slog.Logger) error {
	if err := bootstrapAdmin(ctx, s, cfg.AdminPassword, stdout, logger); err != nil {
		return err
	}
	return bootstrapKey(ctx, s, stdout, logger)
}

func bootstrapAdmin(ctx context.Context, s *models.Store, password string, stdout io.Writer, logger *slog.Logger) error {
	n, err := s.CountAdminUsers(ctx)
	if err != nil || n > 0 {
		return err
	}
	generated := password == ""
	if generated {
		raw := make([]byte, 12)
		if _, err := rand.Read(raw); err != nil {
			return fmt.Errorf("generate admin password: %w", err)
		}
		password = base64.RawURLEncoding.EncodeToString(raw)
	}
	if err := s.CreateAdminUser(ctx, &models.AdminUser{Username: "admin", Role: models.RoleOwner}, password); err != nil {
		if errors.Is(err, models.ErrConflict) {
			return nil // another replica created it at the same moment
		}
		return fmt.Errorf("create admin user: %w", err)
	}
	if generated {
		fmt.Fprintf(stdout, "\n  Admin user created.  username: admin  password: %s\n  (shown once; to choose it yourself, set GATEWAY_ADMIN_PASSWORD before the first start)\n\n", password)
	} else {
		logger.Info("admin user created with GATEWAY_ADMIN_PASSWORD", "username", "admin")
	}
	return nil
}

func bootstrapKey(ctx context.Context, s *models.Store, stdout io.Writer, logger *slog.Logger) error {
	n, err := s.CountKeys(ctx)
	if err != nil || n > 0 {
		return err
	}
	key, err := s.CreateKey(ctx, &models.VirtualKey{Name: "first key"})
	if err != nil {
		return fmt.Errorf("create first virtual key: %w", err)
	}
	logger.Info("first virtual key created", "name", "first key")
	fmt.Fprintf(stdout, "\n  First virtual key (shown once, stored only as a hash):\n    %s\n  Use it as: Authorization: Bearer <key>\n\n", key)
	return nil
}
