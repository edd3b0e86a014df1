package git

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// SharedPerm is core.sharedRepository as git reads it: the permission
// bits git adds to (or, for an octal mode, sets on) every object file,
// ref file and directory it creates in the repository, so that the others
// of a group sharing it can read and write there. Zero is git's default
// (umask): files are left as created.
type SharedPerm int

// The values of git's git_config_perm: group and everybody add bits; a
// negative value is an octal mode, set in place of the file's own.
const (
	SharedUmask     SharedPerm = 0
	SharedGroup     SharedPerm = 0o660
	SharedEverybody SharedPerm = 0o664
)

// sharing is the repository whose git directory what this process
// creates below is shared (ShareUnder), and how.
type sharing struct {
	dir  string
	perm SharedPerm
}

var shared atomic.Pointer[sharing]

// later is how the permissions of the git directory ShareLater named are
// found, the first time this package creates something below it.
type later struct {
	dir  string
	once sync.Once
	perm func() SharedPerm
}

var pending atomic.Pointer[later]

// ShareLater is ShareUnder(dir, perm()), perm asked only when this
// package first creates something below dir (and ShareUnder has not been
// called): a command's settings are read when it wants them, which a
// read that writes a cache may never do.
func ShareLater(dir string, perm func() SharedPerm) {
	shared.Store(nil) // the repository opened last is the one shared
	pending.Store(&later{dir: dir, perm: perm})
}

// ShareUnder makes every file and directory this package creates below
// dir, a repository's git directory, get perm's permissions
// (core.sharedRepository), as git gives its own: the caches under
// .git/reason/ too, which the others of the group read and write as they
// do the repository's objects and refs. The default (SharedUmask) leaves
// them as created, and costs nothing.
func ShareUnder(dir string, perm SharedPerm) {
	pending.Store(nil)
	if perm == SharedUmask {
		shared.Store(nil)
		return
	}
	shared.Store(&sharing{dir: filepath.Clean(dir), perm: perm})
}

// sharedFor is the permissions what is created at path gets, and the git
// directory it is below; SharedUmask when it is below none that is shared.
func sharedFor(path string) (SharedPerm, string) {
	sh := shared.Load()
	if l := pending.Load(); sh == nil && l != nil {
		l.once.Do(func() {
			if pending.Load() == l {
				ShareUnder(l.dir, l.perm())
				pending.CompareAndSwap(l, nil)
			}
		})
		sh = shared.Load()
	}
	if sh == nil {
		return SharedUmask, ""
	}
	if rel, err := filepath.Rel(sh.dir, path); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return SharedUmask, ""
	}
	return sh.perm, sh.dir
}

// AdjustCreated gives path, a file or directory just created, the
// permissions of the shared repository it is in (ShareUnder), if any.
func AdjustCreated(path string) error {
	if p, _ := sharedFor(path); p != SharedUmask {
		return p.Adjust(path)
	}
	return nil
}

// MkdirAll is os.MkdirAll, the directories it creates in a shared
// repository (ShareUnder) given its permissions, as git's own leading
// directories are.
func MkdirAll(dir string, perm os.FileMode) error {
	p, top := sharedFor(dir)
	if p == SharedUmask {
		return os.MkdirAll(dir, perm)
	}
	// The first directory missing, from which MkdirAll creates.
	first := ""
	for at := filepath.Clean(dir); at != top && at != filepath.Dir(at); at = filepath.Dir(at) {
		if _, err := os.Lstat(at); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		first = at
	}
	if err := os.MkdirAll(dir, perm); err != nil || first == "" {
		return err
	}
	p.AdjustDirs(filepath.Dir(first), dir)
	return nil
}

