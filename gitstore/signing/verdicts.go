package signing

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"git-reason/gitstore/git"
)

// Verdicts keeps git's verdicts on signed commits across runs, so that a
// signature git checked once (one or two program runs per commit) is not
// checked again: a commit's signature never changes, and what git
// concluded of it changes only with what it was checked against. They
// live in .git/reason/signatures/, one file per format and configuration
// digest, so a changed configuration starts an empty file and the
// format's older files are removed:
//
//   - verdicts-<config>: ssh verdicts (a key git names by its SHA256
//     fingerprint) and every bad signature, under the digest of the
//     allowed signers' path and content, the ssh program and the
//     revocation file (OpenVerdicts' config);
//   - verdicts-openpgp-<digest>, verdicts-x509-<digest>: OpenPGP and
//     X.509 verdicts, under Keyrings' digest of what gpg or gpgsm judges
//     by (the program, its listing of the keyring with each key's
//     validity, which keys have expired by now; for X.509 the day as
//     well, for revocations published in a CRL). An OpenPGP signature
//     that carries its own expiry date is not kept as good.
//
// Not kept: unsigned commits (git answers them without starting any
// program) and a signature that could not be checked (E: a missing
// program or key may be there next time).
//
// Like gitstore.Remembered it is an optimisation, never a source of trust:
// each entry carries an HMAC-SHA256, under a random key kept beside it
// (verdicts.key, mode 0600), of the format, the configuration digest and
// git's fields; an entry that does not match (edited, torn by two
// appenders, copied from another repository or configuration) is ignored
// and asked of git again, so editing a file can only make verification
// do more work.
type Verdicts struct {
	dir string
	key []byte
	ssh *verdictFile
	// Keyring returns the digest of what the format's program judges
	// signatures by (Keyrings.Digest); nil, or an error, keeps no
	// verdict of the format.
	Keyring func(format string) (string, error)
	others  map[string]*verdictFile // format -> its file; nil: none
}

// verdictFile is one file of verdicts: those of one format under one
// configuration digest.
type verdictFile struct {
	path, glob string
	config     string              // what the MAC covers beside the fields
	have       map[string][]string // commit -> git's 8 fields
	add        [][]string
}

// verdictFields is how many fields of format a verdict keeps.
const verdictFields = 8

// OpenVerdicts reads the verdicts kept in the repository whose common git
// directory is commonDir, the ssh ones for the configuration whose digest
// is config. A missing or unreadable file keeps nothing.
func OpenVerdicts(commonDir, config string) *Verdicts {
	dir := filepath.Join(commonDir, "reason", "signatures")
	v := &Verdicts{dir: dir, others: map[string]*verdictFile{}}
	if key, err := os.ReadFile(filepath.Join(dir, "verdicts.key")); err == nil && len(key) == 32 {
		v.key = key
	}
	v.ssh = v.open("verdicts-"+config[:min(len(config), 16)], "verdicts-"+strings.Repeat("?", min(len(config), 16)), config)
	return v
}

// open reads one file of verdicts, keeping the entries whose MAC holds.
func (v *Verdicts) open(name, glob, config string) *verdictFile {
	f := &verdictFile{path: filepath.Join(v.dir, name), glob: filepath.Join(v.dir, glob), config: config, have: map[string][]string{}}
	if v.key == nil {
		return f // a new key is made when something is saved
	}
	data, err := os.ReadFile(f.path)
	if err != nil {
		return f
	}
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		parts := strings.Split(string(line), "\x00")
		if len(parts) != verdictFields+1 || !hmac.Equal([]byte(parts[0]), []byte(v.mac(f.config, parts[1:]))) {
			continue
		}
		f.have[parts[1]] = parts[1:]
	}
	return f
}

// other is the file of format's verdicts under its keyring's digest; nil
// when the digest cannot be had.
func (v *Verdicts) other(format string) *verdictFile {
	if v == nil || v.Keyring == nil {
		return nil
	}
	if f, ok := v.others[format]; ok {
		return f
	}
	var f *verdictFile
	if d, err := v.Keyring(format); err == nil && d != "" {
		f = v.open("verdicts-"+format+"-"+d[:min(len(d), 16)], "verdicts-"+format+"-*", format+"\x00"+d)
	}
	v.others[format] = f
	return f
}

