// Package redistest runs real redis-server processes for tests, each on its
// own loopback port in the test's temporary directory, which a test may stop
// and start again to see what an outage does.
package redistest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// EnvRequire, when set (CI sets it), makes a test that finds no redis-server
// fail instead of skipping.
const EnvRequire = "GATEWAY_REQUIRE_REDIS"

// Server is one redis-server process.
type Server struct {
	tb   testing.TB
	bin  string
	dir  string
	port int
	cmd  *exec.Cmd
}

// Start runs a redis-server on a free port, stopped when the test ends. It
// skips the test when the binary is missing, unless GATEWAY_REQUIRE_REDIS
// is set.
func Start(tb testing.TB) *Server {
	tb.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv(EnvRequire) != "" {
			tb.Fatalf("redis: no redis-server on PATH but %s is set", EnvRequire)
		}
		tb.Skip("redis: install redis-server (Debian's package) to run this test")
	}
	s := &Server{tb: tb, bin: bin, dir: tb.TempDir(), port: freePort(tb)}
	s.Restart()
	tb.Cleanup(s.Stop)
	return s
}

// URL is the server's redis:// URL.
func (s *Server) URL() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", s.port) }

// Addr is the server's host:port.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// Stop kills the server, as a crash or an outage would; its data is gone
// (nothing is saved to disk). Stopping a stopped server does nothing.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill() //nolint:errcheck // it may have died already; Wait says
	s.cmd.Wait()         //nolint:errcheck // killed: the error says so
	s.cmd = nil
}

// Restart starts the server (again) on the same port and waits until it
// answers.
func (s *Server) Restart() {
	s.tb.Helper()
	if s.cmd != nil {
		return
	}
	cmd := exec.Command(s.bin, "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--dir", s.dir,
		"--save", "", "--appendonly", "no", "--protected-mode", "no", "--daemonize", "no", "--loglevel", "warning")
	logFile, err := os.OpenFile(filepath.Join(s.dir, "redis.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		s.tb.Fatalf("redis: %v", err)
	}
	defer logFile.Close() // the process has its own copy
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		s.tb.Fatalf("redis: start: %v", err)
	}
	s.cmd = cmd
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c, err := net.DialTimeout("tcp", s.Addr(), time.Second); err == nil {
			ok := ping(c)
			c.Close()
			if ok {
				return
			}
		}
	}
	s.tb.Fatalf("redis: no answer on %s within 10 s", s.Addr())
}

// ping sends PING in Redis's inline form and waits for +PONG.
func ping(c net.Conn) bool {
	c.SetDeadline(time.Now().Add(time.Second)) //nolint:errcheck // a dead conn fails the write
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	buf := make([]byte, 7)
	n, _ := c.Read(buf)
	return string(buf[:n]) == "+PONG\r\n"
}

func freePort(tb testing.TB) int {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
