package gitstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Repo is a git repository located the way git locates it.
type Repo struct {
	GitDir    string // the per-worktree git dir (HEAD, index, config.worktree)
	CommonDir string // objects, refs, packed-refs, config (== GitDir except in linked worktrees)
	WorkTree  string // "" when bare
}

// ErrNotRepository is wrapped by Discover when no repository is found.
var ErrNotRepository = errors.New("not a git repository")

// Discover finds the repository for dir as git does: GIT_DIR (relative to
// dir), GIT_COMMON_DIR and GIT_WORK_TREE when set, otherwise the nearest
// ".git" (directory or "gitdir:" file) or bare repository at or above dir,
// stopping below any GIT_CEILING_DIRECTORIES entry. core.bare and
// core.worktree are honoured. Paths are absolute and clean; the error wraps
// ErrNotRepository when there is no repository.
func Discover(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("discover repository: %w", err)
	}
	if fi, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("discover repository: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("discover repository: %s is not a directory", abs)
	}
	// git starts from getcwd() after chdir(dir): the physical directory,
	// symbolic links resolved. Walking up the path as given (a shell's
	// $PWD through a link) could find another repository, and would
	// match includeIf "gitdir:" patterns git does not.
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return nil, fmt.Errorf("discover repository: %w", err)
	}
	if env := os.Getenv("GIT_DIR"); env != "" {
		gitdir := resolvePath(abs, env)
		if fi, err := os.Stat(gitdir); err == nil && fi.Mode().IsRegular() {
			if gitdir, err = readGitfile(gitdir); err != nil {
				return nil, err
			}
		}
		if !isGitDir(abs, gitdir) {
			return nil, fmt.Errorf("GIT_DIR=%s: %w", env, ErrNotRepository)
		}
		return finish(abs, gitdir, abs)
	}
	ceiling := ceilingFor(abs)
	for d := abs; ; {
		gitdir, err := dotGit(abs, d)
		if err != nil {
			return nil, err
		}
		if gitdir != "" {
			return finish(abs, gitdir, d)
		}
		if isGitDir(abs, d) {
			return finish(abs, d, "")
		}
		parent := filepath.Dir(d)
		if parent == d || len(parent) <= len(ceiling) {
			break
		}
		d = parent
	}
	return nil, fmt.Errorf("no repository at or above %s: %w", abs, ErrNotRepository)
}

// dotGit returns the git dir that d/.git names, "" when there is none.
func dotGit(cwd, d string) (string, error) {
	p := filepath.Join(d, ".git")
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return "", nil
	case fi.IsDir():
		if isGitDir(cwd, p) {
			return p, nil
		}
		return "", nil
	case fi.Mode().IsRegular():
		gitdir, err := readGitfile(p)
		if err != nil {
			return "", err
		}
		if !isGitDir(cwd, gitdir) {
			return "", fmt.Errorf("%s points to %s: %w", p, gitdir, ErrNotRepository)
		}
		return gitdir, nil
	}
	return "", nil
}

// readGitfile reads a "gitdir: PATH" file; a relative PATH is relative to
// the file's directory.
func readGitfile(p string) (string, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return "", fmt.Errorf("read gitfile: %w", err)
	}
	target, ok := strings.CutPrefix(string(data), "gitdir: ")
	target = strings.TrimRight(target, "\r\n")
	if !ok || target == "" {
		return "", fmt.Errorf("invalid gitfile format %s: %w", p, ErrNotRepository)
	}
	return resolvePath(filepath.Dir(p), target), nil
}

// isGitDir mirrors git's is_git_directory: a valid HEAD in gitdir, objects/
// and refs/ in its common dir.
func isGitDir(cwd, gitdir string) bool {
	if !validHead(filepath.Join(gitdir, "HEAD")) {
		return false
	}
	common, _ := commonDir(cwd, gitdir)
	objects := filepath.Join(common, "objects")
	if env := os.Getenv("GIT_OBJECT_DIRECTORY"); env != "" {
		objects = resolvePath(cwd, env)
	}
	return isDir(objects) && isDir(filepath.Join(common, "refs"))
}

