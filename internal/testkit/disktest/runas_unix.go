//go:build unix

package disktest

import (
	"os/exec"
	"syscall"
)

// runAs makes cmd run as user uid (and group uid).
func runAs(cmd *exec.Cmd, uid uint32) bool {
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
	return true
}
