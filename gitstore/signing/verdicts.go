package signing

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Verdicts keeps git's verdicts on signed commits across runs, so that a
// signature git checked once (one ssh-keygen per commit) is not checked
// again: a commit's signature never changes, and what git concluded of it
// changes only with the configuration it was checked against. They live
// in .git/reason/signatures/verdicts-<config>, one file per configuration
// digest (the allowed signers' path and content, the ssh program, the
// revocation file): a changed allowed-signers file starts an empty one,
// and the others are removed.
//
// Kept: every ssh verdict (a key that git names by its SHA256
// fingerprint) and every bad signature. Not kept: unsigned commits (git
// answers them without starting any program), a signature that could not
// be checked (E: a missing program or key may be there next time), and
// OpenPGP and X.509 verdicts, which depend on a keyring and its trust
// database that no digest here covers: those are asked of git every time.
//
// Like gitstore.Remembered it is an optimisation, never a source of trust:
// each entry carries an HMAC-SHA256, under a random key kept beside it
// (verdicts.key, mode 0600), of the configuration digest and git's
// fields; an entry that does not match (edited, torn by two appenders,
// copied from another repository or configuration) is ignored and asked
// of git again, so editing the file can only make verification do more
// work.
type Verdicts struct {
	dir, path string
	config    string
	key       []byte
	have      map[string][]string // commit -> git's 8 fields
	add       [][]string
}

// verdictFields is how many fields of format a verdict keeps.
const verdictFields = 8

// OpenVerdicts reads the verdicts kept in the repository whose common git
// directory is commonDir for the configuration whose digest is config. A
// missing or unreadable file keeps nothing.
func OpenVerdicts(commonDir, config string) *Verdicts {
	dir := filepath.Join(commonDir, "reason", "signatures")
	v := &Verdicts{dir: dir, config: config, have: map[string][]string{},
		path: filepath.Join(dir, "verdicts-"+config[:min(len(config), 16)])}
	key, err := os.ReadFile(filepath.Join(dir, "verdicts.key"))
	if err != nil || len(key) != 32 {
		return v // a new key is made when something is saved
	}
	v.key = key
	data, err := os.ReadFile(v.path)
	if err != nil {
		return v
	}
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		parts := strings.Split(string(line), "\x00")
		if len(parts) != verdictFields+1 || !hmac.Equal([]byte(parts[0]), []byte(v.mac(parts[1:]))) {
			continue
		}
		v.have[parts[1]] = parts[1:]
	}
	return v
}

// mac is the hex HMAC of the configuration and fields under the key.
func (v *Verdicts) mac(fields []string) string {
	m := hmac.New(sha256.New, v.key)
	m.Write([]byte(v.config))
	for _, f := range fields {
		m.Write([]byte{0})
		m.Write([]byte(f))
	}
	return hex.EncodeToString(m.Sum(nil))
}

// lookup is git's fields for commit, if kept.
func (v *Verdicts) lookup(commit string) ([]string, bool) {
	if v == nil {
		return nil, false
	}
	f, ok := v.have[commit]
	return f, ok
}

// keep remembers git's fields for one commit when they are worth keeping
// (see Verdicts).
func (v *Verdicts) keep(f []string) {
	if v == nil || len(f) != verdictFields {
		return
	}
	ssh := strings.HasPrefix(f[3], "SHA256:") || strings.HasPrefix(f[5], "SHA256:")
	if f[1] == "N" || f[1] == "E" || (f[1] != "B" && !ssh) {
		return
	}
	for _, s := range f {
		if strings.ContainsAny(s, "\x00\n") {
			return
		}
	}
	if _, ok := v.have[f[0]]; ok {
		return
	}
	v.have[f[0]] = f
	v.add = append(v.add, f)
}

// Save appends the verdicts learned since OpenVerdicts, in one write (a
// write that fails loses only work: they are asked of git again). The
// first save under a configuration removes the files of the others.
func (v *Verdicts) Save() {
	if v == nil || len(v.add) == 0 {
		return
	}
	if err := os.MkdirAll(v.dir, 0o755); err != nil {
		return
	}
	if v.key == nil {
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return
		}
		f, err := os.OpenFile(filepath.Join(v.dir, "verdicts.key"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return // another process made one first: its entries are its own
		}
		_, werr := f.Write(key)
		if cerr := f.Close(); werr != nil || cerr != nil {
			return
		}
		v.key = key
	}
	if _, err := os.Stat(v.path); errors.Is(err, fs.ErrNotExist) {
		old, _ := filepath.Glob(filepath.Join(v.dir, "verdicts-*"))
		for _, p := range old {
			_ = os.Remove(p)
		}
	}
	var buf bytes.Buffer
	buf.WriteByte('\n') // ends a line another writer may have torn
	for _, f := range v.add {
		buf.WriteString(v.mac(f))
		for _, s := range f {
			buf.WriteByte(0)
			buf.WriteString(s)
		}
		buf.WriteByte('\n')
	}
	f, err := os.OpenFile(v.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	_, _ = f.Write(buf.Bytes())
	_ = f.Close()
	v.add = nil
}
