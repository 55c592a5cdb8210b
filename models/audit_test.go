package models_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"gateway/models"
	"gateway/models/dbtest"
)

// auditOf returns the store's audit entries, oldest first.
func auditOf(t *testing.T, s *models.Store) []models.AuditEntry {
	t.Helper()
	es, err := s.ListAudit(context.Background(), models.AuditFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for i, j := 0, len(es)-1; i < j; i, j = i+1, j-1 {
		es[i], es[j] = es[j], es[i]
	}
	return es
}

func fields(t *testing.T, js string) map[string]any {
	t.Helper()
	if js == "" {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		t.Fatalf("%q: %v", js, err)
	}
	return m
}

// TestAuditEveryWrite makes one write of every kind and checks each left
// exactly one entry with its actor, kind, id, name and before/after, and
// that no secret is in any of them.
func TestAuditEveryWrite(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := models.WithActor(context.Background(), models.Actor{Name: "alice", Via: "api"})
		const apiKey, awsSecret = "sk-upstream-SECRET-1234", "aws-SECRET-abcd"
		p := &models.Provider{Name: "up", APIType: models.APITypeBedrock, BaseURL: "http://x", Region: "us-east-1", AWSAccessKeyID: "AKIA"}
		must(t, s.CreateProvider(ctx, p, models.ProviderSecrets{AWSSecretAccessKey: awsSecret}))
		_, err := s.UpdateProvider(ctx, p.ID, models.ProviderSecrets{AWSSecretAccessKey: apiKey}, func(p *models.Provider) error {
			p.Region = "eu-west-1"
			return nil
		})
		must(t, err)
		d := &models.Deployment{PublicName: "gpt", ProviderID: p.ID, UpstreamModel: "m", Weight: ptr(1.0), Enabled: true}
		must(t, s.CreateDeployment(ctx, d))
		_, err = s.UpdateDeployment(ctx, d.ID, func(d *models.Deployment) error { d.Weight = ptr(0.0); return nil })
		must(t, err)
		must(t, s.PutPoolSetting(ctx, &models.PoolSetting{PublicName: "gpt", NumRetries: ptr(2)}))
		must(t, s.SetFallbacks(ctx, "gpt", models.FallbackGeneral, []string{"b"}))
		team := &models.Team{Name: "t"}
		must(t, s.CreateTeam(ctx, team))
		u := &models.User{Name: "u", TeamID: &team.ID}
		must(t, s.CreateUser(ctx, u))
		k := &models.VirtualKey{Name: "k"}
		secret, err := s.CreateKey(ctx, k)
		must(t, err)
		_, err = s.UpdateKey(ctx, k.ID, func(k *models.VirtualKey) error { k.RPMLimit = ptr(5); return nil })
		must(t, err)
		must(t, s.PutSettings(ctx, map[string]string{models.SettingLogRetentionDays: "7"}))
		a := &models.AdminUser{Username: "bob", Role: models.RoleAdmin}
		must(t, s.CreateAdminUser(ctx, a, "bob's password"))
		_, err = s.UpdateAdminUser(ctx, a.ID, models.AdminChange{Password: ptr("a new password")})
		must(t, err)
		must(t, s.DeleteKey(ctx, k.ID))
		must(t, s.DeleteUser(ctx, u.ID))
		must(t, s.DeleteTeam(ctx, team.ID))
		must(t, s.DeleteDeployment(ctx, d.ID))
		must(t, s.DeleteProvider(ctx, p.ID))
		must(t, s.DeleteAdminUser(ctx, a.ID))

		want := []string{
			"create provider up", "update provider up", "create model_entry gpt", "update model_entry gpt",
			"create pool gpt", "create fallbacks gpt", "create team t", "create user u", "create key k",
			"update key k", "update settings settings", "create admin bob", "update admin bob",
			"delete key k", "delete user u", "delete team t", "delete model_entry gpt", "delete provider up",
			"delete admin bob",
		}
		es := auditOf(t, s)
		var got []string
		for _, e := range es {
			got = append(got, e.Action+" "+e.Kind+" "+e.Name)
			if e.Actor != "alice" || e.Via != "api" || e.CreatedAt.IsZero() {
				t.Errorf("%d: actor %q via %q at %v", e.ID, e.Actor, e.Via, e.CreatedAt)
			}
			for _, secretText := range []string{apiKey, awsSecret, secret, models.HashKey(secret), "password_hash", "cipher", "$2a$"} {
				if strings.Contains(e.Before+e.After, secretText) {
					t.Errorf("%s %s: %q in %s / %s", e.Action, e.Kind, secretText, e.Before, e.After)
				}
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("entries\n got %q\nwant %q", got, want)
		}
		// The weight's change, from and to; the entry's id as its target.
		upd := es[3]
		if b, a := fields(t, upd.Before), fields(t, upd.After); b["weight"] != 1.0 || a["weight"] != 0.0 ||
			upd.TargetID != fmt.Sprint(d.ID) {
			t.Errorf("weight change: %s → %s (target %q)", upd.Before, upd.After, upd.TargetID)
		}
		if b, a := fields(t, es[1].Before), fields(t, es[1].After); b["region"] != "us-east-1" || a["region"] != "eu-west-1" ||
			a["aws_secret_last4"] != apiKey[len(apiKey)-4:] {
			t.Errorf("provider change: %s → %s", es[1].Before, es[1].After)
		}
		if es[0].Before != "" || es[len(es)-2].After != "" {
			t.Errorf("a create has no before, a delete no after: %q, %q", es[0].Before, es[len(es)-2].After)
		}
		if b, a := fields(t, es[10].Before), fields(t, es[10].After); b["log_retention_days"] != nil || a["log_retention_days"] != "7" {
			t.Errorf("settings change: %s → %s", es[10].Before, es[10].After)
		}
		if a := fields(t, es[12].After); a["password_changed_at"] == nil {
			t.Errorf("a password change shows as such: %s", es[12].After)
		}

		// Filters and paging.
		page, err := s.ListAudit(ctx, models.AuditFilter{Kind: models.AuditModelEntry, TargetID: fmt.Sprint(d.ID), Limit: 2})
		must(t, err)
		if len(page) != 2 || page[0].Action != "delete" || page[1].Action != "update" {
			t.Fatalf("history of the entry: %+v", page)
		}
		next, err := s.ListAudit(ctx, models.AuditFilter{Kind: models.AuditModelEntry, TargetID: fmt.Sprint(d.ID), Before: page[1].ID, Limit: 2})
		must(t, err)
		if len(next) != 1 || next[0].Action != "create" {
			t.Fatalf("second page: %+v", next)
		}
		actors, err := s.AuditActors(ctx)
		must(t, err)
		if fmt.Sprint(actors) != "[alice]" {
			t.Errorf("actors %v", actors)
		}
	})
}

