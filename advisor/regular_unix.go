//go:build unix

package advisor

import (
	"errors"
	"os"
	"syscall"
)

func openNonblocking(path string, follow bool) (*os.File, error) {
	flags := os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_CLOEXEC
	if !follow {
		flags |= syscall.O_NOFOLLOW
	}
	f, err := os.OpenFile(path, flags, 0)
	if err != nil {
		// O_NOFOLLOW on a link fails with ELOOP (EMLINK on some BSDs).
		link := !follow && (errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK))
		return nil, openError(path, err, link)
	}
	return f, nil
}
