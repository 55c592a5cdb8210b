package spool_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gateway/proxy/spool"
)

type item struct {
	N int    `json:"n"`
	S string `json:"s,omitempty"`
}

func mustOpen(t *testing.T, dir string) *spool.Spool[item] {
	t.Helper()
	s, err := spool.Open[item](dir, 3)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// drain reads and removes every segment, oldest first.
func drain(t *testing.T, s *spool.Spool[item]) []int {
	t.Helper()
	var got []int
	for {
		seg, ok, err := s.Oldest()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return got
		}
		for _, it := range seg.Items {
			got = append(got, it.N)
		}
		if err := s.Remove(seg.Number); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSpoolKeepsOrderAcrossReopenAndPrepend(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	for n := 10; n < 17; n++ {
		if err := s.Append(item{N: n}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Prepend([]item{{N: 5}, {N: 6}, {N: 7}, {N: 8}}); err != nil {
		t.Fatal(err)
	}
	if s.Len() != 11 {
		t.Errorf("Len %d, want 11", s.Len())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = mustOpen(t, dir) // a new process
	if s.Len() != 11 || s.Segments() != 5 {
		t.Errorf("reopened: %d items in %d segments, want 11 in 5", s.Len(), s.Segments())
	}
	if err := s.Prepend([]item{{N: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(item{N: 20}); err != nil {
		t.Fatal(err)
	}
	got := drain(t, s)
	want := []int{1, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15, 16, 20}
	if !slices.Equal(got, want) {
		t.Errorf("read back %v, want %v", got, want)
	}
	if s.Len() != 0 {
		t.Errorf("Len %d after draining", s.Len())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.jsonl")); len(left) != 0 {
		t.Errorf("files left: %v", left)
	}
}

// TestSpoolAppendsAfterReadingTheOpenSegment: reading the open segment
// seals it, so what comes next is in a segment of its own and nothing is
// removed that was not read.
func TestSpoolAppendsAfterReadingTheOpenSegment(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	s.Append(item{N: 1}) //nolint:errcheck // checked by what is read back
	seg, ok, err := s.Oldest()
	if err != nil || !ok || len(seg.Items) != 1 {
		t.Fatalf("oldest: %+v %v %v", seg, ok, err)
	}
	if err := s.Append(item{N: 2}); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(seg.Number); err != nil {
		t.Fatal(err)
	}
	if got := drain(t, s); !slices.Equal(got, []int{2}) {
		t.Errorf("after the first segment: %v, want [2]", got)
	}
}

// TestSpoolSkipsACutLine: a crash in the middle of a write leaves half a
// line; the rest of the segment is read.
func TestSpoolSkipsACutLine(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	s.Append(item{N: 1}) //nolint:errcheck // checked by what is read back
	s.Append(item{N: 2}) //nolint:errcheck // as above
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	f, err := os.OpenFile(files[0], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"n":3,"s":"cut sh`) //nolint:errcheck // a crash mid-write
	f.Close()
	s = mustOpen(t, dir)
	seg, ok, err := s.Oldest()
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if len(seg.Items) != 2 || seg.Skipped != 1 {
		t.Errorf("read %d items, skipped %d; want 2 and 1", len(seg.Items), seg.Skipped)
	}
}

// TestSpoolIsOneProcess: a second opening of the same directory (another
// gateway given the same data dir) is refused until the first closes.
func TestSpoolIsOneProcess(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	if _, err := spool.Open[item](dir, 3); err == nil {
		t.Fatal("a second Open of the same directory succeeded")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	mustOpen(t, dir).Close() //nolint:errcheck // opened again: the point
}
