package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// freeAddr is a loopback address nothing listens on (the port was free a
// moment ago).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// busyAddr is a loopback address held by a listener until the test ends.
func busyAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String()
}

// runRefused runs the gateway as main does and returns its error; a panic
// fails the test instead of the test binary, and a start that succeeds
// ends with the guard's timeout and fails too.
func runRefused(t *testing.T, args []string, env map[string]string) (err error) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("run panicked: %v", p)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out syncBuffer
	err = run(ctx, args, func(k string) string { return env[k] }, &out, &out)
	if err == nil {
		t.Fatalf("the gateway started (and ran until the guard's timeout):\n%s", out.String())
	}
	return err
}

// TestStartRefusals: every setting the gateway refuses makes run return an
// error that names the setting and the reason, never a panic, and a refused
// start releases what it had opened: a gateway then starts on the same
// addresses and data dir.
func TestStartRefusals(t *testing.T) {
	dataDir := t.TempDir()
	proxyAddr, adminAddr := freeAddr(t), freeAddr(t)
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	emptySecret := t.TempDir()
	if err := os.WriteFile(filepath.Join(emptySecret, "secret.key"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	good := map[string]string{"GATEWAY_PROXY_ADDR": proxyAddr, "GATEWAY_ADMIN_ADDR": adminAddr, "GATEWAY_DATA_DIR": dataDir,
		"GATEWAY_MASTER_KEY": testMasterKey, "GATEWAY_ADMIN_PASSWORD": testPassword, "GATEWAY_LOG_LEVEL": "error"}
	for _, tc := range []struct {
		name string
		env  map[string]string // over good
		args []string
		want []string // in the error
	}{
		{name: "log level", env: map[string]string{"GATEWAY_LOG_LEVEL": "loud"}, want: []string{"log-level", "want debug, info, warn or error"}},
		{name: "log level flag", args: []string{"--log-level", "chatty"}, want: []string{"log-level"}},
		{name: "max body zero", env: map[string]string{"GATEWAY_MAX_BODY_MB": "0"}, want: []string{"GATEWAY_MAX_BODY_MB", "positive integer"}},
		{name: "max body not a number", args: []string{"--max-body-mb", "ten"}, want: []string{"max-body-mb", "positive integer"}},
		{name: "secure cookies", env: map[string]string{"GATEWAY_SECURE_COOKIES": "maybe"}, want: []string{"secure-cookies", "true or false"}},
		{name: "unknown flag", args: []string{"--no-such-flag"}, want: []string{"no-such-flag"}},
		{name: "stray argument", args: []string{"serve", "extra"}, want: []string{`unexpected argument "extra"`}},
		{name: "short master key", env: map[string]string{"GATEWAY_MASTER_KEY": "ab"}, want: []string{"master-key", "at least 8 characters"}},
		{name: "database url of another kind", env: map[string]string{"GATEWAY_DATABASE_URL": "mysql://root@localhost/gateway"},
			want: []string{"database-url", "want postgres://"}},
		{name: "database unreachable", env: map[string]string{"GATEWAY_DATABASE_URL": "postgres://gateway@127.0.0.1:1/gateway?sslmode=disable"},
			want: []string{"database-url", "connect"}},
		{name: "data dir under a file", env: map[string]string{"GATEWAY_DATA_DIR": filepath.Join(notADir, "data")},
			want: []string{"data-dir", "not a directory"}},
		{name: "empty secret file", env: map[string]string{"GATEWAY_DATA_DIR": emptySecret}, want: []string{"secret", "secret.key is empty"}},
		{name: "proxy address in use", env: map[string]string{"GATEWAY_PROXY_ADDR": busyAddr(t)}, want: []string{"proxy-addr", "address already in use"}},
		{name: "admin address in use", env: map[string]string{"GATEWAY_ADMIN_ADDR": busyAddr(t)}, want: []string{"admin-addr", "address already in use"}},
		{name: "proxy address malformed", env: map[string]string{"GATEWAY_PROXY_ADDR": "127.0.0.1:99999"}, want: []string{"proxy-addr", "invalid port"}},
		{name: "admin address malformed", env: map[string]string{"GATEWAY_ADMIN_ADDR": "no-port"}, want: []string{"admin-addr", "missing port"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range good {
				env[k] = v
			}
			for k, v := range tc.env {
				env[k] = v
			}
			err := runRefused(t, tc.args, env)
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			for _, addr := range []string{proxyAddr, adminAddr} {
				ln, err := net.Listen("tcp", addr)
				if err != nil {
					t.Fatalf("a refused start left %s open: %v", addr, err)
				}
				ln.Close()
			}
		})
	}

	// Nothing was left open: listeners closed, the database too.
	cfg := testConfig("", dataDir)
	cfg.ProxyAddr, cfg.AdminAddr = proxyAddr, adminAddr
	g, _ := startGateway(t, cfg)
	if g.ProxyAddr() != proxyAddr || g.AdminAddr() != adminAddr {
		t.Fatalf("started on %s and %s, want %s and %s", g.ProxyAddr(), g.AdminAddr(), proxyAddr, adminAddr)
	}
}
