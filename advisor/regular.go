package advisor

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrNotRegular is returned for a path that names a symbolic link, a FIFO,
// a device, a socket or a directory where a regular file is required. A
// repository's .reason/ files must be regular files, as git requires of
// .gitattributes: a symbolic link would make the tool read (and perhaps
// quote) a file outside the repository, a FIFO would block it forever.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is returned for a file larger than the limit it is read with.
var ErrTooLarge = errors.New("file too large")

// MaxDeclarationBytes caps a declaration overlay.
const MaxDeclarationBytes = 1 << 20

// ReadRegular reads the regular file at path, at most limit bytes. It opens
// the file without blocking (a FIFO would otherwise block the open), and
// checks what it opened with fstat, so that what is read is what was
// checked. With follow false a symbolic link as the last component is
// refused rather than followed. A missing file wraps fs.ErrNotExist; a
// file that is not regular wraps ErrNotRegular; one past the limit wraps
// ErrTooLarge. Error messages name the path, never the content.
func ReadRegular(path string, limit int64, follow bool) ([]byte, error) {
	f, err := openNonblocking(path, follow)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%s is %d bytes, more than %d: %w", path, fi.Size(), limit, ErrTooLarge)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is more than %d bytes: %w", path, limit, ErrTooLarge)
	}
	return data, nil
}

// openError maps the open errors of a path that is a symbolic
// link (when not followed) to ErrNotRegular, and keeps fs.ErrNotExist.
func openError(path string, err error, isLink bool) error {
	if isLink {
		return fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	return err // *fs.PathError: errors.Is(err, fs.ErrNotExist) holds for a missing file
}

// readRepositoryOverlay reads a repository overlay: a regular file, not a
// symbolic link, in a .reason directory that is not one either. A missing
// file is nil data and no error.
func readRepositoryOverlay(path string) ([]byte, error) {
	dir := filepath.Dir(path)
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s: %w", dir, ErrNotRegular)
	}
	data, err := ReadRegular(path, MaxDeclarationBytes, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// overlayError turns a failure to read an overlay into the error Load
// returns: nil for a missing file, a *ParseError (bad input) for one that
// is not a regular file or is too large, naming the path and never the
// content.
func overlayError(path string, err error) error {
	switch {
	case err == nil, errors.Is(err, fs.ErrNotExist):
		return nil
	case errors.Is(err, ErrNotRegular):
		return &ParseError{File: path, Msg: "not a regular file (a symbolic link, FIFO, device or directory is refused): replace it with the file itself"}
	case errors.Is(err, ErrTooLarge):
		return &ParseError{File: path, Msg: fmt.Sprintf("larger than %d bytes", MaxDeclarationBytes)}
	}
	return fmt.Errorf("read overlay: %w", err)
}
