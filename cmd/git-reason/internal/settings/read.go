package settings

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// entry is one value of a key as git listed it.
type entry struct {
	scope    string // "system", "global", "local", "worktree" or "command"
	value    string
	hasValue bool // false for a variable written without "="
}

// config maps each key, as git lists it, to its values in git's order.
type config map[string][]entry

// item is one line of git config --list --show-scope.
type item struct {
	scope, key, value string
	hasValue          bool
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
// only), then resolves it with the environment and flags. The files are
// read in-process, as git reads them (readConfig); whatever that reader
// leaves to git (a file git refuses, an include loop, a form it does not
// read) is read by one git config process instead, so that Load fails
// where git refuses the configuration, with git's own message.
func Load(ctx context.Context, gitDir string, flags Flags) (*Settings, error) {
	items, err := readConfig(gitDir, os.LookupEnv)
	if errors.Is(err, errAskGit) {
		items, err = list(ctx, gitDir)
	}
	if err != nil {
		return nil, err
	}
	s, err := resolve(source{config: toConfig(items), lookupEnv: os.LookupEnv}, flags)
	if err != nil || gitDir == "" || !hasSafeDirectory(items) {
		return s, err
	}
	if s.SafeDirectories, err = SafeDirectories(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// SafeDirectories reads the safe.directory values git honours when it
// checks who owns a repository. Git reads them as outside any repository
// (read_very_early_config): the system and global files and the command
// line, whose includeIf gitdir: and onbranch: conditions then never hold
// and whose hasconfig:remote.*.url: sees only their own remotes. Read
// with the repository instead, a global file's includeIf would let the
// repository being checked choose what is included (its HEAD, its remote
// URLs), and with it whether it is trusted. No file of the repository is
// read, so a repository refused for its owner is never read at all.
func SafeDirectories(ctx context.Context) ([]string, error) {
	items, err := readConfig("", os.LookupEnv)
	if errors.Is(err, errAskGit) {
		items, err = list(ctx, "")
	}
	if err != nil {
		return nil, err
	}
	return safeDirectories(toConfig(items)[keySafeDir]), nil
}

// hasSafeDirectory reports whether a protected scope sets safe.directory
// at all; reading as outside the repository can only find fewer.
func hasSafeDirectory(items []item) bool {
	for _, it := range items {
		if it.key == keySafeDir && it.scope != "local" && it.scope != "worktree" {
			return true
		}
	}
	return false
}

// list runs git config -z --list --show-scope. GIT_CONFIG is removed from
// its environment: git config alone reads it (as --file), git's other
// commands do not, and git reason reads what they read.
func list(ctx context.Context, gitDir string) ([]item, error) {
	args := []string{"config", "-z", "--list", "--show-scope"}
	if gitDir != "" {
		args = append([]string{"--git-dir=" + gitDir}, args...)
	}
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = gitDir
	cmd.Env = withoutVar(os.Environ(), "GIT_CONFIG")
	if gitDir == "" {
		// Outside a repository: git must not find one from the working
		// directory or GIT_DIR either.
		cmd.Dir = "/"
		cmd.Env = withoutVar(withoutVar(cmd.Env, "GIT_DIR"), "GIT_COMMON_DIR")
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimPrefix(firstLine(stderr.String()), "fatal: ")
		var ee *exec.ExitError
		if errors.As(err, &ee) && msg != "" {
			return nil, fmt.Errorf("read git config: %s", msg)
		}
		return nil, fmt.Errorf("read git config: %w", err)
	}
	return parseList(out)
}

// parseList decodes the output of git config -z --list --show-scope: for
// each variable "scope NUL key LF value NUL", or "scope NUL key NUL" for a
// variable written without "=".
func parseList(out []byte) ([]item, error) {
	var items []item
	for len(out) > 0 {
		scope, rest, ok := bytes.Cut(out, []byte{0})
		if !ok {
			return nil, fmt.Errorf("read git config: truncated output")
		}
		line, rest, ok := bytes.Cut(rest, []byte{0})
		if !ok {
			return nil, fmt.Errorf("read git config: truncated output after %q", scope)
		}
		key, value, hasValue := bytes.Cut(line, []byte{'\n'})
		items = append(items, item{scope: string(scope), key: string(key), value: string(value), hasValue: hasValue})
		out = rest
	}
	return items, nil
}

func withoutVar(env []string, name string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
