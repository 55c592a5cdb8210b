package linger_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"gateway/proxy/linger"
)

// deadlineRecorder records an answer and takes read deadlines, as the
// server's own ResponseWriter does.
type deadlineRecorder struct{ *httptest.ResponseRecorder }

func (deadlineRecorder) SetReadDeadline(time.Time) error { return nil }

// TestServedRequestPaysNothing: a request whose handler read its body to the
// end, every request served on the proxy's hot path, costs the wrapper no
// allocation, whether its body came with a length or chunked.
func TestServedRequestPaysNothing(t *testing.T) {
	readAll := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) //nolint:errcheck // a strings.Reader does not fail
		w.WriteHeader(http.StatusOK)
	})
	const body = `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}`
	for _, tc := range []struct {
		name   string
		length int64
	}{{"with a length", int64(len(body))}, {"chunked", -1}} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.NewReader(body)
			r := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", nil)
			r.Body, r.ContentLength = io.NopCloser(src), tc.length
			w := deadlineRecorder{httptest.NewRecorder()}
			allocs := func(h http.Handler) float64 {
				return testing.AllocsPerRun(1000, func() {
					src.Reset(body)
					h.ServeHTTP(w, r)
				})
			}
			bare, wrapped := allocs(readAll), allocs(linger.Handler(readAll, 1<<20))
			if wrapped != bare {
				t.Errorf("a served request allocates %v times through the wrapper, %v without", wrapped, bare)
			}
		})
	}
}

// TestRefusalKeepsTheConnectionAlive: a refusal of a small body (which the
// server reads out and closes itself when the answer's header goes out)
// leaves its keep-alive connection as it was: the requests after it on
// that connection are served with a live context, as many times as it
// happens.
func TestRefusalKeepsTheConnectionAlive(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/refuse", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"no such route"}`, http.StatusNotFound) // the body unread
	})
	mux.HandleFunc("/serve", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) //nolint:errcheck // the context is what counts
		if err := r.Context().Err(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	srv := httptest.NewServer(linger.Handler(mux, 1<<20))
	t.Cleanup(srv.Close)
	// One connection, reused for every request.
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1}}
	post := func(path string) (int, string) {
		resp, err := client.Post(srv.URL+path, "application/json", strings.NewReader(`{"x":1}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	failed := 0
	for range 200 {
		if st, _ := post("/refuse"); st != http.StatusNotFound {
			t.Fatalf("refusal answered %d", st)
		}
		if st, body := post("/serve"); st != http.StatusOK {
			failed++
			if failed == 1 {
				t.Logf("after a refusal: %d %s", st, body)
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of 200 requests after a refusal on the same connection were not served", failed)
	}
}
