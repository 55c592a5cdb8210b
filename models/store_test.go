package models_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"gateway/models"
	"gateway/models/dbtest"
)

func ptr[T any](v T) *T { return &v }

func newProvider(t *testing.T, s *models.Store, name, key string) *models.Provider {
	t.Helper()
	p := &models.Provider{Name: name, APIType: models.APITypeOpenAI, BaseURL: "http://127.0.0.1:1/v1"}
	if err := s.CreateProvider(context.Background(), p, models.ProviderSecrets{APIKey: key}); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMigrateIsIdempotent(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dsn, dataDir string) {
		ctx := context.Background()
		var first int64
		for i := range 3 {
			db, err := models.Open(ctx, dsn, dataDir)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Migrate(ctx); err != nil {
				t.Fatalf("migrate run %d: %v", i+1, err)
			}
			var n int64
			if err := db.Table("schema_migrations").Count(&n).Error; err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first = n
			}
			if n < 1 || n != first {
				t.Fatalf("schema_migrations rows after run %d = %d, want %d (one per migration, once)", i+1, n, first)
			}
			db.Close()
		}
	})
}

func TestSQLitePragmas(t *testing.T) {
	dir := t.TempDir()
	db, err := models.Open(context.Background(), "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mode string
	var timeout int
	db.Raw("PRAGMA journal_mode").Scan(&mode)
	db.Raw("PRAGMA busy_timeout").Scan(&timeout)
	if mode != "wal" || timeout != 10000 {
		t.Fatalf("journal_mode=%q busy_timeout=%d, want wal and 10000", mode, timeout)
	}
	if _, err := os.Stat(filepath.Join(dir, "gateway.db")); err != nil {
		t.Fatal(err)
	}
}

func TestProviderKeyIsEncryptedAtRest(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		const key = "sk-upstream-secret-0123456789"
		p := newProvider(t, s, "openai-main", key)
		var raw []byte
		if err := s.DB().Table("providers").Select("api_key_cipher").Where("id = ?", p.ID).Row().Scan(&raw); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(raw, []byte(key)) || len(raw) == 0 {
			t.Fatalf("stored key is not sealed: %q", raw)
		}
		got, err := s.GetProvider(context.Background(), p.ID)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := s.ProviderSecrets(got)
		if err != nil || plain.APIKey != key {
			t.Fatalf("ProviderSecrets = %+v, %v; want the key", plain, err)
		}
		if got.APIKeyLast4 != "6789" {
			t.Fatalf("last4 = %q", got.APIKeyLast4)
		}
		// Another secret cannot open it.
		c, _ := models.NewCipher("another-secret")
		if _, err := models.NewStore(s.DB(), c).ProviderSecrets(got); err == nil {
			t.Fatal("a different secret decrypted the key")
		}
	})
}

// TestProviderSecretsAreSealedApart: every secret of a type is sealed in
// its own column, none is in clear in the row, an update replaces only the
// secrets it is given, and a key file is named by its key's id.
func TestProviderSecretsAreSealedApart(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		secrets := models.ProviderSecrets{
			AWSSecretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
			AWSSessionToken:    "IQoJb3JpZ2luX2VjEXAMPLETOKEN0123",
		}
		p := &models.Provider{Name: "bedrock", APIType: models.APITypeBedrock, Region: "us-east-1", AWSAccessKeyID: "AKIAEXAMPLE"}
		if err := s.CreateProvider(ctx, p, secrets); err != nil {
			t.Fatal(err)
		}
		var rows []map[string]any
		if err := s.DB().Table("providers").Where("id = ?", p.ID).Find(&rows).Error; err != nil || len(rows) != 1 {
			t.Fatal(err, len(rows))
		}
		for col, v := range rows[0] {
			b, _ := v.([]byte)
			str, _ := v.(string)
			for _, secret := range []string{secrets.AWSSecretAccessKey, secrets.AWSSessionToken} {
				if bytes.Contains(b, []byte(secret)) || str == secret {
					t.Errorf("column %s holds a secret in clear", col)
				}
			}
		}
		if p.AWSSecretLast4 != "EKEY" || p.AWSSessionTokenLast4 != "0123" || p.APIKeyLast4 != "" {
			t.Errorf("last4s %q %q %q", p.AWSSecretLast4, p.AWSSessionTokenLast4, p.APIKeyLast4)
		}
		got, err := s.UpdateProvider(ctx, p.ID, models.ProviderSecrets{AWSSessionToken: "IQoJb3JpZ2luX2VjNEWTOKEN9999"}, func(*models.Provider) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		plain, err := s.ProviderSecrets(got)
		if err != nil || plain.AWSSecretAccessKey != secrets.AWSSecretAccessKey || plain.AWSSessionToken != "IQoJb3JpZ2luX2VjNEWTOKEN9999" || plain.APIKey != "" {
			t.Fatalf("after replacing the token: %+v, %v", plain, err)
		}

		keyFile := `{"type":"service_account","project_id":"p","private_key_id":"0123456789abcdef0123456789abcdef0123abcd","private_key":"-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n","client_email":"gw@p.iam.gserviceaccount.com","token_uri":"https://oauth2.googleapis.com/token"}`
		v := &models.Provider{Name: "vertex", APIType: models.APITypeVertex, Project: "p", Location: "global"}
		if err := s.CreateProvider(ctx, v, models.ProviderSecrets{CredentialsJSON: keyFile}); err != nil {
			t.Fatal(err)
		}
		if v.CredentialsLast4 != "abcd" {
			t.Errorf("key file shown as %q, want its key id's last four", v.CredentialsLast4)
		}
		if plain, err := s.ProviderSecrets(v); err != nil || plain.CredentialsJSON != keyFile {
			t.Errorf("key file back: %v", err)
		}
	})
}

