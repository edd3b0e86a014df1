package gitstore

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// SharedPerm is core.sharedRepository as git reads it: the permission
// bits git adds to (or, for an octal mode, sets on) every object file,
// ref file and directory it creates in the repository, so that the others
// of a group sharing it can read and write there. Zero is git's default
// (umask): files are left as created.
type SharedPerm int

// The values of git's git_config_perm: group and everybody add bits; a
// negative value is an octal mode, set in place of the file's own.
const (
	SharedUmask     SharedPerm = 0
	SharedGroup     SharedPerm = 0o660
	SharedEverybody SharedPerm = 0o664
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

// adjust gives path the permissions git's adjust_shared_perm gives a file
// or directory it created: the shared bits (write bits only where the
// owner may write; read bits copied to execute bits where the owner may
// execute, and always for a directory, which also gets the set-group-id
// bit so that what is created in it keeps the group).
func (p SharedPerm) adjust(path string) error {
	if p == SharedUmask {
		return nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	old := fi.Mode()
	tweak := int(p)
	if p < 0 {
		tweak = -tweak
	}
	if old&0o200 == 0 {
		tweak &^= 0o222
	}
	if old&0o100 != 0 {
		tweak |= (tweak & 0o444) >> 2
	}
	perm := old.Perm() | os.FileMode(tweak)
	if p < 0 {
		perm = os.FileMode(tweak)
	}
	special := old & (os.ModeSetuid | os.ModeSetgid | os.ModeSticky)
	if old.IsDir() {
		perm |= perm & 0o444 >> 2
		special |= os.ModeSetgid
	}
	if perm|special == old.Perm()|old&(os.ModeSetuid|os.ModeSetgid|os.ModeSticky) {
		return nil
	}
	return os.Chmod(path, perm|special)
}

// adjustDirs adjusts each directory below top down to dir (a path under
// top) as git adjusts the leading directories it creates. It does its
// best: a directory another user made, which this one may not change,
// is left as it is, as git leaves directories it did not create.
func (p SharedPerm) adjustDirs(top, dir string) {
	rel, err := filepath.Rel(top, dir)
	if p == SharedUmask || err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return
	}
	at := top
	for _, seg := range strings.Split(rel, string(filepath.Separator)) {
		at = filepath.Join(at, seg)
		_ = p.adjust(at)
	}
}
