package cluster_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"testing"

	"gateway/proxy/cluster"
	"gateway/proxy/cluster/redistest"
)

// BenchmarkAdmit is one request's admission (a key's limit and budget, one
// round trip to Redis) and its settlement, sent behind it. BENCH_REDIS_URL
// names a running Redis; without it a redis-server is started.
func BenchmarkAdmit(b *testing.B) {
	admit := startBenchAdmissions(b)
	i := int64(0)
	for b.Loop() {
		i++
		if err := admit(i); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAdmitParallel is BenchmarkAdmit from 64 requests at a time, as
// a busy replica admits them: their admissions share round trips.
func BenchmarkAdmitParallel(b *testing.B) {
	admit := startBenchAdmissions(b)
	var n atomic.Int64
	b.SetParallelism(64)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := admit(n.Add(1)); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// startBenchAdmissions starts a replica and returns what admits request i
// on a key's limit and budget and settles it behind.
func startBenchAdmissions(b *testing.B) func(i int64) error {
	url := os.Getenv("BENCH_REDIS_URL")
	if url == "" {
		url = redistest.Start(b).URL()
	}
	r := startBenchReplica(b, url)
	k := r.Keys(cluster.Holder{Kind: "key", ID: 1})
	return func(i int64) error {
		a := &cluster.Admission{RequestID: strconv.FormatInt(i, 10), Amount: 1000,
			Limits:  []cluster.Limit{{Window: k.Window, RPM: 1 << 30}},
			Budgets: []cluster.Budget{{Spent: k.Spent(0), Held: k.Held, HeldSum: k.HeldSum, Hard: 1 << 50}}}
		v, err := r.Admit(context.Background(), a)
		if err == nil && v.Refusal != cluster.Admitted {
			err = fmt.Errorf("refused: %+v", v)
		}
		if err != nil {
			return err
		}
		r.Settle(a, 500, 10)
		return nil
	}
}

func startBenchReplica(b *testing.B, url string) *cluster.Cluster {
	c, err := cluster.New(cluster.Options{URL: url, Namespace: "bench", Mirror: newMirror()})
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Start(5e9); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}
