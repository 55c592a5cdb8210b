package redistest

import (
	"io"
	"net"
	"sync"
	"testing"
)

// Link is a TCP relay between one replica and a server, which a test can
// cut and mend: a network partition of that replica alone, while the
// server and the other replicas carry on.
type Link struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	cut   bool
	conns map[net.Conn]bool
}

// NewLink relays connections to s until the test ends.
func (s *Server) NewLink(tb testing.TB) *Link {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	l := &Link{ln: ln, target: s.Addr(), conns: make(map[net.Conn]bool)}
	go l.accept()
	tb.Cleanup(func() {
		ln.Close()
		l.Cut()
	})
	return l
}

// URL is the redis:// URL of the link's end.
func (l *Link) URL() string { return "redis://" + l.ln.Addr().String() + "/0" }

// Cut closes every relayed connection and refuses new ones until Mend.
func (l *Link) Cut() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cut = true
	for c := range l.conns {
		c.Close()
	}
	clear(l.conns)
}

// Mend relays new connections again.
func (l *Link) Mend() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cut = false
}

func (l *Link) accept() {
	for {
		c, err := l.ln.Accept()
		if err != nil {
			return
		}
		go l.relay(c)
	}
}

func (l *Link) relay(c net.Conn) {
	up, err := net.Dial("tcp", l.target)
	l.mu.Lock()
	if err != nil || l.cut {
		l.mu.Unlock()
		c.Close()
		if up != nil {
			up.Close()
		}
		return
	}
	l.conns[c], l.conns[up] = true, true
	l.mu.Unlock()
	go func() {
		io.Copy(up, c) //nolint:errcheck // either side closing ends the relay
		up.Close()
		c.Close()
	}()
	io.Copy(c, up) //nolint:errcheck // either side closing ends the relay
	c.Close()
	up.Close()
}
