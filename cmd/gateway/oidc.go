package main

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"gateway/handlers"
)

// oidcConfig is the admin app's single sign-on, nil when oidc-issuer is
// unset. It refuses settings that could not work, at startup rather than at
// the first sign-in.
func (c Config) oidcConfig() (*handlers.OIDCConfig, error) {
	if c.OIDCIssuer == "" {
		for _, s := range []struct{ flag, value string }{{"oidc-client-id", c.OIDCClientID},
			{"oidc-client-secret", c.OIDCClientSecret}, {"oidc-role-claim", c.OIDCRoleClaim}, {"oidc-redirect-url", c.OIDCRedirectURL}} {
			if s.value != "" {
				return nil, settingError(s.flag, errors.New("single sign-on needs oidc-issuer too"))
			}
		}
		return nil, nil
	}
	if !isHTTPURL(c.OIDCIssuer) {
		return nil, settingError("oidc-issuer", fmt.Errorf("want the provider's https:// issuer URL, got %q", c.OIDCIssuer))
	}
	if c.OIDCClientID == "" {
		return nil, settingError("oidc-client-id", errors.New("required with oidc-issuer"))
	}
	if _, err := handlers.ParseRoleMapping(c.OIDCRoleClaim); err != nil {
		return nil, settingError("oidc-role-claim", err)
	}
	if c.OIDCRedirectURL != "" && !isHTTPURL(c.OIDCRedirectURL) {
		return nil, settingError("oidc-redirect-url", fmt.Errorf("want an absolute URL such as https://gateway.example.com%s, got %q",
			"/auth/oidc/callback", c.OIDCRedirectURL))
	}
	scopes := strings.Fields(strings.ReplaceAll(c.OIDCScopes, ",", " "))
	if len(scopes) > 0 && !slices.Contains(scopes, "openid") {
		return nil, settingError("oidc-scopes", fmt.Errorf("must include openid, got %q", c.OIDCScopes))
	}
	return &handlers.OIDCConfig{Issuer: c.OIDCIssuer, ClientID: c.OIDCClientID, ClientSecret: c.OIDCClientSecret,
		RedirectURL: c.OIDCRedirectURL, Scopes: scopes, RoleClaim: c.OIDCRoleClaim}, nil
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}
