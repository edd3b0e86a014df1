package git

import (
	"os"
	"syscall"
)

// growPipe asks for a 1 MiB pipe buffer (Linux's default is 64 KiB), so
// that a history's trees cross from git in fewer, larger reads. A refusal
// changes nothing but speed.
func growPipe(f *os.File) {
	const fSetPipeSz = 1031 // F_SETPIPE_SZ
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) {
			_, _, _ = syscall.Syscall(syscall.SYS_FCNTL, fd, fSetPipeSz, 1<<20)
		})
	}
}
