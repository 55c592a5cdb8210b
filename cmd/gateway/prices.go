package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"time"
)

const pricesUsage = `gateway prices: the price catalog of a running gateway.

Usage:
  gateway prices import FILE [--taken YYYY-MM-DD]   load a newer catalog: LiteLLM's
                                                    model_prices_and_context_window.json, or the
                                                    gateway's own format; its rows replace the
                                                    built-in ones of the same provider type and model
  gateway prices reset                              back to the built-in catalog alone

--taken is the day the file's prices are of (default today; the gateway's
own format names its own). It calls the management API with the master key.

Flags:
`

// pricesCommand runs "gateway prices …".
func pricesCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, cfg := adminFlags("gateway prices", pricesUsage, stderr)
	taken := fs.String("taken", "", "the day the file's prices are of, YYYY-MM-DD (default today)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if *taken != "" {
		if _, err := time.Parse(time.DateOnly, *taken); err != nil {
			return fmt.Errorf("prices: --taken %q is not a day (YYYY-MM-DD)", *taken)
		}
	}
	c, err := newAdminClient(cfg.withEnv(getenv))
	if err != nil {
		return err
	}
	c.client = "prices import"
	switch {
	case len(pos) == 2 && pos[0] == "import":
		raw, err := os.ReadFile(pos[1])
		if err != nil {
			return fmt.Errorf("prices: %w", err)
		}
		if !json.Valid(raw) {
			return fmt.Errorf("prices: %s is not JSON", pos[1])
		}
		path := "/api/prices/catalog"
		if *taken != "" {
			path += "?taken=" + url.QueryEscape(*taken)
		}
		var out struct {
			Taken    string `json:"taken"`
			Imported int    `json:"imported"`
			Skipped  int    `json:"skipped"`
			Count    int    `json:"count"`
		}
		if err := c.call(ctx, "PUT", path, json.RawMessage(raw), &out); err != nil {
			return fmt.Errorf("prices: %s: nothing was changed: %w", pos[1], err)
		}
		fmt.Fprintf(stdout, "imported %d models' prices of %s (%d of the file's models left out: not chat or embedding models of a provider type the gateway has); the catalog prices %d models\n",
			out.Imported, out.Taken, out.Skipped, out.Count)
		return nil
	case len(pos) == 1 && pos[0] == "reset":
		if err := c.call(ctx, "DELETE", "/api/prices/catalog", nil, nil); err != nil {
			return fmt.Errorf("prices: %w", err)
		}
		fmt.Fprintln(stdout, "the built-in catalog is in effect")
		return nil
	}
	return errors.New("prices: want import FILE or reset (see gateway prices --help)")
}
