//go:build !unix

package transport

import (
	"os/exec"
	"syscall"
)

// ownGroup does nothing where process groups are not available.
func ownGroup(*exec.Cmd) {}

// signalGroup kills the command itself where process groups are not
// available; its children are not reached.
func signalGroup(cmd *exec.Cmd, _ syscall.Signal) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
