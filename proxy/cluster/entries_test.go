package cluster_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"gateway/proxy/cluster"
	"gateway/proxy/cluster/redistest"
)

// TestRedisEntryLimitOverReplicas: 60 claims on an entry of 20 rpm over
// three replicas at once admit exactly 20; tokens settled by one replica
// count for all, and a token limit reached refuses everywhere; the next
// minute starts empty.
func TestRedisEntryLimitOverReplicas(t *testing.T) {
	srv := redistest.Start(t)
	var reps []replica
	for range 3 {
		reps = append(reps, startReplica(t, srv.URL(), "entries"))
	}
	ctx := context.Background()
	minute := time.Now().Unix() / 60
	var wg sync.WaitGroup
	var mu sync.Mutex
	admitted := 0
	for i := range 60 {
		wg.Go(func() {
			ok, use, err := reps[i%3].ClaimEntry(ctx, 7, minute, 20, 0, 10)
			if err != nil {
				t.Error(err)
				return
			}
			if use.Requests > 20 {
				t.Errorf("the minute's use reads %d requests over a limit of 20", use.Requests)
			}
			if ok {
				mu.Lock()
				admitted++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if admitted != 20 {
		t.Fatalf("admitted %d claims on 20 rpm over three replicas", admitted)
	}
	// Tokens: estimated 100, used 1000, settled by replica 0.
	ok, _, err := reps[1].ClaimEntry(ctx, 8, minute, 0, 1000, 100)
	if err != nil || !ok {
		t.Fatalf("first claim on 1000 tpm: %v %v", ok, err)
	}
	reps[0].SettleEntry(8, minute, 900)
	// Polls estimate no tokens, so the minute's tokens are the settled ones.
	eventually(t, "the settled tokens reach the shared minute", func() bool {
		ok, use, err := reps[2].ClaimEntry(ctx, 8, minute, 0, 1000, 0)
		return err == nil && !ok && use.Tokens == 1000
	})
	if ok, use, _ := reps[2].ClaimEntry(ctx, 8, minute+1, 0, 1000, 1); !ok || use.Tokens != 1 || use.Requests != 1 {
		t.Fatalf("next minute: ok %v, use %+v", ok, use)
	}
}

// TestRedisBusyExchange: each replica sees the others' requests in flight
// per entry, not its own; a replica that stops publishing is forgotten.
func TestRedisBusyExchange(t *testing.T) {
	srv := redistest.Start(t)
	a, b, c := startReplica(t, srv.URL(), "busy"), startReplica(t, srv.URL(), "busy"), startReplica(t, srv.URL(), "busy")
	ctx := context.Background()
	if _, err := a.ExchangeBusy(ctx, map[int64]int64{1: 3, 2: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.ExchangeBusy(ctx, map[int64]int64{1: 2}); err != nil {
		t.Fatal(err)
	}
	got, err := c.ExchangeBusy(ctx, map[int64]int64{1: 100})
	if err != nil || got[1] != 5 || got[2] != 1 {
		t.Fatalf("c sees %v (%v); want 1: 5, 2: 1 (a's and b's, not its own)", got, err)
	}
	got, _ = a.ExchangeBusy(ctx, map[int64]int64{})
	if got[1] != 102 || got[2] != 0 {
		t.Fatalf("a sees %v; want 1: 102 (b's 2, c's 100)", got)
	}
	// b and c stop publishing: after the counts' life a sees nothing.
	time.Sleep(2100 * time.Millisecond)
	if got, _ = a.ExchangeBusy(ctx, nil); len(got) != 0 {
		t.Fatalf("a still sees %v from replicas that stopped", got)
	}
}

// TestRedisAdmitClaimsEntry: an admission carrying an entry's claim claims
// it in the same script once the key's limit and budget admit the request;
// the key's refusal leaves the entry untouched, and an entry at its limit
// refuses the claim alone (the request stays admitted). The budgets'
// spends are read apart from the claim's answer.
func TestRedisAdmitClaimsEntry(t *testing.T) {
	srv := redistest.Start(t)
	r := startReplica(t, srv.URL(), "admitentry")
	keys := r.Keys(cluster.Holder{Kind: "key", ID: 3})
	minute := time.Now().Unix() / 60
	ctx := context.Background()
	const cent = int64(10_000_000)
	admit := func(i int, entryRPM int64) cluster.Verdict {
		t.Helper()
		a := &cluster.Admission{RequestID: fmt.Sprint("r", i), Amount: cent,
			Limits:  []cluster.Limit{{Window: keys.Window, RPM: 3}},
			Budgets: []cluster.Budget{{Spent: keys.Spent(0), Held: keys.Held, HeldSum: keys.HeldSum, Hard: 100 * cent, Seed: 5 * cent}}}
		v, err := r.AdmitClaiming(ctx, a, &cluster.EntryClaim{ID: 9, Minute: minute, RPM: entryRPM, Tokens: 40})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for i := range 2 {
		v := admit(i, 10)
		if v.Refusal != cluster.Admitted || !v.EntryAsked || !v.EntryOK ||
			v.EntryUse != (cluster.EntryUse{Requests: int64(i + 1), Tokens: int64(40 * (i + 1))}) || v.Spent != [3]int64{5 * cent} {
			t.Fatalf("admission %d: %+v; want admitted, the entry claimed (%d requests), 5 cents spent", i, v, i+1)
		}
	}
	// The entry is at its limit of 2: the request is admitted, the claim not.
	if v := admit(2, 2); v.Refusal != cluster.Admitted || !v.EntryAsked || v.EntryOK || v.EntryUse.Requests != 2 {
		t.Fatalf("an entry at its limit: %+v; want admitted with the claim refused at 2 requests", v)
	}
	// The key's 3 rpm is used up: refused, and the entry counts nothing more.
	if v := admit(3, 10); v.Refusal != cluster.OverRPM || v.EntryAsked {
		t.Fatalf("over the key's limit: %+v; want refused, the entry not asked", v)
	}
	if ok, use, err := r.ClaimEntry(ctx, 9, minute, 0, 0, 0); err != nil || !ok || use.Requests != 3 {
		t.Fatalf("the entry's minute after: %v %+v %v; want 2 claims and this one", ok, use, err)
	}
}
