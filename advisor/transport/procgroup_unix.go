//go:build unix

package transport

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the command as the leader of a new process group, so that
// everything it spawns can be signalled at once.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends sig to the command's whole process group. Errors (the
// group is already gone) are of no interest.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, sig)
	}
}