func TestProviderErrors(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		p := newProvider(t, s, "dup", "sk-aaaaaaaaaaaaaaaa")
		err := s.CreateProvider(ctx, &models.Provider{Name: "dup", APIType: "openai", BaseURL: "http://x"}, models.ProviderSecrets{APIKey: "k"})
		if !errors.Is(err, models.ErrConflict) {
			t.Fatalf("duplicate name: err = %v, want ErrConflict", err)
		}
		d := &models.Deployment{PublicName: "gpt", ProviderID: p.ID, UpstreamModel: "gpt-4o", Enabled: true}
		if err := s.CreateDeployment(ctx, d); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteProvider(ctx, p.ID); !errors.Is(err, models.ErrInUse) {
			t.Fatalf("delete provider in use: err = %v, want ErrInUse", err)
		}
		bad := &models.Deployment{PublicName: "gpt", ProviderID: 9999, UpstreamModel: "x"}
		if err := s.CreateDeployment(ctx, bad); !errors.Is(err, models.ErrInvalid) {
			t.Fatalf("unknown provider: err = %v, want ErrInvalid", err)
		}
		if _, err := s.GetProvider(ctx, 9999); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("get missing: err = %v, want ErrNotFound", err)
		}
		if err := s.DeleteDeployment(ctx, d.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteProvider(ctx, p.ID); err != nil {
			t.Fatal(err)
		}
	})
}

func TestUpdateDeploymentKeepsZeroWeight(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		p := newProvider(t, s, "p", "sk-bbbbbbbbbbbbbbbb")
		d := &models.Deployment{PublicName: "m", ProviderID: p.ID, UpstreamModel: "u", Weight: ptr(5.0), Enabled: true}
		if err := s.CreateDeployment(ctx, d); err != nil {
			t.Fatal(err)
		}
		_, err := s.UpdateDeployment(ctx, d.ID, func(d *models.Deployment) error {
			d.Weight = ptr(0.0)
			d.Enabled = false
			d.CooldownSeconds = ptr(0)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.GetDeployment(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Weight == nil || *got.Weight != 0 || got.Enabled || got.CooldownSeconds == nil || *got.CooldownSeconds != 0 {
			t.Fatalf("after update: weight=%v enabled=%v cooldown=%v", got.Weight, got.Enabled, got.CooldownSeconds)
		}
		if got.Provider.Name != "p" {
			t.Fatalf("provider not preloaded: %+v", got.Provider)
		}
		// An update that fails half-way writes nothing.
		_, err = s.UpdateDeployment(ctx, d.ID, func(d *models.Deployment) error {
			d.UpstreamModel = "changed"
			d.ProviderID = 424242
			return nil
		})
		if !errors.Is(err, models.ErrInvalid) {
			t.Fatalf("err = %v, want ErrInvalid", err)
		}
		got, _ = s.GetDeployment(ctx, d.ID)
		if got.UpstreamModel != "u" {
			t.Fatalf("failed update was half-written: upstream_model = %q", got.UpstreamModel)
		}
	})
}

func TestVirtualKeysAreStoredHashed(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		k := &models.VirtualKey{Name: "first", Models: models.StringList{"gpt-*", "claude"}}
		key, err := s.CreateKey(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		if len(key) < 40 || key[:3] != "sk-" {
			t.Fatalf("key = %q", key)
		}
		var hash string
		s.DB().Table("virtual_keys").Select("key_hash").Where("id = ?", k.ID).Row().Scan(&hash)
		if hash != models.HashKey(key) || hash == key {
			t.Fatalf("stored %q, want the SHA-256 of the key", hash)
		}
		got, err := s.GetKey(ctx, k.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Models) != 2 || got.Models[1] != "claude" {
			t.Fatalf("models = %v", got.Models)
		}
		if _, err := s.CreateKey(ctx, &models.VirtualKey{Name: "x", UserID: ptr(int64(77))}); !errors.Is(err, models.ErrInvalid) {
			t.Fatalf("unknown user: err = %v, want ErrInvalid", err)
		}
		n, _ := s.CountKeys(ctx)
		if n != 1 {
			t.Fatalf("keys = %d, want 1 (a failed create must write nothing)", n)
		}
	})
}

