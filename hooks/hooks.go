package hooks

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

//go:embed pre-commit pre-push pre-merge-commit prepare-commit-msg commit-msg pre-receive
var shims embed.FS

// Names are the hooks git reason installs: the neutrality checks
// (pre-commit, pre-push, and pre-merge-commit, which git runs instead of
// pre-commit for the merge commit 'git merge' makes) and the Reason-Task
// trailer (prepare-commit-msg adds it, commit-msg keeps a message that
// holds nothing else empty).
var Names = []string{"pre-commit", "pre-push", "pre-merge-commit", "prepare-commit-msg", "commit-msg"}

// ServerNames are the hooks a hosted repository runs ('hooks install
// --server'): pre-receive refuses reasoning refs that break the rules.
var ServerNames = []string{"pre-receive"}

// Marker is in every shim. Carrying it does not make a file git reason's:
// only the shim's exact bytes are (see Status.Installed).
const Marker = "git-reason managed hook"

// ChainedSuffix names a hook that the shim replaced and runs first.
const ChainedSuffix = ".git-reason-chained"

// BackupSuffix names the copy of a modified shim that --force replaced.
const BackupSuffix = ".git-reason-backup"

// Status is the state of one hook.
type Status struct {
	Hook      string `json:"hook"`
	Path      string `json:"path"`
	Installed bool   `json:"installed"` // the hook is git reason's shim, byte for byte
	Current   bool   `json:"current"`   // and git can run it
	Modified  bool   `json:"modified"`  // it carries the marker but is not the shim
	Chained   bool   `json:"chained"`   // a replaced hook runs first
	Foreign   bool   `json:"foreign"`   // another hook is in the way
}

// Dir is the directory git runs hooks from: core.hooksPath when set
// (relative to the work tree's top, as git reads it), else the common git
// directory's hooks/, shared by every linked worktree.
func Dir(hooksPath, workTree, commonDir string) string {
	if hooksPath == "" {
		return filepath.Join(commonDir, "hooks")
	}
	if rest, ok := strings.CutPrefix(hooksPath, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	if filepath.IsAbs(hooksPath) {
		return hooksPath
	}
	if workTree == "" {
		return filepath.Join(commonDir, hooksPath)
	}
	return filepath.Join(workTree, hooksPath)
}

// Shim returns the content of a hook's shim.
func Shim(name string) []byte {
	data, err := fs.ReadFile(shims, name)
	if err != nil {
		panic(err) // every name in Names is embedded
	}
	return data
}

// Check reports the state of every hook in dir.
func Check(dir string) []Status { return CheckNames(dir, Names) }

// CheckNames reports the state of the named hooks in dir.
func CheckNames(dir string, names []string) []Status {
	var out []Status
	for _, name := range names {
		out = append(out, check(dir, name))
	}
	return out
}

// check compares a hook with the shim byte for byte: only the exact bytes
// git reason writes are its own. A file that merely carries the marker
// (a shim someone edited, or another tool's hook quoting it) is Modified,
// and is never overwritten or removed without --force.
func check(dir, name string) Status {
	s := Status{Hook: name, Path: filepath.Join(dir, name)}
	fi, err := os.Lstat(s.Path)
	if err == nil {
		data, rerr := os.ReadFile(s.Path)
		exact := rerr == nil && fi.Mode().IsRegular() && bytes.Equal(data, Shim(name))
		s.Installed = exact
		s.Current = exact && fi.Mode().Perm()&0o111 != 0
		s.Modified = !exact && bytes.Contains(data, []byte(Marker))
		s.Foreign = !exact && !s.Modified
	}
	_, err = os.Lstat(s.Path + ChainedSuffix)
	s.Chained = err == nil
	return s
}

// Install writes the shims into dir. A hook git reason did not write is
// kept as NAME.git-reason-chained and run first. A hook that carries the
// marker but is not the shim byte for byte is refused, unless force, which
// keeps a copy of it as NAME.git-reason-backup before writing the shim.
// Installing again changes nothing but a shim git cannot run.
func Install(dir string, force bool) ([]Status, error) { return InstallNames(dir, Names, force) }

// InstallNames is Install of the named hooks (Names or ServerNames).
func InstallNames(dir string, names []string, force bool) ([]Status, error) {
	// Check every hook before changing any, so a refusal changes nothing.
	for _, name := range names {
		s := check(dir, name)
		if s.Modified && !force {
			return nil, fmt.Errorf("%s carries git reason's marker but is not its shim byte for byte (edited?): move your changes to %s%s, or run 'git reason hooks install --force' (it keeps a copy as %s%s)",
				s.Path, name, ChainedSuffix, name, BackupSuffix)
		}
		if s.Foreign && s.Chained {
			return nil, fmt.Errorf("%s is not git reason's, and %s%s exists already: merge them by hand, then run 'git reason hooks install' again", s.Path, name, ChainedSuffix)
		}
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("create hooks directory: %w", err)
	}
	var out []Status
	for _, name := range names {
		s := check(dir, name)
		switch {
		case s.Modified:
			if err := backup(s.Path); err != nil {
				return out, fmt.Errorf("keep a copy of the modified %s hook: %w", name, err)
			}
		case s.Foreign:
			if err := os.Rename(s.Path, s.Path+ChainedSuffix); err != nil {
				return out, fmt.Errorf("keep the existing %s hook: %w", name, err)
			}
		}
		if !s.Current {
			if err := writeShim(s.Path, Shim(name)); err != nil {
				return out, fmt.Errorf("write %s hook: %w", name, err)
			}
		}
		out = append(out, check(dir, name))
	}
	return out, nil
}

// writeShim puts data at path whole, mode 0755: written beside it and
// renamed over it, so that a git running the hook meanwhile never runs
// half of one.
func writeShim(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	if err = errors.Join(werr, tmp.Chmod(0o755), tmp.Close()); err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// backup moves path to the first free path+BackupSuffix[.N], so that no
// earlier backup is overwritten either.
func backup(path string) error {
	for i := 0; i < 1000; i++ {
		dst := path + BackupSuffix
		if i > 0 {
			dst += "." + strconv.Itoa(i)
		}
		if _, err := os.Lstat(dst); errors.Is(err, fs.ErrNotExist) {
			return os.Rename(path, dst)
		}
	}
	return fmt.Errorf("too many backups of %s", path)
}

// Uninstall removes the shims from dir and puts back the hooks they
// replaced. Only a hook that is the shim byte for byte is removed: any
// other, even one carrying the marker, is left alone.
func Uninstall(dir string) ([]Status, error) { return UninstallNames(dir, Names) }

// UninstallNames is Uninstall of the named hooks.
func UninstallNames(dir string, names []string) ([]Status, error) {
	var out []Status
	for _, name := range names {
		s := check(dir, name)
		if s.Installed {
			if err := os.Remove(s.Path); err != nil {
				return out, fmt.Errorf("remove %s hook: %w", name, err)
			}
			if s.Chained {
				if err := os.Rename(s.Path+ChainedSuffix, s.Path); err != nil {
					return out, fmt.Errorf("restore the %s hook: %w", name, err)
				}
			}
		}
		out = append(out, check(dir, name))
	}
	return out, nil
}

// Changes reports whether Install (or Uninstall) of the named hooks would
// change anything in dir, so that a caller can refuse before touching a
// directory it must not modify.
func Changes(dir string, names []string, uninstall bool) bool {
	for _, s := range CheckNames(dir, names) {
		if uninstall && s.Installed || !uninstall && !s.Current {
			return true
		}
	}
	return false
}
