//go:build !unix

package acp

import "os/exec"

// ownGroup does nothing where process groups are not available.
func ownGroup(*exec.Cmd) {}

// killGroup does nothing where process groups are not available; the worker
// itself is killed by its os.Process.
func killGroup(int) {}
