package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// This file is the command-line client of a running gateway's management
// API (sticky pins and the rest), as subcommands of the same binary.

const defaultAdminURL = "http://127.0.0.1:8080"

const clientUsage = `gateway sticky, gateway deployments: look at and change a running gateway.

Usage:
  gateway sticky [flags]                              list every sticky binding
  gateway sticky MODEL [flags]                        show MODEL's sticky binding
  gateway sticky set MODEL DEPLOYMENT_ID [--ttl 1h]   pin MODEL to one deployment of its pool (default TTL 2h)
  gateway sticky clear MODEL [flags]                  clear MODEL's sticky binding
  gateway deployments [flags]                         list the model entries with their deployment ids
                                                      (also: gateway sticky deployments)

They call the management API over HTTP with the master key. Flags may come
before or after the arguments; every flag but --ttl is also an environment
variable, and a flag wins.

Flags:
`

// clientConfig is where the management API is and how to get in.
type clientConfig struct {
	adminURL  string
	masterKey string
	ttl       time.Duration // sticky set only
}

// clientFlags returns the flag set of the client subcommands. The
// environment is read after parsing, not as the flags' defaults: --help must
// not print the master key.
func clientFlags(name string, stderr io.Writer) (*flag.FlagSet, *clientConfig) {
	fs, c := adminFlags(name, clientUsage, stderr)
	fs.DurationVar(&c.ttl, "ttl", 0, "how long sticky set pins, such as 30m or 1h (default 2h)")
	return fs, c
}

// adminFlags is the flag set of a subcommand that calls the management
// API: where it is and the master key, and usage as its help.
func adminFlags(name, usage string, stderr io.Writer) (*flag.FlagSet, *clientConfig) {
	var c clientConfig
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.adminURL, "admin-url", "", "URL of the gateway's admin listener (env GATEWAY_ADMIN_URL, else GATEWAY_ADMIN_ADDR, default "+defaultAdminURL+")")
	fs.StringVar(&c.masterKey, "master-key", "", "the gateway's master key (env GATEWAY_MASTER_KEY)")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return fs, &c
}

// withEnv fills what the flags left empty from the environment and defaults.
func (c clientConfig) withEnv(getenv func(string) string) clientConfig {
	// The admin listener the same environment moved (GATEWAY_ADMIN_ADDR, a
	// host:port) when no URL says otherwise.
	c.adminURL = cmp.Or(c.adminURL, getenv("GATEWAY_ADMIN_URL"), getenv("GATEWAY_ADMIN_ADDR"), defaultAdminURL)
	c.masterKey = cmp.Or(c.masterKey, getenv("GATEWAY_MASTER_KEY"))
	return c
}

// parseInterleaved parses flags that may come before, between and after the
// positional arguments, which it returns; "--" ends the flags.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// stickyCommand runs "gateway sticky …".
func stickyCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, cfg := clientFlags("gateway sticky", stderr)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	ttlSet := false
	fs.Visit(func(f *flag.Flag) { ttlSet = ttlSet || f.Name == "ttl" })
	if ttlSet && (len(pos) == 0 || pos[0] != "set") {
		return errors.New("sticky: --ttl only goes with sticky set")
	}
	c, err := newAdminClient(cfg.withEnv(getenv))
	if err != nil {
		return err
	}
	switch {
	case len(pos) == 0:
		return c.listSticky(ctx, stdout, "")
	case pos[0] == "set":
		if len(pos) != 3 {
			return errors.New("sticky set: want MODEL and DEPLOYMENT_ID (see gateway sticky --help)")
		}
		return c.pinSticky(ctx, stdout, pos[1], pos[2], cfg.ttl, ttlSet)
	case pos[0] == "clear":
		if len(pos) != 2 {
			return errors.New("sticky clear: want MODEL (see gateway sticky --help)")
		}
		return c.clearSticky(ctx, stdout, pos[1])
	case pos[0] == "deployments" && len(pos) == 1:
		return c.listDeployments(ctx, stdout)
	case len(pos) == 1:
		return c.listSticky(ctx, stdout, pos[0])
	}
	return fmt.Errorf("sticky: unexpected argument %q (see gateway sticky --help)", pos[1])
}

// deploymentsCommand runs "gateway deployments".
func deploymentsCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, cfg := clientFlags("gateway deployments", stderr)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("deployments: unexpected argument %q", pos[0])
	}
	c, err := newAdminClient(cfg.withEnv(getenv))
	if err != nil {
		return err
	}
	return c.listDeployments(ctx, stdout)
}

// adminClient calls the management API.
type adminClient struct {
	base      string
	masterKey string
	// client is what the CLI says it is (X-Gateway-Client), for the audit
	// log's "via": "cli", or "import litellm" for the importer.
	client string
	http   *http.Client
}

func newAdminClient(cfg clientConfig) (*adminClient, error) {
	raw := strings.TrimSpace(cfg.adminURL)
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw // a bare host:port, as GATEWAY_ADMIN_ADDR has it
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("admin-url: want an http:// or https:// URL, got %q", cfg.adminURL)
	}
	if cfg.masterKey == "" {
		return nil, errors.New("no master key: pass --master-key or set GATEWAY_MASTER_KEY")
	}
	return &adminClient{base: strings.TrimRight(u.String(), "/"), masterKey: cfg.masterKey, client: "cli",
		http: &http.Client{Timeout: 30 * time.Second}}, nil
}

// call sends body (when not nil) as JSON and decodes the answer into out
// (when not nil). An error answer becomes an error with the API's message.
func (c *adminClient) call(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.masterKey)
	req.Header.Set("X-Gateway-Client", c.client)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("cannot reach the management API at %s: %w", c.base, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("%s %s: read answer: %w", method, path, err)
	}
	if resp.StatusCode >= 300 {
		return apiAnswerError(resp, raw)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s %s: the answer is not what the management API sends: %w", method, path, err)
	}
	return nil
}

