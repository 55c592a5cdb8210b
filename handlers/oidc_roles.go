package handlers

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"gateway/models"
)

// RoleMapping gives single sign-on accounts the role one claim of their ID
// token says: each of the claim's values (a string, or a list of strings)
// may map to a role, the most powerful match wins, and no match is a viewer.
// It grants admin or viewer only: owners are made in the app.
type RoleMapping struct {
	Claim string
	Roles map[string]string // claim value → role
}

// errRoleMappingSyntax says what a role mapping looks like.
var errRoleMappingSyntax = errors.New(`want claim:value=role,value=role,… such as "groups:platform-admins=admin,finance=viewer"`)

// ParseRoleMapping reads GATEWAY_OIDC_ROLE_CLAIM, "claim:value=role,…"; ""
// is no mapping (nil). The claim ends at the last colon before the first
// "=", so that a namespaced claim ("https://example.com/roles:ops=admin")
// keeps its own colons.
func ParseRoleMapping(s string) (*RoleMapping, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	eq := strings.IndexByte(s, '=')
	colon := strings.LastIndexByte(s[:max(eq, 0)], ':')
	if eq < 0 || colon < 0 || strings.TrimSpace(s[:colon]) == "" {
		return nil, errRoleMappingSyntax
	}
	m := &RoleMapping{Claim: strings.TrimSpace(s[:colon]), Roles: map[string]string{}}
	for pair := range strings.SplitSeq(s[colon+1:], ",") {
		value, role, ok := strings.Cut(pair, "=")
		value, role = strings.TrimSpace(value), strings.TrimSpace(role)
		switch _, dup := m.Roles[value]; {
		case !ok || value == "" || role == "":
			return nil, fmt.Errorf("%q: %w", pair, errRoleMappingSyntax)
		case role != models.RoleAdmin && role != models.RoleViewer:
			return nil, fmt.Errorf("%q: the role must be admin or viewer (owners are made in the app), not %q", pair, role)
		case dup:
			return nil, fmt.Errorf("%q: the value %q is mapped twice", pair, value)
		}
		m.Roles[value] = role
	}
	return m, nil
}

// Role is the role claims give: the most powerful match, viewer if none.
func (m *RoleMapping) Role(claims map[string]any) string {
	best := models.RoleViewer
	for _, v := range claimValues(claims[m.Claim]) {
		if role, ok := m.Roles[v]; ok && slices.Index(models.Roles, role) < slices.Index(models.Roles, best) {
			best = role
		}
	}
	return best
}

// claimValues are a claim's strings: itself, or those of its list.
func claimValues(claim any) []string {
	switch v := claim.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// describe is the mapping for the log.
func (m *RoleMapping) describe() string {
	if m == nil {
		return "none: new accounts are viewers, roles are set in the app"
	}
	return fmt.Sprintf("%s (%d values)", m.Claim, len(m.Roles))
}
