//go:build unix

package gitstore

import (
	"io/fs"
	"strconv"
	"syscall"
)

// fileIdentity is the device and inode of fi.
func fileIdentity(fi fs.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return strconv.FormatUint(uint64(st.Dev), 10) + ":" + strconv.FormatUint(uint64(st.Ino), 10)
	}
	return "-"
}
