package logbuf_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"gateway/proxy/logbuf"
)

// countingWriter records what reached the output and in how many writes.
type countingWriter struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
	err    error
	gate   chan struct{} // when set, each write waits for it
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.gate != nil {
		<-c.gate
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes++
	if c.err != nil {
		return 0, c.err
	}
	return c.b.Write(p)
}

func (c *countingWriter) state() (string, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b.String(), c.writes
}

// Lines from many goroutines all arrive whole, each goroutine's in its
// order, in far fewer writes than lines.
func TestLinesArriveWholeInOrderInFewWrites(t *testing.T) {
	out := &countingWriter{}
	w := logbuf.New(out)
	log := slog.New(slog.NewTextHandler(w, nil))
	const goroutines, lines = 8, 500
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range lines {
				log.Info("request", "g", g, "i", i)
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	text, writes := out.state()
	got := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(got) != goroutines*lines {
		t.Fatalf("%d lines arrived, want %d", len(got), goroutines*lines)
	}
	next := make([]int, goroutines)
	for _, l := range got {
		var g, i int
		at := strings.Index(l, " g=")
		if at < 0 || !strings.Contains(l, "level=INFO msg=request") {
			t.Fatalf("line not whole: %q", l)
		}
		if _, err := fmt.Sscanf(l[at:], " g=%d i=%d", &g, &i); err != nil {
			t.Fatalf("line not whole: %q: %v", l, err)
		}
		if i != next[g] {
			t.Fatalf("goroutine %d: line %d came where %d was due", g, i, next[g])
		}
		next[g]++
	}
	if writes > goroutines*lines/10 {
		t.Errorf("%d lines took %d writes: not gathered", len(got), writes)
	}
}

// A line reaches the output by itself within a few intervals, with no Flush.
func TestLineArrivesWithoutFlush(t *testing.T) {
	out := &countingWriter{}
	w := logbuf.New(out)
	defer w.Close()
	io.WriteString(w, "one line\n")
	deadline := time.Now().Add(20 * logbuf.Every)
	for {
		if text, _ := out.state(); text == "one line\n" {
			return
		}
		if time.Now().After(deadline) {
			text, _ := out.state()
			t.Fatalf("after %s the output holds %q", 20*logbuf.Every, text)
		}
		time.Sleep(logbuf.Every / 10)
	}
}

// Lines written after Close go straight out, after the ones before it.
func TestWritesAfterCloseGoStraightOut(t *testing.T) {
	out := &countingWriter{}
	w := logbuf.New(out)
	io.WriteString(w, "before\n")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, "after\n")
	if text, _ := out.state(); text != "before\nafter\n" {
		t.Fatalf("output %q", text)
	}
	if err := w.Close(); err != nil { // twice is harmless
		t.Fatal(err)
	}
}

// An output that fails is reported by Flush and Close, not by Write.
func TestOutputErrorReportedByFlush(t *testing.T) {
	boom := errors.New("disk full")
	out := &countingWriter{err: boom}
	w := logbuf.New(out)
	if _, err := io.WriteString(w, "line\n"); err != nil {
		t.Fatalf("Write: %v", err)
	}
	if err := w.Close(); !errors.Is(err, boom) {
		t.Fatalf("Close: %v, want %v", err, boom)
	}
}

// An output that does not keep up holds writers back instead of letting the
// buffer grow without end.
func TestSlowOutputHoldsWritersBack(t *testing.T) {
	out := &countingWriter{gate: make(chan struct{})}
	w := logbuf.New(out)
	line := []byte(strings.Repeat("x", 1023) + "\n")
	wrote := make(chan int)
	go func() {
		n := 0
		for range 8 << 10 { // 8 MiB: twice what may wait
			w.Write(line)
			n++
		}
		wrote <- n
	}()
	select {
	case n := <-wrote:
		t.Fatalf("%d lines (8 MiB) accepted while the output wrote nothing", n)
	case <-time.After(500 * time.Millisecond):
	}
	close(out.gate)
	if n := <-wrote; n != 8<<10 {
		t.Fatalf("wrote %d lines", n)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if text, _ := out.state(); len(text) != 8<<20 {
		t.Fatalf("output holds %d bytes, want %d", len(text), 8<<20)
	}
}
