//go:build unix

package git

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own, which a signal sent
// to this process's group (a terminal's Ctrl-C, kill -- -PGID) does not
// reach.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
