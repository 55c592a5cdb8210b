package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"gateway/cmd/gateway/litellm"
)

// This file is "gateway import litellm FILE": it moves a LiteLLM proxy's
// config.yaml into a running gateway through its management API, so the
// change applies at once, like the sticky CLI does its changes.

const importUsage = `gateway import litellm: create what a LiteLLM proxy config.yaml describes in a running gateway.

Usage:
  gateway import litellm FILE [--dry-run] [--admin-url URL] [--master-key KEY]

It reads model_list (providers and model entries; rpm and tpm become an
entry's limits, order its tier, an entry without one coming after those with
one as in LiteLLM), router_settings (every imported pool's retries, allowed
fails and routing strategy; timeout becomes each new entry's, while
cooldown_time is left to the upstreams' retry-after) and the fallbacks of
the three kinds,
resolves os.environ/VAR from the environment, and creates what the gateway
does not have yet through its management API. An entry is the same when its
public name, provider and upstream model are: a second run creates nothing.
What it cannot map is listed, never guessed. A missing environment variable
or a malformed value stops it before anything is written.

Flags:
`

// importCommand runs "gateway import …".
func importCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, cfg := adminFlags("gateway import", importUsage, stderr)
	dryRun := fs.Bool("dry-run", false, "print what it would create and change nothing")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 || pos[0] != "litellm" {
		return errors.New("import: want litellm FILE (see gateway import --help)")
	}
	raw, err := os.ReadFile(pos[1])
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	plan, err := litellm.ReadConfig(raw, getenv, os.ReadFile)
	if err != nil {
		return fmt.Errorf("import: %s: nothing was changed:\n%w", pos[1], err)
	}
	c, err := newAdminClient(cfg.withEnv(getenv))
	if err != nil {
		return err
	}
	c.client = "import litellm"
	rep, err := litellm.Apply(ctx, c.call, plan, *dryRun)
	if err != nil {
		return err
	}
	if err := litellm.PrintReport(stdout, plan, rep, *dryRun); err != nil {
		return err
	}
	if rep.Failed() > 0 {
		return fmt.Errorf("import: %d writes failed (listed above)", rep.Failed())
	}
	return nil
}
