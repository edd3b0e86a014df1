//go:build !unix

package advisor

import "os"

// openNonblocking has no O_NOFOLLOW here: it checks the path with Lstat
// first, which leaves a window a unix build does not have.
func openNonblocking(path string, follow bool) (*os.File, error) {
	if !follow {
		if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return nil, openError(path, err, true)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, openError(path, err, false)
	}
	return f, nil
}