func TestFallbacksReplaceInOrder(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		if err := s.SetFallbacks(ctx, "a", models.FallbackGeneral, []string{"b", "c"}); err != nil {
			t.Fatal(err)
		}
		if err := s.SetFallbacks(ctx, "a", models.FallbackGeneral, []string{"c", "d", "b"}); err != nil {
			t.Fatal(err)
		}
		if err := s.SetFallbacks(ctx, "a", models.FallbackGeneral, []string{"x", "x"}); !errors.Is(err, models.ErrInvalid) {
			t.Fatalf("duplicate target: err = %v", err)
		}
		fs, err := s.ListFallbacks(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range fs {
			got = append(got, f.Target)
		}
		if want := "c,d,b"; join(got) != want {
			t.Fatalf("targets = %v, want %s", got, want)
		}
	})
}

func join(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += ","
		}
		out += s
	}
	return out
}

func TestAdminAuthentication(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		if err := s.CreateAdminUser(ctx, &models.AdminUser{Username: "admin", Role: models.RoleOwner}, "correct horse"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.AuthenticateAdmin(ctx, "admin", "correct horse"); err != nil {
			t.Fatal(err)
		}
		for _, c := range [][2]string{{"admin", "wrong"}, {"nobody", "correct horse"}} {
			if _, err := s.AuthenticateAdmin(ctx, c[0], c[1]); !errors.Is(err, models.ErrBadCredentials) {
				t.Fatalf("%v: err = %v", c, err)
			}
		}
	})
}

func TestRequestLogsAndSettings(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		batch := make([]models.RequestLog, 0, 30)
		for i := range 30 {
			batch = append(batch, models.RequestLog{Model: "m", Status: 200 + (i%2)*229, InputTokens: int64(i)})
		}
		if err := s.InsertRequestLogs(ctx, batch); err != nil {
			t.Fatal(err)
		}
		got, err := s.ListRequestLogs(ctx, models.LogFilter{Status: 429, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 10 || got[0].InputTokens != 29 || got[0].ID < got[1].ID {
			t.Fatalf("got %d logs, first %+v", len(got), got[0])
		}
		page2, _ := s.ListRequestLogs(ctx, models.LogFilter{Status: 429, BeforeID: got[9].ID})
		if len(page2) != 5 {
			t.Fatalf("page 2 has %d logs, want 5", len(page2))
		}
		if err := s.PutSetting(ctx, "k", "v1"); err != nil {
			t.Fatal(err)
		}
		if err := s.PutSetting(ctx, "k", "v2"); err != nil {
			t.Fatal(err)
		}
		v, ok, err := s.GetSetting(ctx, "k")
		if v != "v2" || !ok || err != nil {
			t.Fatalf("setting = %q %v %v", v, ok, err)
		}
	})
}

