package sqlite

import (
	"errors"
	"testing"

	"github.com/triage-go/triage/store"
)

// TestReadyWantsFreeSpace: Ready reports disk_full while the file system
// holding the database has less than MinFree bytes available, though a
// small write (its probe) would still commit.
func TestReadyWantsFreeSpace(t *testing.T) {
	s, path := openTest(t)
	if n, ok := available(path); ok && n == 0 {
		t.Errorf("available(%s) = 0", path)
	}
	defer func(f func(string) (uint64, bool)) { freeSpace = f }(freeSpace)
	freeSpace = func(string) (uint64, bool) { return MinFree - 1, true }
	var nr *store.NotReadyError
	if err := s.Ready(t.Context()); !errors.As(err, &nr) || nr.Reason != store.DiskFull {
		t.Fatalf("Ready with MinFree-1 bytes available: %v, want disk_full", err)
	}
	freeSpace = func(string) (uint64, bool) { return MinFree, true }
	if err := s.Ready(t.Context()); err != nil {
		t.Fatalf("Ready with MinFree bytes available: %v", err)
	}
}
