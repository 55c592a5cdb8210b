package handlers

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/coreos/go-oidc/v3/oidc"

	"gateway/models"
)

// ssoIdentity is who the provider says signed in.
type ssoIdentity struct {
	subject  string // "issuer|sub": the account's key
	username string // for a new account
	role     string // the mapped role, "" without a role mapping
}

// maxUsernameLength is models.AdminUser.Username's column size.
const maxUsernameLength = 100

// identity reads an ID token's claims. The username is preferred_username,
// else the email (unless the provider says it is unverified), else sub.
func (c *ssoClient) identity(idt *oidc.IDToken) (ssoIdentity, error) {
	var claims map[string]any
	if err := idt.Claims(&claims); err != nil {
		return ssoIdentity{}, refused(errUnauthenticated, "The single sign-on provider's ID token is not valid.", err)
	}
	id := ssoIdentity{subject: idt.Issuer + "|" + idt.Subject}
	if c.roles != nil {
		id.role = c.roles.Role(claims)
	}
	email, _ := claims["email"].(string)
	if verified, ok := claims["email_verified"].(bool); ok && !verified {
		email = ""
	}
	preferred, _ := claims["preferred_username"].(string)
	for _, name := range []string{preferred, email, idt.Subject} {
		if name != "" && len(name) <= maxUsernameLength {
			id.username = name
			return id, nil
		}
	}
	return ssoIdentity{}, refused(models.ErrInvalid,
		fmt.Sprintf("The single sign-on provider gave no username of at most %d characters.", maxUsernameLength),
		fmt.Errorf("no usable username for %s", id.subject))
}

// ssoAccount returns the admin of id, created on first sign-in (a viewer
// unless the role mapping says otherwise). With a role mapping, each sign-in
// gives an existing account the mapped role, except that an owner stays an
// owner; without one, the role is the app's. The writes are the admin's own,
// via "sso", in the audit log.
func (a *App) ssoAccount(ctx context.Context, id ssoIdentity) (*models.AdminUser, error) {
	u, err := a.store.FindAdminBySubject(ctx, id.subject)
	if errors.Is(err, models.ErrNotFound) {
		return a.createSSOAdmin(ctx, id)
	}
	if err != nil {
		return nil, err
	}
	if id.role == "" || id.role == u.Role || u.Role == models.RoleOwner {
		return u, nil
	}
	ctx = models.WithActor(ctx, models.Actor{Name: u.Username, Via: "sso"})
	a.logger(ctx).Info("single sign-on changes an admin's role", "username", u.Username, "from", u.Role, "to", id.role)
	return a.store.UpdateAdminUser(ctx, u.ID, models.AdminChange{Role: &id.role})
}

// createSSOAdmin creates the account of a first sign-in. A username already
// taken (by a password account, or another provider's) is refused rather
// than taken over.
func (a *App) createSSOAdmin(ctx context.Context, id ssoIdentity) (*models.AdminUser, error) {
	_, err := a.store.FindAdminUser(ctx, id.username)
	switch {
	case err == nil:
		return nil, usernameTaken(id, nil)
	case !errors.Is(err, models.ErrNotFound):
		return nil, err
	}
	u := &models.AdminUser{Username: id.username, Role: cmp.Or(id.role, models.RoleViewer), OIDCSubject: &id.subject}
	err = a.store.CreateAdminUser(models.WithActor(ctx, models.Actor{Name: u.Username, Via: "sso"}), u, "")
	if errors.Is(err, models.ErrConflict) {
		// A sign-in of the same subject at the same time created it first.
		if other, err := a.store.FindAdminBySubject(ctx, id.subject); err == nil {
			return other, nil
		}
		return nil, usernameTaken(id, err)
	}
	if err != nil {
		return nil, err
	}
	a.logger(ctx).Info("single sign-on created an admin", "username", u.Username, "role", u.Role, "subject", id.subject)
	return u, nil
}

func usernameTaken(id ssoIdentity, cause error) error {
	return refused(models.ErrConflict,
		fmt.Sprintf("An admin named %q already exists and is not linked to this single sign-on account, so it was not taken over. "+
			"Ask an owner.", id.username),
		fmt.Errorf("username %q of %s is taken: %w", id.username, id.subject, cmp.Or(cause, models.ErrConflict)))
}
