//go:build linux

package disktest

import (
	"os"
	"syscall"
	"testing"
)

// LimitFileSize limits the size of the files the process writes to n
// bytes (RLIMIT_FSIZE's soft limit): a write past it fails (EFBIG), as on
// a full disk. It returns a function that lifts the limit. The test must
// run in a process of its own (Options.Own). The process ignores SIGXFSZ
// (the Go runtime does), so a write past the limit fails rather than kill
// it.
func LimitFileSize(t *testing.T, n uint64) (lift func()) {
	t.Helper()
	if os.Getenv(childEnv) == "" {
		t.Fatal("disktest: LimitFileSize outside a subprocess of its own")
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skipf("cannot read RLIMIT_FSIZE: %v", err)
	}
	lim := old
	lim.Cur = n
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Skipf("cannot set RLIMIT_FSIZE: %v", err)
	}
	return func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
			t.Fatalf("lifting RLIMIT_FSIZE: %v", err)
		}
	}
}
