// Package logbuf gathers a process's log lines in memory and writes them out
// together, a few times a second, instead of one system call per line.
//
// The gateway writes an access line for every request; to a terminal, a pipe
// or a file each line is a write(2) of its own, which under load costs about
// as much CPU as the line's formatting. A Writer keeps the lines' order and
// content; what changes is when they reach the output: at most Every later,
// at once when a buffer's worth has gathered, and all of it on Flush and
// Close. A process that dies without Close loses at most that last moment's
// lines (a Go panic's report goes to file descriptor 2 directly, not here).
package logbuf

import (
	"io"
	"sync"
	"time"
)

const (
	// Every is how long a line waits for others at most.
	Every = 100 * time.Millisecond
	// flushAt wakes the writer early: a full buffer is written at once.
	flushAt = 64 << 10
	// blockAt makes writers wait for the output: an output slower than the
	// lines coming in must hold them back, as a direct write would, rather
	// than let memory grow without end.
	blockAt = 4 << 20
)

// Writer is an io.Writer safe for concurrent use. Each Write is kept whole
// and in order (slog handlers write one record per call).
type Writer struct {
	out io.Writer

	mu     sync.Mutex
	buf    []byte
	closed bool // lines go straight to out

	outMu sync.Mutex // held while writing to out; orders the batches
	spare []byte     // the buffer last written, reused (under outMu)

	kick      chan struct{}
	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// New starts a Writer in front of out. Close it to write what is left.
func New(out io.Writer) *Writer {
	w := &Writer{out: out, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go w.run()
	return w
}

// Write keeps a copy of p for the next batch. An error of the output is
// not returned here (the line is already accepted); Flush and Close return it.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		w.outMu.Lock()
		defer w.outMu.Unlock()
		return w.out.Write(p)
	}
	w.buf = append(w.buf, p...)
	n := len(w.buf)
	w.mu.Unlock()
	switch {
	case n >= blockAt:
		w.Flush() //nolint:errcheck // reported by the next Flush or Close
	case n >= flushAt:
		select {
		case w.kick <- struct{}{}:
		default:
		}
	}
	return len(p), nil
}

// Flush writes what has gathered, and returns the output's error if it failed.
func (w *Writer) Flush() error {
	w.outMu.Lock()
	defer w.outMu.Unlock()
	return w.flushLocked()
}

func (w *Writer) flushLocked() error {
	w.mu.Lock()
	b := w.buf
	w.buf = w.spare[:0]
	w.mu.Unlock()
	if len(b) == 0 {
		w.spare = b
		return nil
	}
	_, err := w.out.Write(b)
	if cap(b) <= blockAt { // a burst's large buffer is let go
		w.spare = b[:0]
	} else {
		w.spare = nil
	}
	return err
}

func (w *Writer) run() {
	defer close(w.done)
	t := time.NewTicker(Every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-w.kick:
		case <-w.stop:
			return
		}
		w.Flush() //nolint:errcheck // nothing to tell: the output is the log itself
	}
}

// Close stops the background writes and writes what is left; lines written
// after it go straight to the output.
func (w *Writer) Close() error {
	w.closeOnce.Do(func() { close(w.stop) })
	<-w.done
	w.outMu.Lock() // before the lines that go straight out
	defer w.outMu.Unlock()
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	return w.flushLocked()
}