func TestSecretFileIsCreatedOnce(t *testing.T) {
	dir := t.TempDir()
	a, err := models.LoadOrCreateSecret("", dir)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := models.LoadOrCreateSecret("", dir)
	if a != b || len(a) != 64 {
		t.Fatalf("secrets %q and %q", a, b)
	}
	st, err := os.Stat(filepath.Join(dir, "secret.key"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("secret.key mode = %v, %v", st.Mode(), err)
	}
	if got, _ := models.LoadOrCreateSecret("given", dir); got != "given" {
		t.Fatalf("explicit secret ignored: %q", got)
	}
}

func TestCreateDisabledDeploymentStaysDisabled(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		p := newProvider(t, s, "p", "sk-cccccccccccccccc")
		d := &models.Deployment{PublicName: "m", ProviderID: p.ID, UpstreamModel: "u", Enabled: false, Weight: ptr(0.0)}
		if err := s.CreateDeployment(ctx, d); err != nil {
			t.Fatal(err)
		}
		got, err := s.GetDeployment(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Enabled || got.Weight == nil || *got.Weight != 0 {
			t.Fatalf("created disabled with weight 0, got enabled=%v weight=%v", got.Enabled, got.Weight)
		}
	})
}

// TestMigrateAddsNewColumns: a database from before a column existed gets it
// at the next start.
func TestMigrateAddsNewColumns(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dsn, dataDir string) {
		ctx := context.Background()
		s := dbtest.MustOpenStore(t, dsn, dataDir)
		if err := s.DB().Exec("ALTER TABLE request_logs DROP COLUMN fallback").Error; err != nil {
			t.Fatal(err)
		}
		if s.DB().Migrator().HasColumn(&models.RequestLog{}, "fallback") {
			t.Fatal("the column is still there")
		}
		if err := s.DB().Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		if !s.DB().Migrator().HasColumn(&models.RequestLog{}, "fallback") {
			t.Fatal("Migrate did not add the missing column")
		}
	})
}

func TestSumRequestLogs(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		now := time.Now().UTC()
		k1, k2 := int64(1), int64(2)
		rows := []models.RequestLog{
			{CreatedAt: now, KeyID: &k1, Model: "a", Status: 200, InputTokens: 10, OutputTokens: 5, CostUSD: 0.25, LatencyMS: 100},
			{CreatedAt: now, KeyID: &k1, Model: "b", Status: 500, CostUSD: 0, LatencyMS: 300},
			{CreatedAt: now, KeyID: &k2, Model: "a", Status: 200, InputTokens: 1, OutputTokens: 1, CostUSD: 0.5, LatencyMS: 50},
			{CreatedAt: now.Add(-48 * time.Hour), KeyID: &k2, Model: "a", Status: 200, CostUSD: 9},
		}
		if err := s.InsertRequestLogs(ctx, rows); err != nil {
			t.Fatal(err)
		}
		got, err := s.SumRequestLogs(ctx, "key", now.Add(-time.Hour), now.Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].Group != "2" || got[0].CostUSD != 0.5 || got[1].Requests != 2 || got[1].Successes != 1 || got[1].AvgMS != 200 {
			t.Fatalf("by key: %+v", got)
		}
		byModel, _ := s.SumRequestLogs(ctx, "model", now.Add(-time.Hour), now.Add(time.Hour))
		if len(byModel) != 2 || byModel[0].Group != "a" || byModel[0].TokensIn != 11 {
			t.Fatalf("by model: %+v", byModel)
		}
		if _, err := s.SumRequestLogs(ctx, "nope", now, now); !errors.Is(err, models.ErrInvalid) {
			t.Fatalf("bad grouping: %v", err)
		}
		n, err := s.PruneRequestLogs(ctx, now.Add(-24*time.Hour))
		if err != nil || n != 1 {
			t.Fatalf("pruned %d (%v), want 1", n, err)
		}
	})
}

// TestInvalidErrorsNameTheirField: the store's refusals of bad input are
// InvalidErrors naming the field (as the API and the forms call it), and
// ErrInvalid to errors.Is.
func TestInvalidErrorsNameTheirField(t *testing.T) {
	s := dbtest.MustOpenStore(t, "", t.TempDir())
	err := s.CreateDeployment(context.Background(), &models.Deployment{PublicName: "m", ProviderID: 99999, UpstreamModel: "u"})
	var invalid *models.InvalidError
	if !errors.Is(err, models.ErrInvalid) || !errors.As(err, &invalid) || invalid.Field != "provider_id" ||
		invalid.Message != "no provider with id 99999" {
		t.Fatalf("an unknown provider: %v (%#v)", err, invalid)
	}
	if err := s.SetFallbacks(context.Background(), "m", models.FallbackGeneral, []string{"m"}); !errors.As(err, &invalid) || invalid.Field != "targets" {
		t.Fatalf("a pool falling back to itself: %v", err)
	}
}
