package settings

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"git-reason/gitstore"
	rungit "git-reason/gitstore/git"
)

// entry is one value of a key as git listed it.
type entry struct {
	scope    string // "system", "global", "local", "worktree" or "command"
	value    string
	hasValue bool // false for a variable written without "="
}

// config maps each key, as git lists it, to its values in git's order.
type config map[string][]entry

// item is one line of git config --list --show-scope --show-origin.
type item struct {
	scope, origin, key, value string
	hasValue                  bool
}

func toConfig(items []item) config {
	cfg := config{}
	for _, it := range items {
		cfg[it.key] = append(cfg[it.key], entry{scope: it.scope, value: it.value, hasValue: it.hasValue})
	}
	return cfg
}

// Load reads the configuration of the repository whose git directory is
// gitDir ("" outside a repository: system, global and command-line scopes
// only) with one git config process, then resolves it with the
// environment and flags. Git answers everything about the files: which
// are read and in what order, include.path and includeIf, `git -c`, and
// what it refuses (Load then fails with git's own message, in one line).
func Load(ctx context.Context, gitDir string, flags Flags) (*Settings, error) {
	items, dir, err := list(ctx, gitDir)
	if err != nil {
		return nil, err
	}
	src := source{config: toConfig(items), lookupEnv: os.LookupEnv}
	s, err := resolveItems(src, items, flags)
	if err != nil {
		return nil, err
	}
	s.files = WatchFiles(src.configFiles(items, gitDir, dir)...)
	return s, nil
}

// resolveItems is resolve of src, listed as items, with what depends on
// the order of variables across keys: the promisor remotes.
func resolveItems(src source, items []item, flags Flags) (*Settings, error) {
	s, err := resolve(src, flags)
	if err != nil {
		return nil, err
	}
	var p gitstore.PromisorRemotes
	for _, it := range items {
		p.Add(it.key, it.value, it.hasValue)
	}
	s.PromisorRemotes = p.Remotes
	return s, nil
}

// listArgs list every variable with its scope and the file it came from.
var listArgs = []string{"config", "--list", "-z", "--show-scope", "--show-origin", "--includes"}

// list runs git config --list -z --show-scope --show-origin --includes
// for gitDir and returns what it listed and the directory it ran in
// (relative origins are relative to it). GIT_CONFIG is removed from its
// environment: git config alone reads it (as --file), git's other
// commands do not, and git reason reads what they read.
func list(ctx context.Context, gitDir string) ([]item, string, error) {
	c := rungit.Cmd{Args: listArgs, Unset: []string{"GIT_CONFIG"}}
	if gitDir != "" {
		c.Dir, c.Global = gitDir, []string{"--git-dir=" + gitDir}
	} else {
		// Outside a repository: git must not find one from the working
		// directory or GIT_DIR either.
		c.Dir, c.Unset = "/", append(c.Unset, "GIT_DIR", "GIT_COMMON_DIR")
	}
	out, err := c.Run(ctx)
	if err != nil {
		var ge *rungit.Error
		if errors.As(err, &ge) {
			if msg := strings.TrimPrefix(firstLine(ge.Stderr), "fatal: "); msg != "" {
				return nil, "", fmt.Errorf("read git config: %s", msg)
			}
		}
		return nil, "", fmt.Errorf("read git config: %w", err)
	}
	items, err := parseList(out)
	return items, c.Dir, err
}

// parseList decodes the output of git config --list -z --show-scope
// --show-origin: for each variable "scope NUL origin NUL key LF value
// NUL", or "scope NUL origin NUL key NUL" for a variable written without
// "=".
func parseList(out []byte) ([]item, error) {
	var items []item
	for len(out) > 0 {
		var f [3][]byte
		for i := range f {
			var ok bool
			if f[i], out, ok = bytes.Cut(out, []byte{0}); !ok {
				return nil, fmt.Errorf("read git config: truncated output")
			}
		}
		key, value, hasValue := bytes.Cut(f[2], []byte{'\n'})
		items = append(items, item{scope: string(f[0]), origin: string(f[1]), key: string(key), value: string(value), hasValue: hasValue})
	}
	return items, nil
}

// configFiles are the files a reading depends on: every file git listed
// a variable from, the files git reads when they exist (the global ones,
// the repository's config.worktree) and HEAD (includeIf onbranch:), and
// the targets of include.path and includeIf.*.path, which may appear
// later. dir is where git ran, for relative origins.
func (src source) configFiles(items []item, gitDir, dir string) []string {
	home, xdg := src.getenv("HOME"), src.getenv("XDG_CONFIG_HOME")
	var files []string
	if home != "" {
		files = append(files, filepath.Join(home, ".gitconfig"))
		if xdg == "" {
			xdg = filepath.Join(home, ".config")
		}
	}
	if xdg != "" {
		files = append(files, filepath.Join(xdg, "git", "config"))
	}
	if gitDir != "" {
		files = append(files, filepath.Join(gitDir, "config.worktree"), filepath.Join(gitDir, "HEAD"))
	}
	for _, it := range items {
		file, ok := strings.CutPrefix(it.origin, "file:")
		if !ok {
			continue
		}
		file = absIn(dir, file)
		files = append(files, file)
		if it.key != "include.path" && !(strings.HasPrefix(it.key, "includeif.") && strings.HasSuffix(it.key, ".path")) {
			continue
		}
		switch target := it.value; {
		case strings.HasPrefix(target, "~/") && home != "":
			files = append(files, filepath.Join(home, target[2:]))
		case filepath.IsAbs(target):
			files = append(files, target)
		case target != "" && !strings.HasPrefix(target, "~"):
			files = append(files, filepath.Join(filepath.Dir(file), target))
		}
	}
	return files
}

func absIn(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
