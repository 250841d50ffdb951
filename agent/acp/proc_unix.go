//go:build unix

package acp

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the worker in a process group of its own, so that killing
// it also kills what it spawned (an npx wrapper's node, say).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the worker's process group. The caller makes sure the
// worker has not been reaped yet, so that the group id is still its own.
func killGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}
