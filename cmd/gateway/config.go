package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
)

// Config is every setting of the gateway. Each is a flag and an environment
// variable; a flag wins over the variable, which wins over the default.
type Config struct {
	ProxyAddr     string
	AdminAddr     string
	DatabaseURL   string
	DataDir       string
	MasterKey     string
	Secret        string
	AdminPassword string
	LogLevel      string
	MaxBodyMB     int
	RedisURL      string
	// SecureCookies marks the admin session cookie Secure: set it when the
	// admin app is reached over HTTPS (a TLS proxy in front).
	SecureCookies    bool
	secureCookiesRaw string
	// OIDC* turn on single sign-on to the admin app (see oidcConfig).
	OIDCIssuer       string
	OIDCClientID     string
	OIDCClientSecret string
	OIDCRoleClaim    string
	OIDCRedirectURL  string
	OIDCScopes       string
}

// setting describes one Config field for flags, environment and --help.
type setting struct {
	flag, env, def, usage string
	target                *string // a string setting
	intTarget             *int    // or a positive integer one
}

func (c *Config) settings() []setting {
	return []setting{
		{"proxy-addr", "GATEWAY_PROXY_ADDR", "127.0.0.1:4000", "address of the proxy listener (/v1/…)", &c.ProxyAddr, nil},
		{"admin-addr", "GATEWAY_ADMIN_ADDR", "127.0.0.1:8080", "address of the admin web app and /api", &c.AdminAddr, nil},
		{"database-url", "GATEWAY_DATABASE_URL", "", "postgres://… to use PostgreSQL; empty for the embedded SQLite in the data dir", &c.DatabaseURL, nil},
		{"data-dir", "GATEWAY_DATA_DIR", "./data", "directory of the SQLite database and the generated secret", &c.DataDir, nil},
		{"master-key", "GATEWAY_MASTER_KEY", "", "bearer token for the management API (/api); empty: admin sessions only", &c.MasterKey, nil},
		{"secret", "GATEWAY_SECRET", "", "encrypts provider keys and signs sessions; empty: generated once into the data dir (replicas must share one)", &c.Secret, nil},
		{"admin-password", "GATEWAY_ADMIN_PASSWORD", "", "password of the first admin user, when none exists yet; empty: a one-time password is printed", &c.AdminPassword, nil},
		{"log-level", "GATEWAY_LOG_LEVEL", "info", "debug, info, warn or error", &c.LogLevel, nil},
		{"max-body-mb", "GATEWAY_MAX_BODY_MB", "32", "request body limit in MiB; larger requests get 413", nil, &c.MaxBodyMB},
		{"secure-cookies", "GATEWAY_SECURE_COOKIES", "false", "mark the admin session cookie Secure: true when the admin app is served over HTTPS (TLS in front)", &c.secureCookiesRaw, nil},
		{"redis-url", "GATEWAY_REDIS_URL", "", "redis://… or rediss://…: replicas share cooldowns, sticky bindings, rate limits, budgets and statistics through it", &c.RedisURL, nil},
		{"oidc-issuer", "GATEWAY_OIDC_ISSUER", "", "OpenID Connect issuer URL: the login page offers single sign-on (with oidc-client-id)", &c.OIDCIssuer, nil},
		{"oidc-client-id", "GATEWAY_OIDC_CLIENT_ID", "", "client id registered with the OpenID Connect provider", &c.OIDCClientID, nil},
		{"oidc-client-secret", "GATEWAY_OIDC_CLIENT_SECRET", "", "client secret registered with the provider; empty for a public client", &c.OIDCClientSecret, nil},
		{"oidc-role-claim", "GATEWAY_OIDC_ROLE_CLAIM", "", "roles from an ID token claim, claim:value=role,… (e.g. groups:platform-admins=admin,finance=viewer); empty: new SSO admins are viewers", &c.OIDCRoleClaim, nil},
		{"oidc-redirect-url", "GATEWAY_OIDC_REDIRECT_URL", "", "redirect URL registered with the provider; empty: {scheme}://{host}/auth/oidc/callback of the request (set it behind a proxy)", &c.OIDCRedirectURL, nil},
		{"oidc-scopes", "GATEWAY_OIDC_SCOPES", "openid email profile", "scopes asked of the provider, space-separated", &c.OIDCScopes, nil},
	}
}

