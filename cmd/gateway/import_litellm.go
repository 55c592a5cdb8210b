package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
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
	plan, err := planLiteLLM(raw, getenv, os.ReadFile)
	if err != nil {
		return fmt.Errorf("import: %s: nothing was changed:\n%w", pos[1], err)
	}
	c, err := newAdminClient(cfg.withEnv(getenv))
	if err != nil {
		return err
	}
	c.client = "import litellm"
	im := &importer{c: c, plan: plan, dryRun: *dryRun}
	if err := im.run(ctx); err != nil {
		return err
	}
	if err := printImportReport(stdout, plan, &im.rep, *dryRun); err != nil {
		return err
	}
	if im.rep.failed > 0 {
		return fmt.Errorf("import: %d writes failed (listed above)", im.rep.failed)
	}
	return nil
}

// importSections are the report's sections in the order of the writes.
var importSections = []struct{ key, title string }{
	{"providers", "Providers"},
	{"entries", "Model entries"},
	{"pools", "Pool settings"},
	{"fallbacks", "Fallbacks"},
}

// printImportReport prints each step, what was not mapped and what this
// gateway did not take, then a summary line.
func printImportReport(w io.Writer, plan *importPlan, rep *importReport, dryRun bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, sec := range importSections {
		fmt.Fprintln(tw, sec.title+":")
		n := 0
		for _, s := range rep.steps {
			if s.section == sec.key {
				fmt.Fprintf(tw, "  %s\t%s\n", s.verb, strings.Join(s.cols, "\t"))
				n++
			}
		}
		if n == 0 {
			fmt.Fprintln(tw, "  none in this file")
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(plan.Unmapped) > 0 {
		fmt.Fprintln(w, "Not mapped (the gateway has no place for these; they were left out, not guessed):")
		for _, u := range plan.Unmapped {
			fmt.Fprintln(w, "  "+u)
		}
	}
	if len(rep.notApplied) > 0 {
		fmt.Fprintln(w, "Not applied (this gateway does not take these fields yet):")
		for _, f := range slices.Sorted(maps.Keys(rep.notApplied)) {
			fmt.Fprintf(w, "  %s: %s\n", f, strings.Join(rep.notApplied[f], "; "))
		}
	}
	_, err := fmt.Fprintln(w, rep.summary(dryRun))
	return err
}
