package main

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestAdminKeepAliveAfterRefusals: on one keep-alive connection, as htmx
// and scripts use it, a POST to an unknown /api route with a body, then a
// PATCH refused for an unknown field, then a valid PATCH, thirty times: every
// valid PATCH is served. (The refusal of the small unread body used to
// cancel the connection's context, and every later write on it answered 500
// "context canceled".)
func TestAdminKeepAliveAfterRefusals(t *testing.T) {
	g, logs := startGateway(t, testConfig("", t.TempDir()))
	id := mustAPI(t, g, "POST", "/api/keys", map[string]any{"name": "kept"}, http.StatusCreated)["id"]
	tr := &http.Transport{MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1}
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}
	do := func(method, path, body string) (int, string) {
		req, _ := http.NewRequest(method, "http://"+g.AdminAddr()+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testMasterKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	path := fmt.Sprintf("/api/keys/%v", id)
	for i := range 30 {
		if st, _ := do("POST", "/api/no-such-route", `{"x":1}`); st != http.StatusNotFound {
			t.Fatalf("unknown route: %d", st)
		}
		if st, _ := do("PATCH", path, `{"no_such_field":1}`); st != http.StatusBadRequest {
			t.Fatalf("unknown field: %d", st)
		}
		if st, body := do("PATCH", path, fmt.Sprintf(`{"name":"kept-%d"}`, i)); st != http.StatusOK {
			t.Fatalf("valid PATCH %d after two refusals on the same connection: %d %s\n%s", i, st, body, logs)
		}
	}
}
