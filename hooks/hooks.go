package hooks

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

//go:embed pre-commit pre-push
var shims embed.FS

// Names are the hooks git reason installs.
var Names = []string{"pre-commit", "pre-push"}

// Marker is in every shim; a hook file holding it is git reason's own.
const Marker = "git-reason managed hook"

// ChainedSuffix names a hook that the shim replaced and runs first.
const ChainedSuffix = ".git-reason-chained"

// Status is the state of one hook.
type Status struct {
	Hook      string `json:"hook"`
	Path      string `json:"path"`
	Installed bool   `json:"installed"` // the hook is git reason's shim
	Current   bool   `json:"current"`   // and the shim is this version's
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
func Check(dir string) []Status {
	var out []Status
	for _, name := range Names {
		out = append(out, check(dir, name))
	}
	return out
}

func check(dir, name string) Status {
	s := Status{Hook: name, Path: filepath.Join(dir, name)}
	data, err := os.ReadFile(s.Path)
	if err == nil {
		s.Installed = bytes.Contains(data, []byte(Marker))
		fi, serr := os.Stat(s.Path)
		executable := serr == nil && fi.Mode().Perm()&0o111 != 0
		s.Current = bytes.Equal(data, Shim(name)) && executable
		s.Foreign = !s.Installed
	}
	_, err = os.Stat(s.Path + ChainedSuffix)
	s.Chained = err == nil
	return s
}

// Install writes the shims into dir. A hook git reason did not write is
// kept as NAME.git-reason-chained and run first. Installing again changes
// nothing but an outdated shim.
func Install(dir string) ([]Status, error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("create hooks directory: %w", err)
	}
	// Check every hook before changing any, so a refusal changes nothing.
	for _, name := range Names {
		if s := check(dir, name); s.Foreign && s.Chained {
			return nil, fmt.Errorf("%s is not git reason's, and %s%s exists already: merge them by hand, then run 'git reason hooks install' again", s.Path, name, ChainedSuffix)
		}
	}
	var out []Status
	for _, name := range Names {
		s := check(dir, name)
		if s.Foreign {
			if err := os.Rename(s.Path, s.Path+ChainedSuffix); err != nil {
				return out, fmt.Errorf("keep the existing %s hook: %w", name, err)
			}
		}
		if !s.Current {
			if err := writeExecutable(s.Path, Shim(name)); err != nil {
				return out, fmt.Errorf("write %s hook: %w", name, err)
			}
		}
		out = append(out, check(dir, name))
	}
	return out, nil
}

// Uninstall removes the shims from dir and puts back the hooks they
// replaced. A hook that is not git reason's is left alone.
func Uninstall(dir string) ([]Status, error) {
	var out []Status
	for _, name := range Names {
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

// writeExecutable writes data to path through a temporary file, so a
// running git never sees a half-written hook.
func writeExecutable(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-hook-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), 0o755)); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
