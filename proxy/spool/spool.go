// Package spool keeps, in order, items that could not be written where they
// belong yet: append-only segment files of JSON lines in one directory,
// fsynced in batches, read back oldest first and removed once stored
// elsewhere. It survives the process: a spool opened on a directory holds what
// an earlier process left there.
//
// A Spool is not safe for concurrent use: one goroutine owns it.
package spool

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// firstNumber numbers the first segment of an empty spool. Segments appended
// later count up from the newest, segments put in front count down from the
// oldest: there is room for 2^40 of those.
const firstNumber = 1 << 40

const suffix = ".jsonl"

// Spool is a directory of segments of items of type T.
type Spool[T any] struct {
	dir          string
	segmentItems int
	segments     []segmentInfo // oldest first; the last may be open
	items        int           // in all segments

	lock  *os.File // held while the spool is open
	open  *os.File // the newest segment while it is appended to
	buf   *bufio.Writer
	dirty bool // appended since the last Sync
	fresh bool // created since the last Sync: the directory needs one too
}

type segmentInfo struct {
	number int64
	items  int
}

// Segment is the items of one segment file.
type Segment[T any] struct {
	Number int64
	Items  []T
	// Skipped counts lines that could not be read: a last line cut short by
	// a crash, or damage.
	Skipped int
}

// Open opens the spool in dir, creating the directory, and counts what it
// holds. A new segment starts after segmentItems items.
func Open[T any](dir string, segmentItems int) (*Spool[T], error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	lk, err := lock(dir)
	if err != nil {
		return nil, err
	}
	s := &Spool[T]{dir: dir, segmentItems: max(segmentItems, 1), lock: lk}
	if err := s.list(); err != nil {
		s.Close() //nolint:errcheck // nothing is open but the lock
		return nil, err
	}
	return s, nil
}

// list finds and counts the segments in the directory.
func (s *Spool[T]) list() error {
	names, err := os.ReadDir(s.dir)
	if err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	for _, e := range names {
		n, ok := segmentNumber(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		items, err := countLines(filepath.Join(s.dir, e.Name()))
		if err != nil {
			return err
		}
		s.segments = append(s.segments, segmentInfo{n, items})
		s.items += items
	}
	slices.SortFunc(s.segments, func(a, b segmentInfo) int { return compareInt(a.number, b.number) })
	return nil
}

func compareInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func segmentNumber(name string) (int64, bool) {
	base, ok := strings.CutSuffix(name, suffix)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(base, 10, 64)
	return n, err == nil && n > 0
}

func (s *Spool[T]) path(n int64) string {
	return filepath.Join(s.dir, fmt.Sprintf("%020d%s", n, suffix))
}

// countLines counts the complete and cut lines of a file.
func countLines(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("spool: %w", err)
	}
	n := bytes.Count(b, []byte{'\n'})
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n, nil
}

// Len is how many items the spool holds.
func (s *Spool[T]) Len() int { return s.items }

// Segments is how many segment files it has.
func (s *Spool[T]) Segments() int { return len(s.segments) }

// Append adds v after everything else. It is written to the file at once
// but on disk for sure only after the next Sync; a segment that is full is
// synced and closed, and a new one started.
func (s *Spool[T]) Append(v T) error {
	if s.open == nil {
		if err := s.startSegment(); err != nil {
			return err
		}
	}
	line, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("spool: encode: %w", err)
	}
	if _, err := s.buf.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("spool: write: %w", err)
	}
	s.dirty = true
	last := &s.segments[len(s.segments)-1]
	last.items++
	s.items++
	if last.items >= s.segmentItems {
		return s.seal()
	}
	return nil
}

