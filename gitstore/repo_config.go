package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing/format/config"
)

// formatKeys are the keys discovery reads, as git's repository format check
// does: without includes, before any other configuration.
var formatKeys = []struct{ section, name string }{
	{"core", "repositoryFormatVersion"}, {"core", "bare"}, {"core", "worktree"},
	{"extensions", "worktreeConfig"},
}

// readFormat returns the formatKeys set in the config file at path
// ("section.name" lowercased → last value; a variable written without "="
// is "true"). A missing file sets nothing. go-git's decoder reads the files
// git writes; a file it refuses or could misread (a value without "=", a
// continued line, legacy or same-line section headers) is read by git
// itself, so that discovery never disagrees with git.
func readFormat(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	cfg := config.New()
	if err := config.NewDecoder(bytes.NewReader(data)).Decode(cfg); err != nil {
		return readFormatWithGit(path)
	}
	out := map[string]string{}
	for _, k := range formatKeys {
		s := cfg.Section(k.section)
		if !s.HasOption(k.name) {
			continue
		}
		v := s.Option(k.name)
		if v == "" || strings.ContainsAny(v, "\n") {
			return readFormatWithGit(path)
		}
		out[strings.ToLower(k.section+"."+k.name)] = v
	}
	return out, nil
}

// readFormatWithGit lists the file with git config (no includes: git's
// format check reads none).
func readFormatWithGit(path string) (map[string]string, error) {
	cmd := exec.Command("git", "config", "--file", path, "--no-includes", "-z", "--list")
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	list, err := cmd.Output()
	if err != nil {
		msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		return nil, fmt.Errorf("config file %s: %s", path, strings.TrimPrefix(msg, "fatal: "))
	}
	out := map[string]string{}
	for _, item := range bytes.Split(list, []byte{0}) {
		key, value, hasValue := strings.Cut(string(item), "\n")
		if !hasValue {
			value = "true"
		}
		for _, k := range formatKeys {
			if key == strings.ToLower(k.section+"."+k.name) {
				out[key] = value
			}
		}
	}
	return out, nil
}

// parseBool interprets a value as git does (true/yes/on/1,
// false/no/off/0/empty); anything else is an error.
func parseBool(key, v string) (bool, error) {
	switch strings.ToLower(v) {
	case "true", "yes", "on":
		return true, nil
	case "false", "no", "off", "":
		return false, nil
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n != 0, nil
	}
	return false, fmt.Errorf("config %s: bad boolean value %q", key, v)
}
