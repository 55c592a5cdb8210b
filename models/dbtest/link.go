package dbtest

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
)

// Link is a TCP relay between the code under test and a PostgreSQL server,
// which a test cuts to see what an outage does: while it is cut nothing
// listens on its address (connection refused, as with the server stopped)
// and the connections it carried are closed; while it is stalled it takes
// connections and carries nothing (a network that drops packets).
type Link struct {
	tb     testing.TB
	target string
	addr   string

	mu      sync.Mutex
	ln      net.Listener
	stalled bool
	conns   map[net.Conn]bool
}

// NewLink starts a relay to the server of dsn and returns it with the URL
// that reaches the same database through it. It closes when the test ends.
func NewLink(tb testing.TB, dsn string) (*Link, string) {
	tb.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		tb.Fatalf("link: %v", err)
	}
	l := &Link{tb: tb, target: u.Host, conns: make(map[net.Conn]bool)}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("link: %v", err)
	}
	l.addr = ln.Addr().String()
	l.serve(ln)
	tb.Cleanup(l.Cut)
	u.Host = l.addr
	return l, u.String()
}

func (l *Link) serve(ln net.Listener) {
	l.ln = ln
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go l.carry(c)
		}
	}()
}

// carry relays one connection, unless the link is stalled.
func (l *Link) carry(c net.Conn) {
	if !l.track(c) {
		return
	}
	l.mu.Lock()
	stalled := l.stalled
	l.mu.Unlock()
	if stalled {
		return // held open, silent, until the link is cut
	}
	up, err := net.Dial("tcp", l.target)
	if err != nil {
		c.Close()
		return
	}
	if !l.track(up) {
		c.Close()
		return
	}
	go func() { io.Copy(up, c); up.Close() }() //nolint:errcheck // ends with either side
	io.Copy(c, up)                             //nolint:errcheck // as above
	c.Close()
}

// track registers a connection for Cut; one made as the link was cut is closed.
func (l *Link) track(c net.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ln == nil {
		c.Close()
		return false
	}
	l.conns[c] = true
	return true
}

// Cut closes the listener and every connection.
func (l *Link) Cut() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ln != nil {
		l.ln.Close()
		l.ln = nil
	}
	for c := range l.conns {
		c.Close()
	}
	clear(l.conns)
}

// Stall cuts what the link carries and then takes connections without
// answering.
func (l *Link) Stall() {
	l.Cut()
	l.mu.Lock()
	l.stalled = true
	l.mu.Unlock()
	l.listen()
}

// Restore listens again on the same address and carries connections.
func (l *Link) Restore() {
	l.Cut()
	l.mu.Lock()
	l.stalled = false
	l.mu.Unlock()
	l.listen()
}

func (l *Link) listen() {
	ln, err := net.Listen("tcp", l.addr)
	if err != nil {
		l.tb.Errorf("link: listen again on %s: %v", l.addr, err)
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.serve(ln)
}
