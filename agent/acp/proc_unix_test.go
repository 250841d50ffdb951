//go:build unix

package acp_test

import (
	"errors"
	"syscall"
)

// processExists reports whether a process (a zombie included) has the id.
func processExists(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