// TestAuditNothingForRefusedOrEmptyChanges: a write that fails (in the
// store's checks or in the database) or changes nothing leaves no entry.
func TestAuditNothingForRefusedOrEmptyChanges(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		p := newProvider(t, s, "up", "key")
		d := &models.Deployment{PublicName: "gpt", ProviderID: p.ID, UpstreamModel: "m", Enabled: true}
		must(t, s.CreateDeployment(ctx, d))
		n := len(auditOf(t, s))
		if err := s.CreateProvider(ctx, &models.Provider{Name: "up", APIType: "openai", BaseURL: "http://x"}, models.ProviderSecrets{APIKey: "k"}); !errors.Is(err, models.ErrConflict) {
			t.Fatalf("duplicate: %v", err)
		}
		if err := s.DeleteProvider(ctx, p.ID); !errors.Is(err, models.ErrInUse) {
			t.Fatalf("in use: %v", err)
		}
		if _, err := s.UpdateDeployment(ctx, d.ID, func(d *models.Deployment) error {
			d.Weight = ptr(3.0)
			return errors.New("refused half-way")
		}); err == nil {
			t.Fatal("no error")
		}
		if err := s.CreateDeployment(ctx, &models.Deployment{PublicName: "x", ProviderID: 999, UpstreamModel: "m"}); !errors.Is(err, models.ErrInvalid) {
			t.Fatalf("no provider: %v", err)
		}
		_, err := s.UpdateDeployment(ctx, d.ID, func(*models.Deployment) error { return nil })
		must(t, err)
		must(t, s.PutSettings(ctx, map[string]string{}))
		must(t, s.SetFallbacks(ctx, "gpt", models.FallbackGeneral, nil))
		if err := s.DeleteTeam(ctx, 12345); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("missing team: %v", err)
		}
		if es := auditOf(t, s); len(es) != n {
			t.Fatalf("%d entries after refused and empty writes, want %d: %+v", len(es), n, es[n:])
		}
		// Without an actor in the context the writer is the gateway itself.
		if es := auditOf(t, s); es[0].Actor != "system" {
			t.Errorf("actor %q", es[0].Actor)
		}
	})
}

