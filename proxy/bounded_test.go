package proxy_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"gateway/models"
	"gateway/proxy"
)

// TestCallerModelNamesGrowNothing: through a wildcard route anyone with a key
// can send any number of distinct model names. None of them may become a
// metric label or a sticky binding of its own: those are keyed by the route's
// public name, so what the gateway keeps stays as large as its configuration.
func TestCallerModelNamesGrowNothing(t *testing.T) {
	reg := prometheus.NewRegistry()
	e := newEnv(t, proxy.Options{Metrics: reg})
	e.addDeployment(models.Deployment{PublicName: "openai/*", UpstreamModel: "*", Prices: models.PricesOf(1, 2)})
	e.addDeployment(models.Deployment{PublicName: "openai/*", UpstreamModel: "*", Prices: models.PricesOf(1, 2)})
	e.setPool("openai/*", models.PoolSetting{StickyTTLSeconds: ptr(7200)})
	e.reload()
	const names = 200
	for i := range names {
		model := fmt.Sprintf("openai/made-up-%d-%x", i, rand.Uint64())
		resp, body := e.post("/v1/chat/completions", e.key, strings.NewReader(chatBody(model, false)))
		wantStatus(t, resp, body, 200)
	}

	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	series := map[string]int{}
	for _, f := range families {
		series[f.GetName()] = len(f.GetMetric())
	}
	// One series per status, per direction: the route's, whatever the names.
	for metric, want := range map[string]int{"gateway_requests_total": 1, "gateway_tokens_total": 2, "gateway_cost_usd_total": 1} {
		if got := series[metric]; got != want {
			t.Errorf("%d distinct model names made %d series of %s, want %d", names, got, metric, want)
		}
	}
	bs := e.proxy.StickyBindings()
	if len(bs) != 1 || bs[0].ModelName != "openai/*" {
		t.Errorf("%d distinct model names made %d sticky bindings, want one for openai/*", names, len(bs))
	}
}
