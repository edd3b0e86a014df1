package gitstore

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"git-reason/gitstore/git"
)

// RefsStamp describes the refs under prefix (a namespace ending in "/")
// as the files backend keeps them: packed-refs, and the modification time
// of each directory of the namespace (a ref written, renamed into place
// or deleted changes its directory's; a new directory changes its
// parent's). The files old names are looked at first: when none changed,
// that is the stamp, and no directory is listed. Otherwise the namespace
// is walked (its directories, never its refs' files). While the stamp is
// the one taken before, no ref under prefix moved, whatever their number:
// a command compares a few stats instead of listing the refs.
func (r *Repo) RefsStamp(prefix string, old []byte) (stamp []byte, settled bool) {
	if len(old) > 0 {
		var names []string
		for _, l := range strings.Split(strings.TrimSuffix(string(old), "\n"), "\n") {
			if f := strings.SplitN(l, " ", 4); len(f) == 4 {
				names = append(names, f[3])
			}
		}
		// A stamp naming another repository's files (this one was copied
		// or moved, the stamp with it) says nothing of this one's.
		for _, n := range names {
			if !strings.HasPrefix(n, r.CommonDir+string(filepath.Separator)) {
				names = nil
				break
			}
		}
		if s, ok := stampOf(names); ok && len(names) > 0 && bytes.Equal(s, old) {
			return s, true
		}
	}
	root := filepath.Join(r.CommonDir, filepath.FromSlash(strings.TrimSuffix(prefix, "/")))
	names := []string{filepath.Join(r.CommonDir, "packed-refs"), root}
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && path != root {
			names = append(names, path)
		}
		return nil
	})
	return stampOf(names)
}

// stampOf is one line per file: its modification time (0 when missing),
// size, inode and name. It is not settled when a change is too recent to
// trust (git.Recent): a change within the same clock tick as a later one
// would leave the time unchanged.
func stampOf(names []string) (stamp []byte, settled bool) {
	now := time.Now()
	var b bytes.Buffer
	settled = true
	for _, name := range names {
		var mod, size int64
		var ino uint64
		if fi, err := os.Stat(name); err == nil {
			mod = fi.ModTime().UnixNano()
			if git.Recent(fi.ModTime(), now) {
				settled = false
			}
			size = fi.Size()
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				ino = uint64(st.Ino)
			}
		}
		fmt.Fprintf(&b, "%d %d %d %s\n", mod, size, ino, name)
	}
	return b.Bytes(), settled
}