// TestLastOwner: the last owner can be neither demoted nor removed; with a
// second owner both can; a role or password change moves the epoch.
func TestLastOwner(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		root := &models.AdminUser{Username: "root", Role: models.RoleOwner}
		must(t, s.CreateAdminUser(ctx, root, "password one"))
		if _, err := s.UpdateAdminUser(ctx, root.ID, models.AdminChange{Role: ptr(models.RoleAdmin)}); !errors.Is(err, models.ErrLastOwner) {
			t.Fatalf("demote last owner: %v", err)
		}
		if err := s.DeleteAdminUser(ctx, root.ID); !errors.Is(err, models.ErrLastOwner) {
			t.Fatalf("delete last owner: %v", err)
		}
		if err := s.CreateAdminUser(ctx, &models.AdminUser{Username: "x", Role: "superuser"}, "password two"); !errors.Is(err, models.ErrInvalid) {
			t.Fatalf("bad role: %v", err)
		}
		if err := s.CreateAdminUser(ctx, &models.AdminUser{Username: "x", Role: models.RoleViewer}, "short"); !errors.Is(err, models.ErrInvalid) {
			t.Fatalf("short password: %v", err)
		}
		second := &models.AdminUser{Username: "second", Role: models.RoleOwner}
		must(t, s.CreateAdminUser(ctx, second, "password two"))
		u, err := s.UpdateAdminUser(ctx, root.ID, models.AdminChange{Role: ptr(models.RoleViewer)})
		must(t, err)
		if u.Role != models.RoleViewer || u.SessionEpoch != 1 {
			t.Fatalf("demoted: %+v", u)
		}
		if err := s.DeleteAdminUser(ctx, second.ID); !errors.Is(err, models.ErrLastOwner) {
			t.Fatalf("delete the owner left: %v", err)
		}
		if _, err := s.AuthenticateAdmin(ctx, "root", "password one"); err != nil {
			t.Fatal(err)
		}
		u, err = s.UpdateAdminUser(ctx, root.ID, models.AdminChange{Password: ptr("password three")})
		must(t, err)
		if u.SessionEpoch != 2 {
			t.Fatalf("epoch after password change: %d", u.SessionEpoch)
		}
		if _, err := s.AuthenticateAdmin(ctx, "root", "password one"); !errors.Is(err, models.ErrBadCredentials) {
			t.Fatalf("old password: %v", err)
		}
		// An SSO account has no password and cannot sign in with one.
		sub := "https://idp|123"
		must(t, s.CreateAdminUser(ctx, &models.AdminUser{Username: "sso", Role: models.RoleViewer, OIDCSubject: &sub}, ""))
		if _, err := s.AuthenticateAdmin(ctx, "sso", ""); !errors.Is(err, models.ErrBadCredentials) {
			t.Fatalf("sso account with empty password: %v", err)
		}
		got, err := s.FindAdminBySubject(ctx, sub)
		if err != nil || got.Username != "sso" {
			t.Fatalf("by subject: %+v %v", got, err)
		}
		if _, err := s.UpdateAdminUser(ctx, got.ID, models.AdminChange{Password: ptr("a password for sso")}); !errors.Is(err, models.ErrInvalid) {
			t.Fatalf("a password for an SSO account: %v", err)
		}
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestOwnersDemoteEachOther: the two owners demoting (or removing) each
// other at the same instant: one change holds, the other is refused as the
// last owner's, never with another error (on PostgreSQL the two
// transactions deadlocked, and one failed with the database's error). Each
// round pairs the owner left by the one before with a new one.
func TestOwnersDemoteEachOther(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		left := &models.AdminUser{Username: "first", Role: models.RoleOwner}
		must(t, s.CreateAdminUser(ctx, left, "password one"))
		for round := range 6 {
			added := &models.AdminUser{Username: fmt.Sprint("owner", round), Role: models.RoleOwner}
			must(t, s.CreateAdminUser(ctx, added, "password two"))
			pair := []*models.AdminUser{left, added}
			errs := make([]error, 2)
			var wg sync.WaitGroup
			for i, u := range pair {
				wg.Go(func() {
					if round%2 == 0 {
						_, errs[i] = s.UpdateAdminUser(ctx, u.ID, models.AdminChange{Role: ptr(models.RoleViewer)})
					} else {
						errs[i] = s.DeleteAdminUser(ctx, u.ID)
					}
				})
			}
			wg.Wait()
			done := 0
			for i, err := range errs {
				switch {
				case err == nil:
					done++
				case errors.Is(err, models.ErrLastOwner):
					left = pair[i]
				default:
					t.Fatalf("round %d: %v; want done or refused as the last owner's", round, err)
				}
			}
			if done != 1 {
				t.Fatalf("round %d: %d of the two changes done (%v); want 1", round, done, errs)
			}
		}
	})
}
