package handlers

import (
	"testing"
	"time"

	"gateway/models"
	"gateway/proxy"
	"gateway/proxy/pricing"
)

// TestPoolStatusRuntimeFields: what the proxy measures (latency, requests
// in flight, this minute's usage) reaches the API's member and the page's
// row, and an absent sample stays absent. The runtime tests' clock stands
// still, so they never see a latency; this feeds one in.
func TestPoolStatusRuntimeFields(t *testing.T) {
	entries := []models.Deployment{
		{ID: 1, UpstreamModel: "busy", Enabled: true, Priority: 2, Prices: models.PricesOf(1.5, 6),
			RateLimits: models.RateLimits{RPMLimit: ptrTo(60), TPMLimit: ptrTo(100000)}},
		{ID: 2, UpstreamModel: "idle", Enabled: true},
	}
	served := []proxy.MemberStatus{
		{ID: 1, LatencyMS: 12.5, InFlight: 3, RequestsMinute: 42, TokensMinute: 1234, AtLimit: true},
		{ID: 2},
	}
	st := poolStatusOf("p", entries, served, nil, pricing.Builtin())
	js := st.json()
	busy, idle := js.Members[0], js.Members[1]
	if busy.LatencyMS == nil || *busy.LatencyMS != 12.5 || busy.InFlight != 3 || busy.RequestsMinute != 42 ||
		busy.TokensMinute != 1234 || !busy.AtLimit || busy.Priority != 2 || busy.Price == nil || *busy.Price != 7.5 || idle.Price != nil {
		t.Errorf("busy = %+v", busy)
	}
	if idle.LatencyMS != nil || idle.RPMLimit != nil || idle.TPMLimit != nil {
		t.Errorf("idle = %+v, want no latency, no limits and no price", idle)
	}

	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	row := poolStatusMemberOf(st.members[0], now)
	got := [7]string{row.Tier, row.Requests, row.Tokens, row.InFlight, row.Latency, row.Price, row.OutBecause}
	want := [7]string{"2", "42/60 req", "1.2k/100k tok", "3", "13 ms", "7.5", ""}
	if got != want || !row.AtLimit {
		t.Errorf("busy row: %q at limit %v, want %q at limit", got, row.AtLimit, want)
	}
	row = poolStatusMemberOf(st.members[1], now)
	if row.Requests != "" || row.Tokens != "" || row.Latency != "" || row.Tier != "0" || row.InFlight != "0" {
		t.Errorf("idle row: %+v", row)
	}
	// A member with a planned share that gets none because of its limit says so.
	st.members[0].served.PlannedShare = 0.5
	if row := poolStatusMemberOf(st.members[0], now); row.OutBecause != "at its limit this minute" {
		t.Errorf("out because %q", row.OutBecause)
	}
}

func ptrTo[T any](v T) *T { return &v }
