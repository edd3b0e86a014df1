//go:build unix

package ops

import (
	"fmt"
	"syscall"
)

// readFile reads the file name into buf, growing it as needed, and returns
// its contents with the buffer to reuse. It returns nil data and no reason
// for what has no text of its own here (a symbolic link, which is refused
// rather than followed, a directory such as a submodule, a file deleted
// since it was listed), and a reason for a file it will not or cannot read.
//
// It calls the system directly: for a small file, the poller registration
// and descriptor checks of os.Open cost more than the read itself.
func readFile(name string, buf []byte, limit int64) (data, newBuf []byte, why string) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	switch err {
	case nil:
	case syscall.ENOENT, syscall.ENOTDIR, syscall.ELOOP, syscall.EMLINK: // EMLINK: a link, on BSD
		return nil, buf, ""
	default:
		return nil, buf, "unreadable: " + err.Error()
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, buf, "unreadable: " + err.Error()
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, buf, ""
	}
	if st.Size > limit {
		return nil, buf, fmt.Sprintf("larger than %d bytes", limit)
	}
	size := int(st.Size)
	if cap(buf) < size {
		buf = make([]byte, size, max(size, 64<<10))
	}
	buf = buf[:size]
	n := 0
	for n < size { // a file that shrank since fstat is read as it now is
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, buf, "unreadable: " + err.Error()
		}
		if m == 0 {
			break
		}
		n += m
	}
	return buf[:n], buf, ""
}
