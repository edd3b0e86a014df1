package gitstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// SetLocalOnce sets key to value in the repository's own config file
// (<CommonDir>/config) under git's config.lock protocol, unless that file
// already gives key a value. It returns the value in force afterwards across
// all scopes, so concurrent first callers all see the one value that won.
func (r *Repo) SetLocalOnce(key, value string) (string, error) {
	sec, sub, name, err := splitKey(key)
	if err != nil {
		return "", err
	}
	path := filepath.Join(r.CommonDir, "config")
	lock, err := takeLock(path + ".lock")
	if err != nil {
		return "", fmt.Errorf("set %s: %w", key, err)
	}
	done := false
	defer func() {
		if !done {
			abandonLock(lock)
		}
	}()
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("set %s: %w", key, err)
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	found, insertAt := false, -1
	err = parseConfig(data, func(ev configEvent) error {
		if ev.section != sec || ev.subsection != sub {
			return nil
		}
		insertAt = ev.end
		found = found || ev.name == name
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("set %s: config file %s: %w", key, path, err)
	}
	if found {
		done = true
		if err := abandonLock(lock); err != nil {
			return "", fmt.Errorf("set %s: %w", key, err)
		}
	} else {
		out := insertVariable(data, insertAt, sec, sub, name, value)
		if err := commitLock(lock, path, out, mode); err != nil {
			return "", fmt.Errorf("set %s: %w", key, err)
		}
		done = true
	}
	c, err := r.Config()
	if err != nil {
		return "", err
	}
	v, _ := c.Get(key)
	return v, nil
}

// splitKey validates key as git config does and returns its parts, section
// and name lowercased.
func splitKey(key string) (section, sub, name string, err error) {
	k, ok := canonicalKey(key)
	if ok {
		i, j := strings.IndexByte(k, '.'), strings.LastIndexByte(k, '.')
		section, name = k[:i], k[j+1:]
		if j > i {
			sub = k[i+1 : j]
		}
		ok = validName(section, true) && validName(name, false) && !strings.Contains(sub, "\n")
	}
	if !ok {
		return "", "", "", fmt.Errorf("invalid config key %q", key)
	}
	return section, sub, name, nil
}

func validName(s string, section bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isKeyChar(c) || section && c == '.') || !section && i == 0 && !isAlpha(c) {
			return false
		}
	}
	return s != ""
}

// insertVariable adds "name = value" after the last line of the section
// (insertAt), or appends a new section when insertAt < 0.
func insertVariable(data []byte, insertAt int, sec, sub, name, value string) []byte {
	text := "\t" + name + " = " + quoteValue(value) + "\n"
	if insertAt < 0 {
		insertAt = len(data)
		header := "[" + sec
		if sub != "" {
			r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
			header += ` "` + r.Replace(sub) + `"`
		}
		text = header + "]\n" + text
	}
	if insertAt > 0 && data[insertAt-1] != '\n' {
		text = "\n" + text
	}
	out := make([]byte, 0, len(data)+len(text))
	out = append(out, data[:insertAt]...)
	out = append(out, text...)
	return append(out, data[insertAt:]...)
}

// quoteValue writes v so that git reads it back unchanged.
func quoteValue(v string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`, "\b", `\b`)
	q := r.Replace(v)
	if v != "" && (v[0] == ' ' || v[len(v)-1] == ' ' || strings.ContainsAny(v, "#;")) {
		return `"` + q + `"`
	}
	return q
}
