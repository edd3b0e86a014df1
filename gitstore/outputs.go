package gitstore

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"os"
	"path/filepath"

	"git-reason/gitstore/git"
	"git-reason/record"
	"git-reason/schemas"
)

// The parts of --json outputs this build saw valid (schemas.CheckOutput)
// are kept per published document, .git/reason/outputs.d/<document>, a
// line a part: the first 16 bytes, in hex, of an HMAC-SHA256 under the
// repository's key (repoKey) of what validating it meant (the record
// schemas and the library, record.SchemasDigest, and the document's own
// bytes), the list the part stands in and its text. A line edited,
// copied from another repository or written by a build whose document or
// library differs matches nothing, and a part that matches nothing is
// validated again: losing the file costs one validation of each part.
//
// The file is read whole (a line a task, at most, for the lists of every
// task: 33 bytes each); lines are appended as parts are seen, and when
// fewer than half of its lines were used by a check, the file is written
// again with those alone, so the parts of states long gone do not pile up.

// OutputChecks is the memo of one published document's outputs.
type OutputChecks struct {
	path   string
	h      hash.Hash // the HMAC under the repository's key, reused
	prefix []byte    // what the MACs cover before a part's list and text
	sum    []byte
	known  map[outputMAC]bool // the file's lines
	size   int64              // the file's length when read
	used   map[outputMAC]bool // the lines this process matched or added
	fresh  []byte             // lines to append
}

// outputMAC is a line of the file, decoded.
type outputMAC [16]byte

// OutputChecks returns the memo of the outputs of document (one of
// schemas.Outputs), nil when the repository has no key yet or the build
// does not say what validating means (record.SchemasDigest: a test
// binary), and then every part is validated.
func (s *Store) OutputChecks(document string) *OutputChecks {
	key := s.memoKey()
	digest := record.SchemasDigest()
	if key == nil || digest == "" {
		return nil
	}
	doc, err := schemas.FS.ReadFile(document)
	if err != nil {
		return nil
	}
	sum := sha256.Sum256(doc)
	return &OutputChecks{
		path:   filepath.Join(s.reasonDir(), "outputs.d", document),
		h:      hmac.New(sha256.New, key),
		prefix: []byte("git-reason output v1\x00" + digest + "\x00" + document + "\x00" + hex.EncodeToString(sum[:]) + "\x00"),
	}
}

// read reads the file, once.
func (o *OutputChecks) read() {
	if o.known != nil {
		return
	}
	o.known, o.used = map[outputMAC]bool{}, map[outputMAC]bool{}
	data, err := os.ReadFile(o.path)
	if err != nil {
		return
	}
	countShared(len(data))
	o.size = int64(len(data))
	for len(data) > 0 {
		line, rest, _ := bytes.Cut(data, []byte{'\n'})
		data = rest
		var m outputMAC
		if n, err := hex.Decode(m[:], line); err == nil && n == len(m) {
			o.known[m] = true
		}
	}
}

func (o *OutputChecks) mac(list string, part []byte) outputMAC {
	o.h.Reset()
	o.h.Write(o.prefix)
	io.WriteString(o.h, list)
	o.h.Write([]byte{0})
	o.h.Write(part)
	o.sum = o.h.Sum(o.sum[:0])
	return outputMAC(o.sum[:16])
}

// Known reports whether part, of list, was seen valid (never, for a nil
// memo).
func (o *OutputChecks) Known(list string, part []byte) bool {
	if o == nil {
		return false
	}
	o.read()
	m := o.mac(list, part)
	if o.known[m] {
		o.used[m] = true
		return true
	}
	return false
}

// Keep notes part, of list, as seen valid (Save writes it).
func (o *OutputChecks) Keep(list string, part []byte) {
	if o == nil {
		return
	}
	o.read()
	m := o.mac(list, part)
	if !o.known[m] && !o.used[m] {
		o.fresh = append(hex.AppendEncode(o.fresh, m[:]), '\n')
	}
	o.used[m] = true
}

// Save writes what Keep noted: appended to the file, or the file written
// again with only the lines used when most of its lines were not. Failing
// costs only validations.
func (o *OutputChecks) Save() {
	if o == nil || o.known == nil {
		return
	}
	if len(o.known) > 64 && 2*len(o.used) < len(o.known) {
		var b bytes.Buffer
		for m := range o.used {
			b.Write(append(hex.AppendEncode(nil, m[:]), '\n'))
		}
		_ = os.MkdirAll(filepath.Dir(o.path), 0o755)
		if git.WriteFile(o.path, b.Bytes(), 0o600, 0, false) == nil {
			CountWritten(b.Len())
		}
		return
	}
	if len(o.fresh) == 0 {
		return
	}
	_ = os.MkdirAll(filepath.Dir(o.path), 0o755)
	if git.AppendFile(o.path, o.fresh, 0o600, 0, true, o.size) == nil {
		CountWritten(len(o.fresh))
	}
}
