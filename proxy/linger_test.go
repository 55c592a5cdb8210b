package proxy_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"gateway/models"
	"gateway/proxy"
)

// rawRequest is a request written byte by byte on its own connection, the
// way a client that sends its whole body before reading does (Node's http
// module with a large body).
type rawRequest struct {
	method, path string
	header       map[string]string
	body         []byte
	chunked      bool // Transfer-Encoding: chunked instead of Content-Length
}

// send writes the whole request without waiting for an answer, then reads
// the answer. A gateway that closes the connection while the body is still
// coming makes the write or the read fail with a reset.
func (rr rawRequest) send(t *testing.T, addr string) (*http.Response, []byte) {
	t.Helper()
	conn := dialSmallBuffers(t, addr)
	w := bufio.NewWriterSize(conn, 64<<10)
	fmt.Fprintf(w, "%s %s HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\n", rr.method, rr.path)
	for k, v := range rr.header {
		fmt.Fprintf(w, "%s: %s\r\n", k, v)
	}
	if rr.chunked {
		io.WriteString(w, "Transfer-Encoding: chunked\r\n\r\n")
		for b := rr.body; len(b) > 0; {
			n := min(len(b), 32<<10)
			fmt.Fprintf(w, "%x\r\n%s\r\n", n, b[:n])
			b = b[n:]
		}
		io.WriteString(w, "0\r\n\r\n")
	} else {
		fmt.Fprintf(w, "Content-Length: %d\r\n\r\n", len(rr.body))
		w.Write(rr.body)
	}
	if err := w.Flush(); err != nil {
		t.Fatalf("writing the request: %v (the gateway closed the connection while the body was still coming)", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer's body: %v", err)
	}
	return resp, b
}

// smallBuffers hands out connections with small socket buffers (and no
// buffer autotuning), as on a busy host: the kernels then cannot take in the
// rest of a body the gateway does not read, and the client is still writing
// when the gateway closes.
type smallBuffers struct{ net.Listener }

const socketBuffer = 32 << 10

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		err = c.(*net.TCPConn).SetReadBuffer(socketBuffer)
	}
	return c, err
}