// apiAnswerError is the API's own message, or what little there is to say
// when something else answered.
func apiAnswerError(resp *http.Response, raw []byte) error {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &e) == nil && e.Error.Message != "" {
		return errors.New(e.Error.Message)
	}
	return fmt.Errorf("the management API answered %s, not a JSON error: is --admin-url the admin listener?", resp.Status)
}

// stickyBinding is one binding as GET /api/sticky lists it.
type stickyBinding struct {
	ModelName    string    `json:"model_name"`
	DeploymentID int64     `json:"deployment_id"`
	ExpiresAt    time.Time `json:"expires_at"`
	TTLMS        int64     `json:"ttl_ms"`
	Manual       bool      `json:"manual"`
}

type stickyAnswer struct {
	Bindings []stickyBinding `json:"bindings"`
}

// modelEntry is one model entry as GET /api/models lists it.
type modelEntry struct {
	ID            int64    `json:"id"`
	PublicName    string   `json:"public_name"`
	Provider      string   `json:"provider"`
	UpstreamModel string   `json:"upstream_model"`
	Weight        *float64 `json:"weight"`
	Enabled       bool     `json:"enabled"`
}

// listSticky prints every binding, or model's only (an error when it has none).
func (c *adminClient) listSticky(ctx context.Context, stdout io.Writer, model string) error {
	var ans stickyAnswer
	if err := c.call(ctx, http.MethodGet, "/api/sticky", nil, &ans); err != nil {
		return err
	}
	bs := ans.Bindings
	if model != "" {
		bs = nil
		for _, b := range ans.Bindings {
			if b.ModelName == model {
				bs = append(bs, b)
			}
		}
		if len(bs) == 0 {
			return fmt.Errorf("%q has no sticky binding", model)
		}
	}
	if len(bs) == 0 {
		_, err := fmt.Fprintln(stdout, "No sticky bindings.")
		return err
	}
	return c.printBindings(ctx, stdout, bs)
}

// pinSticky pins model to a deployment and prints the new binding.
func (c *adminClient) pinSticky(ctx context.Context, stdout io.Writer, model, rawID string, ttl time.Duration, ttlSet bool) error {
	id, err := strconv.ParseInt(rawID, 10, 64)
	if err != nil || id <= 0 {
		return fmt.Errorf("sticky set: DEPLOYMENT_ID must be a positive whole number (see gateway deployments), got %q", rawID)
	}
	body := map[string]any{"model_name": model, "deployment_id": id}
	if ttlSet {
		if ttl < time.Millisecond {
			return fmt.Errorf("sticky set: --ttl must be at least 1ms, got %s", ttl)
		}
		body["ttl_ms"] = ttl.Milliseconds()
	}
	var ans stickyAnswer
	if err := c.call(ctx, http.MethodPost, "/api/sticky", body, &ans); err != nil {
		return err
	}
	for _, b := range ans.Bindings {
		if b.ModelName == model {
			return c.printBindings(ctx, stdout, []stickyBinding{b})
		}
	}
	return fmt.Errorf("the gateway accepted the pin of %q but does not list it", model)
}

// clearSticky clears model's binding.
func (c *adminClient) clearSticky(ctx context.Context, stdout io.Writer, model string) error {
	path := "/api/sticky?" + url.Values{"model_name": {model}}.Encode()
	if err := c.call(ctx, http.MethodDelete, path, nil, nil); err != nil {
		return err
	}
	_, err := fmt.Fprintf(stdout, "Cleared the sticky binding of %s.\n", model)
	return err
}

// printBindings prints bindings as a table, naming each deployment's
// provider and upstream model.
func (c *adminClient) printBindings(ctx context.Context, stdout io.Writer, bs []stickyBinding) error {
	var entries []modelEntry
	if err := c.call(ctx, http.MethodGet, "/api/models", nil, &entries); err != nil {
		return err
	}
	byID := make(map[int64]modelEntry, len(entries))
	for _, e := range entries {
		byID[e.ID] = e
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tDEPLOYMENT\tPROVIDER\tUPSTREAM MODEL\tKIND\tEXPIRES AT\tREMAINING")
	for _, b := range bs {
		e, ok := byID[b.DeploymentID]
		if !ok {
			e = modelEntry{Provider: "?", UpstreamModel: "?"}
		}
		kind := "auto"
		if b.Manual {
			kind = "pinned"
		}
		remaining := (time.Duration(b.TTLMS) * time.Millisecond).Round(time.Second)
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\n", b.ModelName, b.DeploymentID, e.Provider, e.UpstreamModel,
			kind, b.ExpiresAt.UTC().Format(time.RFC3339), remaining)
	}
	return tw.Flush()
}

// listDeployments prints the model entries.
func (c *adminClient) listDeployments(ctx context.Context, stdout io.Writer) error {
	var entries []modelEntry
	if err := c.call(ctx, http.MethodGet, "/api/models", nil, &entries); err != nil {
		return err
	}
	if len(entries) == 0 {
		_, err := fmt.Fprintln(stdout, "No model entries.")
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPUBLIC NAME\tPROVIDER\tUPSTREAM MODEL\tWEIGHT\tENABLED")
	for _, e := range entries {
		weight := "unset"
		if e.Weight != nil {
			weight = strconv.FormatFloat(*e.Weight, 'f', -1, 64)
		}
		enabled := "yes"
		if !e.Enabled {
			enabled = "no"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", e.ID, e.PublicName, e.Provider, e.UpstreamModel, weight, enabled)
	}
	return tw.Flush()
}
