package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
)

// TestOIDCSettings: the single sign-on settings come from the environment
// or flags, the client secret never shows in --help, and settings that
// could not work refuse the start, naming the setting.
func TestOIDCSettings(t *testing.T) {
	env := map[string]string{"GATEWAY_OIDC_ISSUER": "https://login.example.com/realms/ops", "GATEWAY_OIDC_CLIENT_ID": "gateway",
		"GATEWAY_OIDC_CLIENT_SECRET": "oidc-SECRET-value", "GATEWAY_OIDC_ROLE_CLAIM": "groups:platform-admins=admin"}
	getenv := func(k string) string { return env[k] }
	cfg, err := parseConfig([]string{"--oidc-scopes", "openid email groups"}, getenv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	sso, err := cfg.oidcConfig()
	if err != nil {
		t.Fatal(err)
	}
	if sso.Issuer != env["GATEWAY_OIDC_ISSUER"] || sso.ClientSecret != "oidc-SECRET-value" || sso.RoleClaim != env["GATEWAY_OIDC_ROLE_CLAIM"] ||
		strings.Join(sso.Scopes, " ") != "openid email groups" || sso.RedirectURL != "" {
		t.Errorf("oidc config = %+v", sso)
	}
	if none, _ := parseConfig(nil, func(string) string { return "" }, io.Discard); none.OIDCIssuer != "" {
		t.Errorf("single sign-on is on by default: %q", none.OIDCIssuer)
	} else if sso, err := none.oidcConfig(); sso != nil || err != nil {
		t.Errorf("no issuer: %+v, %v; want no single sign-on", sso, err)
	}
	var help bytes.Buffer
	if err := run(context.Background(), []string{"--help"}, getenv, &help, &help); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("--help: err = %v", err)
	}
	if strings.Contains(help.String(), "oidc-SECRET-value") {
		t.Errorf("--help shows the client secret:\n%s", help.String())
	}
	for _, v := range []string{"GATEWAY_OIDC_ISSUER", "GATEWAY_OIDC_CLIENT_ID", "GATEWAY_OIDC_CLIENT_SECRET", "GATEWAY_OIDC_ROLE_CLAIM",
		"GATEWAY_OIDC_REDIRECT_URL", "GATEWAY_OIDC_SCOPES"} {
		if !strings.Contains(help.String(), v) {
			t.Errorf("--help does not list %s", v)
		}
	}

	good := map[string]string{"GATEWAY_PROXY_ADDR": freeAddr(t), "GATEWAY_ADMIN_ADDR": freeAddr(t), "GATEWAY_DATA_DIR": t.TempDir(),
		"GATEWAY_MASTER_KEY": testMasterKey, "GATEWAY_ADMIN_PASSWORD": testPassword, "GATEWAY_LOG_LEVEL": "error",
		"GATEWAY_OIDC_ISSUER": "https://login.example.com", "GATEWAY_OIDC_CLIENT_ID": "gateway"}
	for _, tc := range []struct {
		name string
		env  map[string]string // over good; "" unsets
		want []string
	}{
		{"role claim syntax", map[string]string{"GATEWAY_OIDC_ROLE_CLAIM": "platform-admins=admin"},
			[]string{"oidc-role-claim (GATEWAY_OIDC_ROLE_CLAIM)", "want claim:value=role"}},
		{"role claim role", map[string]string{"GATEWAY_OIDC_ROLE_CLAIM": "groups:ops=owner"},
			[]string{"oidc-role-claim", "must be admin or viewer", "owner"}},
		{"no client id", map[string]string{"GATEWAY_OIDC_CLIENT_ID": ""}, []string{"oidc-client-id", "required with oidc-issuer"}},
		{"issuer not a URL", map[string]string{"GATEWAY_OIDC_ISSUER": "login.example.com"}, []string{"oidc-issuer", "https://"}},
		{"client id without issuer", map[string]string{"GATEWAY_OIDC_ISSUER": ""}, []string{"oidc-client-id", "needs oidc-issuer"}},
		{"redirect url relative", map[string]string{"GATEWAY_OIDC_REDIRECT_URL": "/auth/oidc/callback"},
			[]string{"oidc-redirect-url", "absolute URL"}},
		{"scopes without openid", map[string]string{"GATEWAY_OIDC_SCOPES": "email profile"}, []string{"oidc-scopes", "openid"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range good {
				env[k] = v
			}
			for k, v := range tc.env {
				env[k] = v
			}
			err := runRefused(t, nil, env)
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}
