// Package atomicfile replaces a file whole or not at all: the one way this
// program writes a file that someone may read while it is written (a task
// cache, the remembered verified state, a hook, the trust store).
//
// The data goes to a temporary file beside the target, which is renamed
// over it, so a reader sees the old file or the new one, never a part. A
// failure leaves the old file and no temporary one.
package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
)

// Write replaces path with data. perm is the new file's mode; sync flushes
// the data to disk before the rename, for a file whose loss in a crash costs
// more than the flush (the trust store). The directory must exist.
func Write(path string, data []byte, perm os.FileMode, sync bool) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	var serr error
	if sync && werr == nil {
		serr = tmp.Sync()
	}
	cerr := tmp.Close()
	var merr error
	if perm != 0o600 { // os.CreateTemp's own mode: no chmod on the store's hot path
		merr = os.Chmod(tmp.Name(), perm)
	}
	if err := errors.Join(werr, serr, cerr, merr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
