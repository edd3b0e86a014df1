//go:build unix

package guard

import "syscall"

const noFollow = syscall.O_NOFOLLOW
