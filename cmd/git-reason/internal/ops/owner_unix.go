//go:build unix

package ops

import (
	"os"
	"syscall"
)

// ownerOf is the uid owning path itself (a link is not followed, as git
// uses lstat).
func ownerOf(path string) (int, bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return 0, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
