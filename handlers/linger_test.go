package handlers_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"gateway/models/dbtest"
)

// smallBuffers hands out connections with small socket buffers (and no
// autotuning), as on a busy host: the kernels then cannot take in the rest of
// a body the server does not read, and the client is still writing when the
// server closes.
type smallBuffers struct{ net.Listener }

const socketBuffer = 32 << 10

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		err = c.(*net.TCPConn).SetReadBuffer(socketBuffer)
	}
	return c, err
}

// sendWhole writes a whole request before reading the answer, as a client
// uploading a large body does, and returns the answer's status and body.
func sendWhole(t *testing.T, addr, head string, body []byte, chunked bool) (int, string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.(*net.TCPConn).SetWriteBuffer(socketBuffer); err != nil {
		t.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(time.Minute)) //nolint:errcheck // a guard against a hung test
	w := bufio.NewWriterSize(conn, 64<<10)
	io.WriteString(w, head)
	if chunked {
		fmt.Fprintf(w, "Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(body), body)
	} else {
		fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	if err := w.Flush(); err != nil {
		t.Fatalf("writing the request: %v (the server closed the connection while the body was still coming)", err)
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
	return resp.StatusCode, string(b)
}

// TestAdminRefusalReachesAClientStillWriting: the admin listener refuses a
// body over its 1 MiB limit, or a request with a wrong master key, and the
// client still writing its body gets the JSON error instead of a reset.
func TestAdminRefusalReachesAClientStillWriting(t *testing.T) {
	ta := newTestApp(t, dbtest.MustOpenStore(t, "", t.TempDir()))
	srv := httptest.NewUnstartedServer(ta.app)
	srv.Listener = smallBuffers{srv.Listener}
	srv.Start()
	t.Cleanup(srv.Close)

	large := []byte(`{"name":"` + strings.Repeat("a", 2<<20) + `"}`)
	head := func(key string) string {
		return "POST /api/providers HTTP/1.1\r\nHost: admin\r\nContent-Type: application/json\r\nAuthorization: Bearer " + key + "\r\n"
	}
	for _, tc := range []struct {
		name     string
		key      string
		chunked  bool
		status   int
		errorMsg string
	}{
		{"over the limit", testMasterKey, false, http.StatusRequestEntityTooLarge, "request body is larger than"},
		{"over the limit, chunked", testMasterKey, true, http.StatusRequestEntityTooLarge, "request body is larger than"},
		{"wrong master key", "mk-wrong", false, http.StatusUnauthorized, ""},
		{"wrong master key, chunked", "mk-wrong", true, http.StatusUnauthorized, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := sendWhole(t, srv.Listener.Addr().String(), head(tc.key), large, tc.chunked)
			if status != tc.status || !strings.HasPrefix(body, `{"error":{"message":"`) || !strings.Contains(body, tc.errorMsg) {
				t.Fatalf("%d %s, want %d with an error message containing %q", status, body, tc.status, tc.errorMsg)
			}
		})
	}
}
