package settings

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// lockWait bounds how long SetOrigin waits for another process to finish
// writing the origin, and lockStale is the age past which a lock is taken
// to be left by a process that died (a write takes milliseconds).
const (
	lockWait  = 10 * time.Second
	lockStale = 30 * time.Second
)

// SetOrigin records id as reason.origin in the repository's own config
// file (<commonDir>/config) unless that file already holds one, and returns
// the origin in force afterwards. git config has no compare-and-set, so
// git reason processes take turns on <commonDir>/reason/origin.lock: of
// any number racing, the first writes and every other reads its value.
// Other writers of the config file (git config itself) are waited for.
func SetOrigin(ctx context.Context, gitDir, commonDir, id string) (string, error) {
	unlock, err := lock(ctx, filepath.Join(commonDir, "reason", "origin.lock"))
	if err != nil {
		return "", fmt.Errorf("record this clone's origin: %w", err)
	}
	defer unlock()
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
		cmd := exec.CommandContext(ctx, "git", append([]string{"--git-dir=" + gitDir, "config"}, args...)...)
		cmd.Dir = gitDir
		cmd.Env = withoutVar(os.Environ(), "GIT_CONFIG")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		var ee *exec.ExitError
		switch {
		case err == nil:
			return strings.TrimSuffix(string(out), "\n"), nil
		case errors.As(err, &ee) && ee.ExitCode() == 1 && stderr.Len() == 0:
			return "", nil
		case strings.Contains(stderr.String(), "could not lock config file") && time.Now().Before(deadline):
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case <-time.After(delay):
			}
			continue
		}
		if msg := firstLine(stderr.String()); msg != "" {
			return "", fmt.Errorf("git config: %s", strings.TrimPrefix(msg, "error: "))
		}
		return "", fmt.Errorf("git config: %w", err)
	}
}

// lock creates path exclusively, waiting while another process holds it,
// and returns the function that releases it.
func lock(ctx context.Context, path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(lockWait)
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if fi, err := os.Stat(path); err == nil && time.Since(fi.ModTime()) > lockStale {
			os.Remove(path) // left by a process that died while holding it
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s is held by another process: if none is running, remove it", path)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(delay):
		}
	}
}