// secretSettings hold secrets (a database URL may carry a password): their
// values from the environment must never show in --help or a usage message.
var secretSettings = map[string]bool{
	"GATEWAY_MASTER_KEY": true, "GATEWAY_SECRET": true, "GATEWAY_ADMIN_PASSWORD": true,
	"GATEWAY_DATABASE_URL": true, "GATEWAY_REDIS_URL": true, "GATEWAY_OIDC_CLIENT_SECRET": true,
}

// parseConfig reads flags from args and variables through getenv.
func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (Config, error) {
	var c Config
	fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var fromEnv []func()
	for _, s := range c.settings() {
		def := s.def
		if v := getenv(s.env); v != "" {
			def = v
		}
		usage := fmt.Sprintf("%s (env %s)", s.usage, s.env)
		if s.target != nil && secretSettings[s.env] {
			// Registered empty, so usage never prints it; the environment's
			// value applies after parsing unless the flag was given.
			if def != "" {
				usage += " (set in the environment)"
			}
			fs.StringVar(s.target, s.flag, "", usage)
			target, v := s.target, def
			fromEnv = append(fromEnv, func() {
				if *target == "" {
					*target = v
				}
			})
			continue
		}
		if s.target != nil {
			fs.StringVar(s.target, s.flag, def, usage)
			continue
		}
		n, err := positiveInt(s.env, def)
		if err != nil {
			return c, err
		}
		*s.intTarget = n
		fs.Func(s.flag, fmt.Sprintf("%s (default %d)", usage, n), func(v string) (err error) {
			*s.intTarget, err = positiveInt(s.flag, v)
			return err
		})
	}
	fs.Usage = func() { usage(fs, stderr) }
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	for _, apply := range fromEnv {
		apply()
	}
	secure, err := strconv.ParseBool(c.secureCookiesRaw)
	if err != nil {
		return c, settingError("secure-cookies", fmt.Errorf("want true or false, got %q", c.secureCookiesRaw))
	}
	c.SecureCookies = secure
	return c, c.check()
}

// minMasterKeyLength refuses a master key short enough to be a slip ("1",
// "x"): it guards every write of the management API.
const minMasterKeyLength = 8

// check refuses the settings Start cannot use, whether they came from flags
// and environment or from a test's Config.
func (c Config) check() error {
	if _, err := parseLevel(c.LogLevel); err != nil {
		return err
	}
	if c.MasterKey != "" && len(c.MasterKey) < minMasterKeyLength {
		return settingError("master-key", fmt.Errorf("want at least %d characters (or none: admin sessions only), got %d",
			minMasterKeyLength, len(c.MasterKey)))
	}
	_, err := c.oidcConfig()
	return err
}

// settingError says which setting a failure comes from, by its flag and its
// variable: "proxy-addr (GATEWAY_PROXY_ADDR): …".
func settingError(flag string, err error) error {
	env := "GATEWAY_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
	return fmt.Errorf("%s (%s): %w", flag, env, err)
}

func positiveInt(name, v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s: want a positive integer, got %q", name, v)
	}
	return n, nil
}

func usage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprint(w, `gateway: a self-hosted LLM gateway.

Usage:
  gateway [serve] [flags]   run the proxy and the admin web app (the default)
  gateway version           print the version
  gateway sticky [MODEL]    list sticky bindings, or MODEL's (see gateway sticky --help)
  gateway sticky set MODEL DEPLOYMENT_ID [--ttl 1h] | gateway sticky clear MODEL
  gateway deployments       list the model entries with their deployment ids

Every flag is also an environment variable; a flag wins.

Flags:
`)
	fs.PrintDefaults()
}

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToUpper(s))); err != nil {
		return 0, settingError("log-level", fmt.Errorf("want debug, info, warn or error, got %q", s))
	}
	return l, nil
}
