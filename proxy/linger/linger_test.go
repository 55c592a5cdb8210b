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
