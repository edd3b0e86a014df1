//go:build !unix

package ops

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// readFile reads the file name into buf, growing it as needed, and returns
// its contents with the buffer to reuse. It returns nil data and no reason
// for what has no text of its own here (a symbolic link, a directory such as
// a submodule, a file deleted since it was listed), and a reason for a file
// it will not or cannot read.
func readFile(name string, buf []byte, limit int64) (data, newBuf []byte, why string) {
	if st, err := os.Lstat(name); err == nil && !st.Mode().IsRegular() {
		return nil, buf, ""
	}
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, buf, ""
	}
	if err != nil {
		return nil, buf, "unreadable: " + err.Error()
	}
	defer f.Close()
	st, err := f.Stat()
	switch {
	case err != nil:
		return nil, buf, "unreadable: " + err.Error()
	case !st.Mode().IsRegular():
		return nil, buf, ""
	case st.Size() > limit:
		return nil, buf, fmt.Sprintf("larger than %d bytes", limit)
	}
	size := int(st.Size())
	if cap(buf) < size {
		buf = make([]byte, size, max(size, 64<<10))
	}
	buf = buf[:size]
	n, err := io.ReadFull(f, buf) // a file that shrank is read as it now is
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, buf, "unreadable: " + err.Error()
	}
	return buf[:n], buf, ""
}
