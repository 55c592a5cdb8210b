package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"

	"gateway/models"
	"gateway/models/dbtest"
)

// TestSecondGatewaySeesChangesPostgres: two gateways on one PostgreSQL; a
// model added through the first is served by the second within a second,
// without a restart (LISTEN/NOTIFY).
func TestSecondGatewaySeesChangesPostgres(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	upstream := newFakeOpenAI(t)
	cfgA, cfgB := testConfig(dsn, t.TempDir()), testConfig(dsn, t.TempDir())
	cfgA.Secret, cfgB.Secret = "shared-secret", "shared-secret"
	a, _ := startGateway(t, cfgA)
	b, _ := startGateway(t, cfgB)

	start := time.Now()
	key := setupPool(t, a, upstream.URL) // provider, model and key, all through a
	client := sdk(b, key)
	var err error
	for time.Since(start) < time.Second {
		if _, err = client.Chat.Completions.New(context.Background(), chatParams()); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("the second gateway did not serve the new model within a second: %v", err)
	}
	t.Logf("second gateway served the change after %s", time.Since(start))

	// A change of an existing entry travels too: disabling it.
	status, body := api(t, a, "GET", "/api/models", nil)
	var entries []struct {
		ID int64 `json:"id"`
	}
	if err := json.Unmarshal(body, &entries); status != 200 || err != nil || len(entries) != 1 {
		t.Fatalf("list models: %d %s", status, body)
	}
	mustAPI(t, a, "PATCH", fmt.Sprintf("/api/models/%d", entries[0].ID), map[string]any{"enabled": false}, http.StatusOK)
	start = time.Now()
	for time.Since(start) < time.Second {
		if _, err = client.Chat.Completions.New(context.Background(), chatParams()); err != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || !strings.Contains(apiErr.Message, "no healthy deployments for this model") {
		t.Fatalf("the second gateway still served a disabled entry: %v", err)
	}
}

// TestReplicaHearsOfAChangeTheLocalRebuildMissed: a change is committed
// before the routing table is rebuilt, so the other replicas must hear of it
// even when this replica's own rebuild fails (here: its deadline has passed
// before it starts). The error still says the rebuild failed.
func TestReplicaHearsOfAChangeTheLocalRebuildMissed(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	upstream := newFakeOpenAI(t)
	cfgA, cfgB := testConfig(dsn, t.TempDir()), testConfig(dsn, t.TempDir())
	cfgA.Secret, cfgB.Secret = "shared-secret", "shared-secret"
	a, _ := startGateway(t, cfgA)
	b, _ := startGateway(t, cfgB)
	key := setupPool(t, a, upstream.URL)
	client := sdk(b, key)
	served := func(model string) error {
		p := chatParams()
		p.Model = model
		var err error
		for start := time.Now(); time.Since(start) < 5*time.Second; time.Sleep(20 * time.Millisecond) {
			if _, err = client.Chat.Completions.New(context.Background(), p); err == nil {
				return nil
			}
		}
		return err
	}
	if err := served("team-model"); err != nil {
		t.Fatalf("the second gateway never served the first change: %v", err)
	}

	// A change committed without a notice, as an admin write is before its rebuild.
	ctx := context.Background()
	providers, err := a.Store.ListProviders(ctx)
	if err != nil || len(providers) != 1 {
		t.Fatalf("providers: %v %v", providers, err)
	}
	d := &models.Deployment{PublicName: "later-model", ProviderID: providers[0].ID, UpstreamModel: "gpt-upstream-2", Enabled: true}
	if err := a.Store.CreateDeployment(ctx, d); err != nil {
		t.Fatal(err)
	}
	late, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer cancel()
	err = announcingReloader{proxy: a.proxy, db: a.db, origin: newOrigin()}.Reload(late)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a rebuild past its deadline returned %v, want the deadline's error", err)
	}
	if err := served("later-model"); err != nil {
		t.Fatalf("the second gateway never heard of the change the first could not rebuild for: %v", err)
	}
}

// TestReplicasWithoutRedisSeeEachOthersSpend: without Redis, replicas on one
// PostgreSQL read each other's spend from the database every second, so a
// budget spent through one is refused by the other about a second later.
func TestReplicasWithoutRedisSeeEachOthersSpend(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	cfgA, cfgB := testConfig(dsn, t.TempDir()), testConfig(dsn, t.TempDir())
	cfgA.Secret, cfgB.Secret = "shared-secret", "shared-secret"
	cfgA.LogLevel, cfgB.LogLevel = "warn", "warn"
	a, _ := startGateway(t, cfgA)
	b, _ := startGateway(t, cfgB)
	key := setupPool(t, a, newFakeOpenAI(t).URL)
	keyID := int64(keyNamed(t, a, "e2e")["id"].(float64))
	mustAPI(t, a, "PATCH", fmt.Sprintf("/api/keys/%d", keyID), map[string]any{"max_budget_usd": 0.0005, "budget_duration": "1d"}, http.StatusOK)
	waitServed(t, b, key) // one answer through b: $0.0000975
	spent := 0.0000975
	for {
		status, cost, _, body := call(t, a, key, "team-model")
		if status == http.StatusTooManyRequests {
			break
		}
		if status != http.StatusOK {
			t.Fatalf("through a: %d %s", status, body)
		}
		spent += cost
	}
	// b answered one request itself; a second later it has read the rest.
	time.Sleep(1500 * time.Millisecond)
	status, _, _, body := call(t, b, key, "team-model")
	t.Logf("a spent the budget ($%.7f answered in all); 1.5 s later b answers %d", spent, status)
	if status != http.StatusTooManyRequests || !strings.Contains(body, fmt.Sprintf("spent $%.4f", spent)) {
		t.Fatalf("b after a spent the budget: %d %s; want a refusal naming the $%.4f spent", status, body, spent)
	}
}
