package harness

import (
	"os"
	"path/filepath"
	"strings"
)

// FsckConfig returns git options for a git fsck of the repository at dir
// (its top directory, or a bare repository) that leave out fsck's checks of
// commit-graph and multi-pack-index files when no object directory of the
// repository holds one: fsck starts "git commit-graph verify" and "git
// multi-pack-index verify" once per object directory (its own and every
// alternate), and with no such file they check nothing. Where one exists,
// or the object directories cannot be told from the files alone, it
// returns nil and fsck checks everything.
func FsckConfig(dir string) []string {
	objects := filepath.Join(dir, ".git", "objects")
	if fi, err := os.Stat(filepath.Join(dir, ".git")); err != nil || !fi.IsDir() {
		// Not a repository's top with a .git directory: a bare one, or
		// nothing this can tell.
		if _, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil {
			return nil
		}
		objects = filepath.Join(dir, "objects")
	}
	if !graphFree(objects, 0) {
		return nil
	}
	return []string{"-c", "core.commitGraph=false", "-c", "core.multiPackIndex=false"}
}

// graphFree reports whether the object directory and those its alternates
// name (to git's own depth of five) hold no commit-graph and no
// multi-pack-index.
func graphFree(objects string, depth int) bool {
	if depth > 5 {
		return false
	}
	if fi, err := os.Stat(objects); err != nil || !fi.IsDir() {
		return false
	}
	for _, p := range []string{"info/commit-graph", "info/commit-graphs", "pack/multi-pack-index"} {
		if _, err := os.Lstat(filepath.Join(objects, filepath.FromSlash(p))); err == nil {
			return false
		}
	}
	data, err := os.ReadFile(filepath.Join(objects, "info", "alternates"))
	if os.IsNotExist(err) {
		return true
	}
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, `"`) {
			return false // a quoted path: leave it to git
		}
		if !filepath.IsAbs(line) {
			line = filepath.Join(objects, line)
		}
		if !graphFree(line, depth+1) {
			return false
		}
	}
	return true
}