// mac is the hex HMAC of the configuration and fields under the key.
func (v *Verdicts) mac(config string, fields []string) string {
	m := hmac.New(sha256.New, v.key)
	m.Write([]byte(config))
	for _, f := range fields {
		m.Write([]byte{0})
		m.Write([]byte(f))
	}
	return hex.EncodeToString(m.Sum(nil))
}

// lookup is git's fields for commit among the ssh verdicts and bad
// signatures, if kept.
func (v *Verdicts) lookup(commit string) ([]string, bool) {
	if v == nil {
		return nil, false
	}
	f, ok := v.ssh.have[commit]
	return f, ok
}

// lookupOther is git's fields for commit, signed in format (openpgp,
// x509), if kept.
func (v *Verdicts) lookupOther(format, commit string) ([]string, bool) {
	f := v.other(format)
	if f == nil {
		return nil, false
	}
	fields, ok := f.have[commit]
	return fields, ok
}

// Kept reports whether git's verdict on commit, signed in format
// (openpgp, x509), is kept under the format's keyring digest (Keyring):
// it is one that holds for as long as that digest does.
func (v *Verdicts) Kept(format, commit string) bool {
	_, ok := v.lookupOther(format, commit)
	return ok
}

// keep remembers git's fields for one commit when they are worth keeping
// (see Verdicts): format is the signature's ("" when unknown), and
// expires says an OpenPGP signature carries its own expiry date.
func (v *Verdicts) keep(f []string, format string, expires bool) {
	if v == nil || len(f) != verdictFields || f[1] == "N" || f[1] == "E" {
		return
	}
	for _, s := range f {
		if strings.ContainsAny(s, "\x00\n") {
			return
		}
	}
	ssh := strings.HasPrefix(f[3], "SHA256:") || strings.HasPrefix(f[5], "SHA256:")
	var to *verdictFile
	switch {
	case f[1] == "B" || (ssh && (format == FormatSSH || format == "")):
		to = v.ssh
	case format == FormatOpenPGP && !(expires && f[1] == "G"), format == FormatX509:
		to = v.other(format)
	}
	if to == nil {
		return
	}
	if _, ok := to.have[f[0]]; ok {
		return
	}
	to.have[f[0]] = f
	to.add = append(to.add, f)
}

// Save appends the verdicts learned since OpenVerdicts, one write per
// file (a write that fails loses only work: they are asked of git
// again). The first save under a configuration removes the format's
// files of the others.
func (v *Verdicts) Save() {
	if v == nil {
		return
	}
	files := []*verdictFile{v.ssh}
	for _, f := range v.others {
		if f != nil {
			files = append(files, f)
		}
	}
	pending := false
	for _, f := range files {
		pending = pending || len(f.add) > 0
	}
	if !pending || git.MkdirAll(v.dir, 0o755) != nil || !v.haveKey() {
		return
	}
	for _, f := range files {
		v.save(f)
	}
}

// haveKey makes the MAC key when there is none yet (or the file holds
// none: a crash of a release before this one could leave it empty), under
// its lock (git.MakeKey), giving way to another process that holds it.
func (v *Verdicts) haveKey() bool {
	if v.key != nil {
		return true
	}
	key, made, err := git.MakeKey(filepath.Join(v.dir, "verdicts.key"), 32, 0)
	if err != nil || !made {
		return false // another process made one first: its entries are its own
	}
	v.key = key
	return true
}

func (v *Verdicts) save(vf *verdictFile) {
	if len(vf.add) == 0 {
		return
	}
	if _, err := os.Stat(vf.path); errors.Is(err, fs.ErrNotExist) {
		old, _ := filepath.Glob(vf.glob)
		for _, p := range old {
			_ = os.Remove(p)
		}
	}
	var buf bytes.Buffer
	buf.WriteByte('\n') // ends a line another writer may have torn
	for _, f := range vf.add {
		buf.WriteString(v.mac(vf.config, f))
		for _, s := range f {
			buf.WriteByte(0)
			buf.WriteString(s)
		}
		buf.WriteByte('\n')
	}
	f, err := os.OpenFile(vf.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	if _, err := f.Write(buf.Bytes()); err == nil {
		_ = git.AdjustCreated(vf.path) // a shared repository's, as git's own files
	}
	_ = f.Close()
	vf.add = nil
}
