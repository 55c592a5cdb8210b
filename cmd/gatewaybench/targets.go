package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"
)

// target is one thing the load generator drives: the upstream itself, the
// plain reverse proxy or the gateway.
type target struct {
	name   string
	base   string // http://127.0.0.1:port
	client *http.Client
	// settle, when set, waits after a run for the target's background work
	// on the sent requests (the gateway's request-log writer), so that its
	// allocations count in the run that caused them.
	settle func(ctx context.Context, sent int64)
	sent   int64 // requests sent so far, warm-ups included
	// sharedCPU, when set, is the CPU time used so far by a server the
	// target needs besides itself (Redis): it runs on the same cores, but
	// in a process of its own, outside the process's CPU time.
	sharedCPU func(ctx context.Context) time.Duration
}

// newTarget gives a target its own client, with idle connections enough for
// every worker so that no run pays for reconnecting.
func newTarget(name, addr string) *target {
	transport := &http.Transport{
		Proxy:               nil, // the loads stay on 127.0.0.1, whatever the environment says
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost: maxConcurrency + 64,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	return &target{name: name, base: "http://" + addr, client: &http.Client{Transport: transport}}
}

func (t *target) close() { t.client.CloseIdleConnections() }

// newUpstreamTransport is what the plain proxy calls the upstream with: the
// settings of the gateway's own per-provider transport (proxy/provider.go),
// so that the floor pools connections the way the gateway does.
func newUpstreamTransport() *http.Transport {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Transport{
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}

// newPlainProxy is the floor: the standard library's reverse proxy, flushing
// every write as SSE needs, and nothing else but full duplex. Without it Go's
// HTTP/1 server cuts about one fast stream in a thousand here with
// "unexpected EOF" (a race between the response's end and the next
// request's body on a kept-alive connection), and a floor that drops
// requests would flatter itself; the gateway enables it too.
func newPlainProxy(upstream string) (http.Handler, *http.Transport, error) {
	u, err := url.Parse(upstream)
	if err != nil {
		return nil, nil, fmt.Errorf("plain proxy: %w", err)
	}
	transport := newUpstreamTransport()
	rp := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(u) },
		FlushInterval: -1,
		Transport:     transport,
		ErrorLog:      log.New(io.Discard, "", 0), // failures reach the load generator as 502s
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.NewResponseController(w).EnableFullDuplex() //nolint:errcheck // HTTP/1 supports it; without it, the rare stream is cut as before
		rp.ServeHTTP(w, r)
	}), transport, nil
}

// server is an HTTP server on a free port of 127.0.0.1.
type server struct {
	http   *http.Server
	ln     net.Listener
	served chan error
}

// serve starts h; errLog gets the server's own complaints (accept errors,
// panics), which would otherwise vanish into a failed request.
func serve(h http.Handler, errLog *log.Logger) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	// The gateway's proxy listener settings (cmd/gateway/gateway.go).
	s := &server{ln: ln, served: make(chan error, 1), http: &http.Server{Handler: h,
		ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		ErrorLog: errLog}}
	go func() { s.served <- s.http.Serve(ln) }()
	return s, nil
}

func (s *server) addr() string { return s.ln.Addr().String() }

// shutdown lets requests in flight finish, at most until ctx is done.
func (s *server) shutdown(ctx context.Context) error {
	err := s.http.Shutdown(ctx)
	if err != nil {
		err = errors.Join(err, s.http.Close())
	}
	if served := <-s.served; !errors.Is(served, http.ErrServerClosed) {
		err = errors.Join(err, served)
	}
	return err
}
