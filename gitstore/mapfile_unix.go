//go:build unix

package gitstore

import (
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f, read-only, and returns them
// with the function that unmaps them: a lookup touches the few pages its
// binary search visits, not the whole file, as git maps packed-refs. git
// never rewrites packed-refs in place (it renames a new file over it), so
// the mapped bytes do not change. A file that cannot be mapped is read.
func mapFile(f *os.File, size int64) ([]byte, func(), error) {
	if size <= 0 || size != int64(int(size)) {
		data, err := readFile(f, size)
		return data, nil, err
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		data, err := readFile(f, size)
		return data, nil, err
	}
	return data, func() { syscall.Munmap(data) }, nil
}
