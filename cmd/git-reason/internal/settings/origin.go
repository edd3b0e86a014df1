package settings

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	rungit "git-reason/gitstore/git"
)

// lockWait bounds how long SetOrigin waits for another process to finish
// writing the origin (a write takes milliseconds). A lock left by a
// process that died is not taken over: as git does with its own locks,
// the error names it for a person to remove.
var lockWait = rungit.Wait

// SetOrigin records id as reason.origin in the repository's own config
// file (<commonDir>/config) unless that file already holds one, and returns
// the origin in force afterwards. git config has no compare-and-set, so
// git reason processes take turns on <commonDir>/reason/origin.lock: of
// any number racing, the first writes and every other reads its value.
// Other writers of the config file (git config itself) are waited for.
func SetOrigin(ctx context.Context, gitDir, commonDir, id string) (string, error) {
	lock, err := rungit.TakeLock(filepath.Join(commonDir, "reason", "origin"), lockWait)
	if err != nil {
		return "", fmt.Errorf("record this clone's origin: %w", err)
	}
	defer lock.Release()
	cur, err := gitConfig(ctx, gitDir, "--local", "--get", keyOrigin)
	if err != nil {
		return "", fmt.Errorf("record this clone's origin: %w", err)
	}
	if cur != "" {
		return cur, nil
	}
	if _, err := gitConfig(ctx, gitDir, "--local", keyOrigin, id); err != nil {
		return "", fmt.Errorf("record this clone's origin: %w", err)
	}
	return id, nil
}

// gitConfig runs git config and returns its output without the final
// newline; "not set" (exit status 1) is "". git config does not wait for
// a config.lock held by another writer: it is retried here.
func gitConfig(ctx context.Context, gitDir string, args ...string) (string, error) {
	deadline := time.Now().Add(lockWait)
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		out, err := rungit.Cmd{Dir: gitDir, Global: []string{"--git-dir=" + gitDir}, Args: append([]string{"config"}, args...),
			Unset: []string{"GIT_CONFIG"}}.Run(ctx)
		var ge *rungit.Error
		stderr := ""
		if errors.As(err, &ge) {
			stderr = ge.Stderr
		}
		switch {
		case err == nil:
			return strings.TrimSuffix(string(out), "\n"), nil
		case ge != nil && ge.Code == 1 && stderr == "":
			return "", nil
		case strings.Contains(stderr, "could not lock config file") && time.Now().Before(deadline):
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case <-time.After(delay):
			}
			continue
		}
		if msg := firstLine(stderr); msg != "" {
			return "", fmt.Errorf("git config: %s", strings.TrimPrefix(msg, "error: "))
		}
		return "", fmt.Errorf("git config: %w", err)
	}
}