// startSegment opens a new newest segment for appending.
func (s *Spool[T]) startSegment() error {
	n := int64(firstNumber)
	if len(s.segments) > 0 {
		n = s.segments[len(s.segments)-1].number + 1
	}
	f, err := os.OpenFile(s.path(n), os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	s.open, s.buf, s.fresh = f, bufio.NewWriterSize(f, 64<<10), true
	s.segments = append(s.segments, segmentInfo{number: n})
	return nil
}

// Sync puts what was appended on disk.
func (s *Spool[T]) Sync() error {
	if s.open != nil && s.dirty {
		if err := s.buf.Flush(); err != nil {
			return fmt.Errorf("spool: write: %w", err)
		}
		if err := s.open.Sync(); err != nil {
			return fmt.Errorf("spool: sync: %w", err)
		}
		s.dirty = false
	}
	if s.fresh {
		if err := syncDir(s.dir); err != nil {
			return err
		}
		s.fresh = false
	}
	return nil
}

// seal syncs and closes the open segment: the next Append starts another.
func (s *Spool[T]) seal() error {
	if s.open == nil {
		return nil
	}
	err := s.Sync()
	if cerr := s.open.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("spool: close: %w", cerr)
	}
	s.open, s.buf = nil, nil
	return err
}

// Prepend writes vs, in order, before everything the spool holds, in
// segments of their own, and syncs them.
func (s *Spool[T]) Prepend(vs []T) error {
	if len(vs) == 0 {
		return nil
	}
	first := int64(firstNumber)
	if len(s.segments) > 0 {
		first = s.segments[0].number
	}
	chunks := slices.Collect(slices.Chunk(vs, s.segmentItems))
	front := make([]segmentInfo, len(chunks))
	for i, chunk := range chunks {
		front[i] = segmentInfo{number: first - int64(len(chunks)-i), items: len(chunk)}
		if err := writeSegment(s.path(front[i].number), chunk); err != nil {
			for _, done := range front[:i] {
				os.Remove(s.path(done.number)) //nolint:errcheck // the caller is told the whole Prepend failed
			}
			return err
		}
	}
	if err := syncDir(s.dir); err != nil {
		return err
	}
	s.segments = append(front, s.segments...)
	s.items += len(vs)
	return nil
}

// writeSegment writes a whole segment file and syncs it.
func writeSegment[T any](path string, items []T) error {
	var b bytes.Buffer
	for _, v := range items {
		line, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("spool: encode: %w", err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	_, err = f.Write(b.Bytes())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("spool: write %s: %w", filepath.Base(path), err)
	}
	return nil
}

// Oldest reads the oldest segment; ok is false when the spool is empty. An
// open segment that is the oldest is sealed first, so that what is appended
// next goes to a new one.
func (s *Spool[T]) Oldest() (seg Segment[T], ok bool, err error) {
	if len(s.segments) == 0 {
		return seg, false, nil
	}
	if len(s.segments) == 1 && s.open != nil {
		if err := s.seal(); err != nil {
			return seg, false, err
		}
	}
	seg.Number = s.segments[0].number
	b, err := os.ReadFile(s.path(seg.Number))
	if err != nil {
		return seg, false, fmt.Errorf("spool: %w", err)
	}
	for line := range bytes.Lines(b) {
		var v T
		if json.Unmarshal(line, &v) != nil {
			seg.Skipped++
			continue
		}
		seg.Items = append(seg.Items, v)
	}
	return seg, true, nil
}

// Remove deletes the oldest segment, whose items are stored elsewhere now.
func (s *Spool[T]) Remove(number int64) error {
	if len(s.segments) == 0 || s.segments[0].number != number {
		return fmt.Errorf("spool: segment %d is not the oldest", number)
	}
	if len(s.segments) == 1 && s.open != nil {
		return fmt.Errorf("spool: segment %d is still open", number)
	}
	if err := os.Remove(s.path(number)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("spool: %w", err)
	}
	s.items -= s.segments[0].items
	s.segments = s.segments[1:]
	return nil
}

// Close syncs and closes the open segment and lets another process open the
// spool.
func (s *Spool[T]) Close() error {
	err := s.seal()
	if s.lock != nil {
		s.lock.Close() //nolint:errcheck // closing the file ends the lock
		s.lock = nil
	}
	return err
}

// syncDir makes a directory's new and removed entries durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("spool: sync %s: %w", dir, err)
	}
	return nil
}
