package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/option"

	"gateway/models/dbtest"
)

// cliResult is what one run of the binary printed and returned.
type cliResult struct {
	stdout, stderr string
	err            error
}

// cli runs the binary with args and env as its environment.
func cli(env map[string]string, args ...string) cliResult {
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, func(k string) string { return env[k] }, &out, &errOut)
	return cliResult{out.String(), errOut.String(), err}
}

// wantOK fails unless the run succeeded with each of wants in its output.
func (r cliResult) wantOK(t *testing.T, wants ...string) {
	t.Helper()
	if r.err != nil {
		t.Fatalf("err = %v\nstderr: %s", r.err, r.stderr)
	}
	for _, w := range wants {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("output does not contain %q:\n%s", w, r.stdout)
		}
	}
}

// wantErr fails unless the run failed with msg in its error.
func (r cliResult) wantErr(t *testing.T, msg string) {
	t.Helper()
	if r.err == nil || !strings.Contains(r.err.Error(), msg) {
		t.Errorf("err = %v, want one containing %q\nstdout: %s", r.err, msg, r.stdout)
	}
}

// wantAligned checks that every line of a table starts its columns where
// the header does.
func wantAligned(t *testing.T, table string, columns ...string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(table, "\n"), "\n")
	for _, col := range columns[1:] {
		at := strings.Index(lines[0], col)
		if at < 0 {
			t.Fatalf("header %q has no column %q", lines[0], col)
		}
		for _, l := range lines[1:] {
			if len(l) <= at || l[at-1] != ' ' || l[at] == ' ' {
				t.Errorf("column %s is not aligned:\n%s", col, table)
				return
			}
		}
	}
}

func TestCLIStickyAndDeployments(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dsn, dataDir string) {
		upstream := newFakeOpenAI(t)
		g, _ := startGateway(t, testConfig(dsn, dataDir))
		key := setupPool(t, g, upstream.URL)
		var entries []map[string]any
		if _, b := api(t, g, "GET", "/api/models", nil); json.Unmarshal(b, &entries) != nil || len(entries) != 1 {
			t.Fatalf("GET /api/models: %s", b)
		}
		first := fmt.Sprint(entries[0]["id"])
		second := fmt.Sprint(mustAPI(t, g, "POST", "/api/models", map[string]any{
			"public_name": "team-model", "provider_id": entries[0]["provider_id"], "upstream_model": "gpt-upstream-2", "weight": 3,
		}, http.StatusCreated)["id"])
		off := fmt.Sprint(mustAPI(t, g, "POST", "/api/models", map[string]any{
			"public_name": "old-model", "provider_id": entries[0]["provider_id"], "upstream_model": "gpt-old", "enabled": false,
		}, http.StatusCreated)["id"])
		env := map[string]string{"GATEWAY_ADMIN_URL": "http://" + g.AdminAddr(), "GATEWAY_MASTER_KEY": testMasterKey}

		r := cli(env, "deployments")
		r.wantOK(t, "PUBLIC NAME", "UPSTREAM MODEL", "WEIGHT", "ENABLED")
		wantAligned(t, r.stdout, "ID", "PUBLIC NAME", "PROVIDER", "UPSTREAM MODEL", "WEIGHT", "ENABLED")
		for _, row := range [][]string{
			{off, "old-model", "fake-openai", "gpt-old", "unset", "no"},
			{first, "team-model", "fake-openai", "gpt-upstream-1", "unset", "yes"},
			{second, "team-model", "fake-openai", "gpt-upstream-2", "3", "yes"},
		} {
			if !hasRow(r.stdout, row) {
				t.Errorf("no row %v in:\n%s", row, r.stdout)
			}
		}
		cli(env, "sticky", "deployments").wantOK(t, "gpt-upstream-2")

		cli(env, "sticky").wantOK(t, "No sticky bindings.")
		r = cli(env, "sticky", "set", "team-model", second, "--ttl", "1h")
		r.wantOK(t, "team-model", "gpt-upstream-2", "pinned", "1h0m0s")
		wantAligned(t, r.stdout, "MODEL", "DEPLOYMENT", "PROVIDER", "UPSTREAM MODEL", "KIND", "EXPIRES AT", "REMAINING")

		// The proxy follows the pin.
		client := sdk(g, key)
		for range 5 {
			var resp *http.Response
			if _, err := client.Chat.Completions.New(context.Background(), chatParams(), option.WithResponseInto(&resp)); err != nil {
				t.Fatal(err)
			}
			if got := resp.Header.Get("x-gateway-deployment-id"); got != second {
				t.Fatalf("served by %s, want the pinned %s", got, second)
			}
		}

		r = cli(env, "sticky")
		r.wantOK(t, "team-model", second, "pinned")
		if n := strings.Count(strings.TrimSpace(r.stdout), "\n"); n != 1 {
			t.Errorf("sticky lists %d bindings, want 1:\n%s", n, r.stdout)
		}
		cli(env, "sticky", "team-model").wantOK(t, "gpt-upstream-2")
		cli(env, "sticky", "other-model").wantErr(t, `"other-model" has no sticky binding`)

		// Errors are the API's messages.
		cli(env, "sticky", "set", "nope", first).wantErr(t, `model_name: no pool serves "nope"`)
		cli(env, "sticky", "set", "team-model", off).wantErr(t, "deployment_id: deployment "+off+" is not an enabled member")
		cli(env, "sticky", "set", "team-model", "abc").wantErr(t, "DEPLOYMENT_ID must be a positive whole number")
		cli(env, "sticky", "set", "team-model").wantErr(t, "want MODEL and DEPLOYMENT_ID")
		cli(env, "sticky", "set", "team-model", first, "--ttl", "0s").wantErr(t, "--ttl must be at least 1ms")
		cli(env, "sticky", "--ttl", "1h").wantErr(t, "--ttl only goes with sticky set")
		cli(env, "sticky", "clear").wantErr(t, "want MODEL")
		cli(env, "sticky", "a", "b").wantErr(t, `unexpected argument "b"`)

		// Flags before the arguments win over the environment; the default TTL is 2 h.
		wrong := map[string]string{"GATEWAY_ADMIN_URL": "http://127.0.0.1:1", "GATEWAY_MASTER_KEY": "wrong"}
		cli(wrong, "sticky", "--admin-url", g.AdminAddr(), "--master-key", testMasterKey, "set", "team-model", first).
			wantOK(t, "gpt-upstream-1", "2h0m0s")

		cli(env, "sticky", "clear", "team-model").wantOK(t, "Cleared the sticky binding of team-model.")
		cli(env, "sticky", "clear", "team-model").wantErr(t, `model_name: "team-model" has no sticky binding`)
		cli(env, "sticky").wantOK(t, "No sticky bindings.")

		cli(map[string]string{"GATEWAY_ADMIN_URL": env["GATEWAY_ADMIN_URL"], "GATEWAY_MASTER_KEY": "wrong"}, "sticky").
			wantErr(t, "authentication required")
		cli(map[string]string{"GATEWAY_ADMIN_URL": env["GATEWAY_ADMIN_URL"]}, "deployments").wantErr(t, "no master key")
		cli(env, "deployments", "extra").wantErr(t, `unexpected argument "extra"`)
		// Without GATEWAY_ADMIN_URL, the admin listener GATEWAY_ADMIN_ADDR names.
		cli(map[string]string{"GATEWAY_ADMIN_ADDR": g.AdminAddr(), "GATEWAY_MASTER_KEY": testMasterKey}, "deployments").
			wantOK(t, "gpt-upstream-1")
		// The proxy listener is not the admin listener: it says so in its own words.
		cli(env, "sticky", "--admin-url", "http://"+g.ProxyAddr()).wantErr(t, "invalid URL")
	})
}