func validHead(p string) bool {
	fi, err := os.Lstat(p)
	if err != nil {
		return false
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(p)
		return err == nil && strings.HasPrefix(target, "refs/")
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	s := string(data)
	if rest, ok := strings.CutPrefix(s, "ref:"); ok {
		return strings.HasPrefix(strings.TrimLeft(rest, " \t"), "refs/")
	}
	s = strings.TrimRight(s, "\r\n")
	return (len(s) == 40 || len(s) == 64) && isHex(s)
}

// commonDir returns the common dir of gitdir and whether it differs from
// gitdir by a commondir file or GIT_COMMON_DIR (a linked worktree).
func commonDir(cwd, gitdir string) (string, bool) {
	if env := os.Getenv("GIT_COMMON_DIR"); env != "" {
		return resolvePath(cwd, env), true
	}
	data, err := os.ReadFile(filepath.Join(gitdir, "commondir"))
	if err != nil {
		return gitdir, false
	}
	return resolvePath(gitdir, strings.TrimRight(string(data), "\r\n")), true
}

// finish fills in the common dir and work tree for gitdir; worktree is the
// candidate work tree ("" for a repository found as bare).
func finish(cwd, gitdir, worktree string) (*Repo, error) {
	common, linked := commonDir(cwd, gitdir)
	r := &Repo{GitDir: filepath.Clean(gitdir), CommonDir: common}
	bare, cfgWorktree, err := coreSettings(r, linked)
	if err != nil {
		return nil, err
	}
	switch env := os.Getenv("GIT_WORK_TREE"); {
	case env != "":
		r.WorkTree = resolvePath(cwd, env)
	case cfgWorktree != "":
		r.WorkTree = resolvePath(r.GitDir, cfgWorktree)
	case !bare && worktree != "":
		r.WorkTree = filepath.Clean(worktree)
	}
	return r, nil
}

// coreSettings reads core.bare and core.worktree the way git's repository
// format check does: no includes, nothing at all without
// core.repositoryFormatVersion, and in a linked worktree only from
// config.worktree (when extensions.worktreeConfig is on).
func coreSettings(r *Repo, linked bool) (bare bool, worktree string, err error) {
	c, err := readFormat(filepath.Join(r.CommonDir, "config"))
	if err != nil {
		return false, "", err
	}
	if _, ok := c["core.repositoryformatversion"]; !ok {
		return false, "", nil
	}
	if wc, err := parseBool("extensions.worktreeConfig", c["extensions.worktreeconfig"]); err != nil {
		return false, "", err
	} else if wc {
		wt, err := readFormat(filepath.Join(r.GitDir, "config.worktree"))
		if err != nil {
			return false, "", err
		}
		for k, v := range wt {
			c[k] = v
		}
		linked = false
	}
	if linked {
		return false, "", nil
	}
	bare, err = parseBool("core.bare", c["core.bare"])
	if err != nil {
		return false, "", err
	}
	return bare, c["core.worktree"], nil
}

// ceilingFor returns the longest GIT_CEILING_DIRECTORIES entry that is a
// proper ancestor of dir, or "".
func ceilingFor(dir string) string {
	best := ""
	for _, c := range filepath.SplitList(os.Getenv("GIT_CEILING_DIRECTORIES")) {
		if !filepath.IsAbs(c) {
			continue
		}
		cands := []string{filepath.Clean(c)}
		if real, err := filepath.EvalSymlinks(c); err == nil {
			cands = append(cands, real)
		}
		for _, c := range cands {
			if c == "/" || strings.HasPrefix(dir, c+"/") {
				if len(c) > len(best) {
					best = c
				}
			}
		}
	}
	return best
}

func resolvePath(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return s != ""
}
