package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestMetrics: the admin listener serves Prometheus metrics that count a
// proxied request by its public model name, and none by what a caller typed.
func TestMetrics(t *testing.T) {
	upstream := newFakeOpenAI(t)
	g, _ := startGateway(t, testConfig("", t.TempDir()))
	key := setupPool(t, g, upstream.URL)
	client := sdk(g, key)
	if _, err := client.Chat.Completions.New(context.Background(), chatParams()); err != nil {
		t.Fatal(err)
	}
	p := chatParams()
	p.Model = "made-up-by-a-caller"
	client.Chat.Completions.New(context.Background(), p) //nolint:errcheck // a 404 is the point
	resp, err := http.Get("http://" + g.AdminAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	body := string(b)
	for _, want := range []string{
		`gateway_requests_total{endpoint="/v1/chat/completions",model="team-model",status="200"} 1`,
		`gateway_requests_total{endpoint="/v1/chat/completions",model="",status="404"} 1`,
		`gateway_tokens_total{direction="out",model="team-model"} 7`,
		"gateway_upstream_attempts_total", "gateway_log_queue_depth", "gateway_log_spooled_rows 0", "gateway_log_replayed_rows_total 0", "gateway_members_cooling_down 0", "go_goroutines",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(body, "made-up-by-a-caller") {
		t.Error("a caller's model name became a label")
	}
}
