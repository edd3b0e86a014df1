package gitstore

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"git-reason/gitstore/git"
)

// SharedPerm is core.sharedRepository as git reads it (git.SharedPerm).
type SharedPerm = git.SharedPerm

// The values of git's git_config_perm (git.SharedUmask and the others).
const (
	SharedUmask     = git.SharedUmask
	SharedGroup     = git.SharedGroup
	SharedEverybody = git.SharedEverybody
)

// ParseSharedRepository reads core.sharedRepository's value as git does
// (hasValue false for the key written without "=", which is true):
// "umask", "group", "all" (or "world", "everybody"), 0, 1, 2, an octal
// mode, or a boolean. A value git refuses (an octal mode that does not let
// the owner read and write) is the default: git itself stops on it first.
func ParseSharedRepository(value string, hasValue bool) SharedPerm {
	if !hasValue {
		return SharedGroup
	}
	switch value {
	case "umask":
		return SharedUmask
	case "group":
		return SharedGroup
	case "all", "world", "everybody":
		return SharedEverybody
	}
	i, err := strconv.ParseInt(value, 8, 32)
	if err != nil {
		switch strings.ToLower(value) {
		case "true", "yes", "on":
			return SharedGroup
		}
		return SharedUmask
	}
	switch i {
	case 0:
		return SharedUmask
	case 1:
		return SharedGroup
	case 2:
		return SharedEverybody
	}
	if i&0o600 != 0o600 {
		return SharedUmask
	}
	return SharedPerm(-(i & 0o666))
}

// appendOwnList appends b to path, the per-task list of what this
// clone's writer did (written.d), creating it (a shared repository's as
// git shares its own files), in one write:
// appends of concurrent writers do not interleave. Failing costs only what
// the list would have saved.
func appendOwnList(path string, b []byte) {
	_ = git.MkdirAll(filepath.Dir(path), 0o755)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	if _, err := f.Write(b); err == nil {
		_ = git.AdjustCreated(path) // a shared repository's, as git's own files
	}
}