// hasRow reports whether a line of table holds the cells in order.
func hasRow(table string, cells []string) bool {
	for _, l := range strings.Split(table, "\n") {
		if strings.Join(strings.Fields(l), " ") == strings.Join(cells, " ") {
			return true
		}
	}
	return false
}

func TestCLIUnreachableAndHelp(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	env := map[string]string{"GATEWAY_ADMIN_URL": "http://" + dead, "GATEWAY_MASTER_KEY": testMasterKey}
	cli(env, "sticky").wantErr(t, "cannot reach the management API at http://"+dead)
	cli(env, "deployments", "--admin-url", "ftp://x").wantErr(t, "admin-url: want an http:// or https:// URL")
	notAPI := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "upstream connect error", http.StatusBadGateway)
	}))
	defer notAPI.Close()
	cli(env, "sticky", "--admin-url", notAPI.URL).wantErr(t, "answered 502 Bad Gateway, not a JSON error: is --admin-url the admin listener?")

	for _, args := range [][]string{{"sticky", "--help"}, {"deployments", "-h"}} {
		r := cli(env, args...)
		if !errors.Is(r.err, flag.ErrHelp) {
			t.Errorf("%v: err = %v, want flag.ErrHelp", args, r.err)
		}
		if strings.Contains(r.stderr, testMasterKey) {
			t.Errorf("%v prints the master key:\n%s", args, r.stderr)
		}
		for _, want := range []string{"gateway sticky set MODEL DEPLOYMENT_ID [--ttl 1h]", "gateway sticky clear MODEL",
			"gateway deployments", "GATEWAY_ADMIN_URL", "GATEWAY_MASTER_KEY", "-ttl"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("%v does not mention %q:\n%s", args, want, r.stderr)
			}
		}
	}
}

// TestCLIPrices: gateway prices import loads LiteLLM's file over the
// built-in catalog, so a model's price changes at once; a file that is not
// a catalog changes nothing; reset goes back to the built-in prices.
func TestCLIPrices(t *testing.T) {
	g, _ := startGateway(t, testConfig("", t.TempDir()))
	env := map[string]string{"GATEWAY_ADMIN_ADDR": g.AdminAddr(), "GATEWAY_MASTER_KEY": testMasterKey}
	input := func() any {
		_, b := api(t, g, "GET", "/api/prices?provider_type=openai&model=gpt-4o", nil)
		var p struct {
			Prices map[string]struct {
				USDPerMillion any `json:"usd_per_million"`
			} `json:"prices"`
		}
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatal(err)
		}
		return p.Prices["input"].USDPerMillion
	}
	dir := t.TempDir()
	file, bad := dir+"/model_prices_and_context_window.json", dir+"/bad.json"
	if err := os.WriteFile(file, []byte(`{"sample_spec": {"litellm_provider": "openai"},
		"gpt-4o": {"litellm_provider": "openai", "mode": "chat", "input_cost_per_token": 3e-06, "output_cost_per_token": 1.2e-05}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(`{"x": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cli(env, "prices", "import", file, "--taken", "2026-12-01").wantOK(t, "imported 1 models' prices of 2026-12-01", "1 of the file's models left out")
	if got := input(); got != 3.0 {
		t.Errorf("gpt-4o's input price after the import: %v, want 3", got)
	}
	cli(env, "prices", "import", bad).wantErr(t, "nothing was changed")
	cli(env, "prices", "import", file, "--taken", "soon").wantErr(t, "not a day")
	cli(env, "prices", "reset").wantOK(t, "the built-in catalog is in effect")
	if got := input(); got != 2.5 {
		t.Errorf("gpt-4o's input price after the reset: %v, want 2.5", got)
	}
}
