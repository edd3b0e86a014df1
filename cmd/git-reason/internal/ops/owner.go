package ops

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"git-reason/gitstore"
)

// checkOwner refuses a repository owned by another user, as git's own
// safe.directory rule does (since 2.35.2): its configuration, hooks and
// .reason files are someone else's, and the tool must neither act on them
// nor write into it. The work tree's top and the git directory must be
// owned by the user running git reason (for root, by SUDO_UID when set,
// as git reads it), unless safe.directory names the repository or is "*".
// safeDirs gives the values git honours, from the system and global files
// and the command line only, never the repository's own; it is asked only
// for a repository owned by someone else. Like git, a repository named by
// GIT_DIR is not checked: the caller chose it.
func checkOwner(repo *gitstore.Repo, safeDirs func() ([]string, error)) error {
	if os.Getenv("GIT_DIR") != "" {
		return nil
	}
	uid, ok := currentUID()
	if !ok {
		return nil // no owners to compare on this system
	}
	var foreign string
	var owner int
	for _, p := range []string{repo.WorkTree, repo.GitDir} {
		if p == "" {
			continue
		}
		if o, ok := ownerOf(p); ok && o != uid {
			foreign, owner = p, o
			break
		}
	}
	if foreign == "" {
		return nil
	}
	top := repo.WorkTree
	if top == "" {
		top = repo.GitDir
	}
	dirs, err := safeDirs()
	if err != nil {
		return err
	}
	if safeDirectory(dirs, top) {
		return nil
	}
	return Refused("%s is owned by someone else (uid %d), and git refuses it too: if you trust it, run 'git config --global --add safe.directory %s'",
		foreign, owner, top)
}

// currentUID is the user git compares owners with: the effective uid, or,
// for root, SUDO_UID when it is set (git does so to let 'sudo git' work in
// the invoking user's repository).
func currentUID() (int, bool) {
	uid := os.Geteuid()
	if uid < 0 {
		return 0, false
	}
	if uid == 0 {
		if s := os.Getenv("SUDO_UID"); s != "" {
			if n, err := strconv.Atoi(s); err == nil {
				return n, true
			}
		}
	}
	return uid, true
}

// safeDirectory reports whether a safe.directory value accepts dir: "*",
// or the same path (a leading "~/" is the home directory), compared as
// written and with symbolic links resolved.
func safeDirectory(values []string, dir string) bool {
	want := map[string]bool{filepath.Clean(dir): true}
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		want[r] = true
	}
	for _, v := range values {
		if v == "*" {
			return true
		}
		if rest, ok := strings.CutPrefix(v, "~/"); ok {
			if home, err := os.UserHomeDir(); err == nil {
				v = filepath.Join(home, rest)
			}
		}
		if v == "" || !filepath.IsAbs(v) {
			continue
		}
		if want[filepath.Clean(v)] {
			return true
		}
		if r, err := filepath.EvalSymlinks(v); err == nil && want[r] {
			return true
		}
	}
	return false
}
