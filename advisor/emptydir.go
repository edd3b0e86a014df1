package advisor

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
)

// emptyDir makes the empty directory an exec advisor declared with
// workdir: empty runs in (or that answers a peer): under the temporary
// directory, or, when that lies in a git repository (its work tree or its
// git directory: TMPDIR pointed into the repository consulted), under the
// system's own, never in one. An agent CLI reads the project settings it
// finds where it starts or in any parent, so a directory inside the
// repository would let it read the repository's, as the work tree does.
// The path is the directory's own, symbolic links resolved, for the
// command starts there whatever a link says.
func emptyDir() (string, error) {
	bases := []string{os.TempDir()}
	if runtime.GOOS != "windows" {
		bases = append(bases, "/tmp", "/var/tmp")
	}
	for _, base := range bases {
		real, err := filepath.EvalSymlinks(base)
		if err != nil || !filepath.IsAbs(real) || InRepository(real) {
			continue
		}
		return os.MkdirTemp(real, "git-reason-advisor-")
	}
	return "", errors.New("every temporary directory is inside a git repository: set TMPDIR to one outside it")
}

// InRepository reports whether dir or a directory above it is a git work
// tree (it holds .git) or a git directory (it holds HEAD, objects and
// refs): read from the file system alone, with no git process.
func InRepository(dir string) bool {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil || isGitDir(dir) {
			return true
		}
		up := filepath.Dir(dir)
		if up == dir {
			return false
		}
		dir = up
	}
}

// isGitDir reports whether dir looks like a git directory to git.
func isGitDir(dir string) bool {
	for _, name := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
			return false
		}
	}
	return true
}
