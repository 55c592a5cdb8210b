package proxy_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gateway/models/dbtest"
	"gateway/proxy"
)

// A spool left in the data dir by an earlier run that cannot be opened
// fails the first Reload instead of being ignored.
func TestUnusableSpoolFailsTheFirstReload(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s := proxy.New(dbtest.MustOpenStore(t, "", t.TempDir()), proxy.Options{SpoolDir: file})
	defer s.Close(context.Background()) //nolint:errcheck // nothing was logged
	if err := s.Reload(context.Background()); err == nil || !strings.Contains(err.Error(), "spool") {
		t.Errorf("Reload: %v, want an error about the spool", err)
	}
}