// serveSmallBuffers serves h on a listener of smallBuffers and returns its address.
func serveSmallBuffers(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = smallBuffers{srv.Listener}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

func dialSmallBuffers(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.(*net.TCPConn).SetWriteBuffer(socketBuffer); err != nil {
		t.Fatal(err)
	}
	// A guard against a hung test, not a timing assertion.
	conn.SetDeadline(time.Now().Add(time.Minute)) //nolint:errcheck // a TCP connection supports deadlines
	return conn
}

// bodyOfSize is a chat request padded to n bytes.
func bodyOfSize(n int) []byte {
	head, tail := `{"model":"gpt-4o","messages":[{"role":"user","content":"`, `"}]}`
	return []byte(head + strings.Repeat("a", n-len(head)-len(tail)) + tail)
}

// wantErrorShape checks the body is the caller's protocol's error shape.
func wantErrorShape(t *testing.T, anthropic bool, body []byte) {
	t.Helper()
	if !anthropic {
		decodeError(t, body)
		return
	}
	var e struct {
		Type  string `json:"type"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Type != "error" || e.Error.Type == "" || e.Error.Message == "" {
		t.Fatalf("not Anthropic's error shape (%v): %s", err, body)
	}
}

// TestRefusalReachesAClientStillWriting: a body over the limit, or any
// refusal before the body is read, still reaches a client that writes its
// whole body before it reads, in its protocol's error shape; the gateway
// reads out the rest instead of resetting the connection.
func TestRefusalReachesAClientStillWriting(t *testing.T) {
	const limit = 1 << 20
	e := newEnv(t, proxy.Options{MaxBodyBytes: limit})
	e.addDeployment(models.Deployment{PublicName: "gpt-4o", UpstreamModel: "gpt-4o"})
	e.reload()
	gateway := serveSmallBuffers(t, e.proxy)
	notReady := serveSmallBuffers(t, proxy.New(e.store, proxy.Options{MaxBodyBytes: limit}))

	large := bodyOfSize(limit + 1<<20)
	bearer := map[string]string{"Authorization": "Bearer " + e.key}
	for _, tc := range []struct {
		name      string
		req       rawRequest
		notReady  bool
		status    int
		anthropic bool
	}{
		{name: "over the limit, announced", req: rawRequest{method: "POST", path: "/v1/chat/completions", header: bearer, body: large},
			status: http.StatusRequestEntityTooLarge},
		{name: "over the limit, chunked", req: rawRequest{method: "POST", path: "/v1/chat/completions", header: bearer, body: large, chunked: true},
			status: http.StatusRequestEntityTooLarge},
		{name: "messages over the limit, announced", req: rawRequest{method: "POST", path: "/v1/messages",
			header: map[string]string{"X-Api-Key": e.key}, body: large}, status: http.StatusRequestEntityTooLarge, anthropic: true},
		{name: "messages over the limit, chunked", req: rawRequest{method: "POST", path: "/v1/messages",
			header: map[string]string{"X-Api-Key": e.key}, body: large, chunked: true}, status: http.StatusRequestEntityTooLarge, anthropic: true},
		{name: "unknown key", req: rawRequest{method: "POST", path: "/v1/chat/completions",
			header: map[string]string{"Authorization": "Bearer sk-not-a-key"}, body: large}, status: http.StatusUnauthorized},
		{name: "unknown key, chunked", req: rawRequest{method: "POST", path: "/v1/messages",
			header: map[string]string{"X-Api-Key": "sk-not-a-key"}, body: large, chunked: true}, status: http.StatusUnauthorized, anthropic: true},
		{name: "no key", req: rawRequest{method: "POST", path: "/v1/messages", body: large}, status: http.StatusUnauthorized, anthropic: true},
		{name: "unknown path", req: rawRequest{method: "POST", path: "/v1/nothing-here", header: bearer, body: large}, status: http.StatusNotFound},
		{name: "wrong method", req: rawRequest{method: "PUT", path: "/v1/chat/completions", header: bearer, body: large},
			status: http.StatusMethodNotAllowed},
		{name: "not ready", req: rawRequest{method: "POST", path: "/v1/chat/completions", header: bearer, body: large, chunked: true},
			notReady: true, status: http.StatusServiceUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := gateway
			if tc.notReady {
				addr = notReady
			}
			resp, body := tc.req.send(t, addr)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			wantErrorShape(t, tc.anthropic, body)
		})
	}

	// A client that waits for a 100 Continue before its body gets the
	// refusal instead, at once: there is no body to wait for.
	t.Run("expects 100-continue", func(t *testing.T) {
		conn := dialSmallBuffers(t, gateway)
		fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer sk-not-a-key\r\n"+
			"Expect: 100-continue\r\nContent-Length: %d\r\n\r\n", len(large))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("status %d (%v), want 401: %s", resp.StatusCode, err, body)
		}
		wantErrorShape(t, false, body)
	})

	// The reading out is bounded: a client that keeps sending is cut off
	// rather than read for ever.
	t.Run("an endless body is cut off", func(t *testing.T) {
		conn := dialSmallBuffers(t, gateway)
		fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer %s\r\nContent-Length: %d\r\n\r\n", e.key, int64(1)<<40)
		chunk, sent := bytes.Repeat([]byte("a"), 64<<10), 0
		for sent < 1<<30 {
			n, err := conn.Write(chunk)
			sent += n
			if err != nil {
				break
			}
		}
		t.Logf("sent %d KiB before the gateway closed", sent>>10)
		// What was read out, plus what the kernels' buffers held.
		if sent >= 256<<20 {
			t.Fatalf("the gateway took %d MiB of a refused body", sent>>20)
		}
	})
}
