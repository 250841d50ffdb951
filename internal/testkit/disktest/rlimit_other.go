//go:build !linux

package disktest

import "testing"

// LimitFileSize skips the test: the file size limit (RLIMIT_FSIZE) is set
// on Linux only.
func LimitFileSize(t *testing.T, n uint64) (lift func()) {
	t.Helper()
	t.Skip("the file size limit (RLIMIT_FSIZE) is set on Linux only")
	return func() {}
}
