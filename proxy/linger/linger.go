// Package linger reads out what is left of a request body after its handler
// refused the request, before the connection closes, as nginx's
// lingering_close does.
//
// A server that closes a connection with unread bytes in its receive buffer
// makes the kernel answer with a reset, and a client still writing its body
// then loses the answer: Node's http module reports ECONNRESET instead of the
// 413. Go's server reads at most 256 KiB of an unread body before it gives up
// and closes, so any refusal of a larger body (too large, a bad key, a wrong
// path) needs the rest read out first.
package linger

import (
	"errors"
	"io"
	"net/http"
	"time"
)

// The bounds of reading out a refused body, nginx's lingering_time and
// lingering_timeout: a client that takes longer in all, or pauses longer
// between two reads, is cut off.
const (
	MaxTime = 30 * time.Second
	MaxIdle = 5 * time.Second
)

// aLongTimeAgo is a read deadline that has passed: every read fails at once.
var aLongTimeAgo = time.Unix(1, 0)

// Handler wraps h so that when h returns with its request's body not read
// to the end (a refusal before or while reading it), the answer goes out
// and then at most maxBytes more of the body are read and discarded, within
// MaxTime and MaxIdle. Past a bound the connection is closed.
//
// A request whose body h read to the end, every request that was served,
// pays one zero-length read and allocates nothing.
func Handler(h http.Handler, maxBytes int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// HTTP/2 ends a stream without touching the connection.
		if r.ContentLength == 0 || r.ProtoMajor != 1 {
			h.ServeHTTP(w, r)
			return
		}
		body := r.Body // the server's own, whatever h puts in its place
		h.ServeHTTP(w, r)
		readOut(w, body, r.ContentLength < 0, maxBytes)
	})
}

// Refusing bounds in time the reading that a refusal sent from inside a
// handler makes the server do: sending the answer, it reads up to 256 KiB of
// an unread body itself, and without a ReadTimeout (the proxy has none: a
// stream's body may come slowly) it would wait for a stalled client for ever.
// Handlers that flush a refusal call it first.
func Refusing(w http.ResponseWriter) {
	http.NewResponseController(w).SetReadDeadline(time.Now().Add(MaxIdle)) //nolint:errcheck // unsupported: no bound
}

// readOut reads out the rest of body, if any.
func readOut(w http.ResponseWriter, body io.Reader, chunked bool, maxBytes int64) {
	if chunked {
		// Even a zero-length read of a chunked body may wait for a chunk header.
		Refusing(w)
	}
	_, err := body.Read(nil)
	if chunked {
		http.NewResponseController(w).SetReadDeadline(time.Time{}) //nolint:errcheck // unsupported: none was set
	}
	if err != nil {
		// Read to the end (every request served), closed, or broken: nothing to read out.
		return
	}
	discard(w, body, maxBytes)
}

// discard sends the answer, then reads and discards the rest of body. The
// answer goes first, so that a client reading while it writes has it at
// once; one waiting for a 100 Continue gets it instead (with Connection:
// close, as the server never said continue) and sends nothing.
func discard(w http.ResponseWriter, body io.Reader, maxBytes int64) {
	rc := http.NewResponseController(w)
	end := time.Now().Add(MaxTime)
	Refusing(w)
	rc.Flush() //nolint:errcheck // a client gone fails the reads below too
	_, err := io.CopyN(io.Discard, &pacedReader{body: body, rc: rc, end: end}, maxBytes+1)
	// ErrBodyReadAfterClose: sending the answer's header, the server read
	// out and closed a body of less than 256 KiB itself. Its read of the
	// next request is then pending on the connection, and a deadline in
	// the past would fail that read: the server takes such a failure for
	// the client gone and cancels the context of every later request on
	// the connection, which it keeps serving (a refused request's
	// keep-alive connection answered 500 "context canceled" to every
	// write after it).
	if errors.Is(err, io.EOF) || errors.Is(err, http.ErrBodyReadAfterClose) {
		rc.SetReadDeadline(time.Time{}) //nolint:errcheck // unsupported: none was set
		return
	}
	// Past a bound, or broken: the server must read nothing more, and close.
	rc.SetReadDeadline(aLongTimeAgo) //nolint:errcheck // unsupported: bounded by bytes alone
}

// pacedReader reads body with a deadline of MaxIdle from each read, and
// never past end.
type pacedReader struct {
	body io.Reader
	rc   *http.ResponseController
	end  time.Time
}

func (p *pacedReader) Read(b []byte) (int, error) {
	deadline := time.Now().Add(MaxIdle)
	if deadline.After(p.end) {
		deadline = p.end
	}
	p.rc.SetReadDeadline(deadline) //nolint:errcheck // unsupported: bounded by bytes alone
	return p.body.Read(b)
}
