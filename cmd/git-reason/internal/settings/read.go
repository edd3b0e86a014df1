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

// Load reads the configuration of the repository whose git directory is
// gitDir ("" outside a repository: system, global and command-line scopes
// only) with one git process, then resolves it with the environment and
// flags. It fails when git refuses the configuration (a syntax error, an
// include loop), with git's own message.
func Load(ctx context.Context, gitDir string, flags Flags) (*Settings, error) {
	cfg, err := list(ctx, gitDir)
	if err != nil {
		return nil, err
	}
	return resolve(source{config: cfg, lookupEnv: os.LookupEnv}, flags)
}

// list runs git config -z --list --show-scope. GIT_CONFIG is removed from
// its environment: git config alone reads it (as --file), git's other
// commands do not, and git reason reads what they read.
func list(ctx context.Context, gitDir string) (config, error) {
	args := []string{"config", "-z", "--list", "--show-scope"}
	if gitDir != "" {
		args = append([]string{"--git-dir=" + gitDir}, args...)
	}
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = gitDir
	cmd.Env = withoutVar(os.Environ(), "GIT_CONFIG")
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
func parseList(out []byte) (config, error) {
	cfg := config{}
	for len(out) > 0 {
		scope, rest, ok := bytes.Cut(out, []byte{0})
		if !ok {
			return nil, fmt.Errorf("read git config: truncated output")
		}
		item, rest, ok := bytes.Cut(rest, []byte{0})
		if !ok {
			return nil, fmt.Errorf("read git config: truncated output after %q", scope)
		}
		key, value, hasValue := bytes.Cut(item, []byte{'\n'})
		k := string(key)
		cfg[k] = append(cfg[k], entry{scope: string(scope), value: string(value), hasValue: hasValue})
		out = rest
	}
	return cfg, nil
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
