//go:build unix

package neutrality

import (
	"errors"
	"os"
	"syscall"
)

// openNoFollow opens a file for reading, refusing a symbolic link: a link's
// target is either checked under its own path or lies outside the tree.
func openNoFollow(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
}

func isSymlinkErr(err error) bool { return errors.Is(err, syscall.ELOOP) }