// Adjust gives path the permissions git's adjust_shared_perm gives a file
// or directory it created: the shared bits (write bits only where the
// owner may write; read bits copied to execute bits where the owner may
// execute, and always for a directory, which also gets the set-group-id
// bit so that what is created in it keeps the group).
func (p SharedPerm) Adjust(path string) error {
	if p == SharedUmask {
		return nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	old := fi.Mode()
	tweak := int(p)
	if p < 0 {
		tweak = -tweak
	}
	if old&0o200 == 0 {
		tweak &^= 0o222
	}
	if old&0o100 != 0 {
		tweak |= (tweak & 0o444) >> 2
	}
	perm := old.Perm() | os.FileMode(tweak)
	if p < 0 {
		perm = os.FileMode(tweak)
	}
	special := old & (os.ModeSetuid | os.ModeSetgid | os.ModeSticky)
	if old.IsDir() {
		perm |= perm & 0o444 >> 2
		special |= os.ModeSetgid
	}
	if perm|special == old.Perm()|old&(os.ModeSetuid|os.ModeSetgid|os.ModeSticky) {
		return nil
	}
	return os.Chmod(path, perm|special)
}

// AdjustDirs adjusts each directory below top down to dir (a path under
// top) as git adjusts the leading directories it creates. It does its
// best: a directory another user made, which this one may not change,
// is left as it is, as git leaves directories it did not create.
func (p SharedPerm) AdjustDirs(top, dir string) {
	rel, err := filepath.Rel(top, dir)
	if p == SharedUmask || err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return
	}
	at := top
	for _, seg := range strings.Split(rel, string(filepath.Separator)) {
		at = filepath.Join(at, seg)
		_ = p.Adjust(at)
	}
}

// MayShare reports whether the repository of the git directory dir may
// be shared (core.sharedRepository), for a command that has not listed
// its settings: dir is one git made shared (group-writable or
// set-group-id: git init --shared, git clone --shared), or the
// repository's own configuration names the key or includes another file
// (the key set after the repository was made: git config
// core.sharedRepository group), or a configuration git reads beside it
// names the key: the main worktree's config.worktree, the global and
// system files where git looks for them, and the -c and GIT_CONFIG_COUNT
// settings of the environment. Only then are the settings listed, one
// git process; a repository of none costs a stat and a few small reads.
// A file the global or system ones include is not looked into.
func MayShare(dir string) bool {
	if fi, err := os.Stat(dir); err == nil && fi.Mode()&(0o020|fs.ModeSetgid) != 0 {
		return true
	}
	data, err := os.ReadFile(filepath.Join(dir, "config"))
	if err != nil {
		return true // git's message, if any, comes from the listing
	}
	text := strings.ToLower(string(data))
	if strings.Contains(text, "sharedrepository") || strings.Contains(text, "include") {
		return true
	}
	names := func(s string) bool { return strings.Contains(strings.ToLower(s), "sharedrepository") }
	if names(os.Getenv("GIT_CONFIG_PARAMETERS")) {
		return true
	}
	if n, err := strconv.Atoi(os.Getenv("GIT_CONFIG_COUNT")); err == nil {
		for i := range min(n, 1000) {
			if names(os.Getenv("GIT_CONFIG_KEY_" + strconv.Itoa(i))) {
				return true
			}
		}
	}
	for _, f := range beside(dir) {
		if data, err := os.ReadFile(f); err == nil && names(string(data)) {
			return true
		}
	}
	return false
}

// beside are the configuration files git reads beside the repository's
// own, where it looks for them: the main worktree's config.worktree (a
// linked worktree's is under its own git directory, which this does not
// see), the global files (GIT_CONFIG_GLOBAL, or
// $XDG_CONFIG_HOME/git/config and ~/.gitconfig) and the system file
// (GIT_CONFIG_SYSTEM, or /etc/gitconfig, unless GIT_CONFIG_NOSYSTEM).
func beside(dir string) []string {
	files := []string{filepath.Join(dir, "config.worktree")}
	if g, ok := os.LookupEnv("GIT_CONFIG_GLOBAL"); ok {
		files = append(files, g)
	} else {
		home := os.Getenv("HOME")
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	if v, _ := strconv.ParseBool(os.Getenv("GIT_CONFIG_NOSYSTEM")); !v {
		if s, ok := os.LookupEnv("GIT_CONFIG_SYSTEM"); ok {
			files = append(files, s)
		} else {
			files = append(files, "/etc/gitconfig")
		}
	}
	return files
}
