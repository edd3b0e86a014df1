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
)

// The parts of --json outputs this build saw valid (schemas.Output.Check)
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
	store  *Store
	name   string // the document's
	doc    []byte
	digest string // record.SchemasDigest
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

// OutputChecks returns the memo of the outputs of the document name, doc;
// nil when the build does not say what validating means
// (record.SchemasDigest: a test binary), and then every part is
// validated, as when the repository has no key yet. Nothing is read
// before the memo is asked.
func (s *Store) OutputChecks(name string, doc []byte) *OutputChecks {
	digest := record.SchemasDigest()
	if digest == "" {
		return nil
	}
	return &OutputChecks{store: s, name: name, doc: doc, digest: digest}
}

// read reads the repository's key and the file, once; without a key
// nothing is known, and nothing is saved.
func (o *OutputChecks) read() {
	if o.known != nil {
		return
	}
	o.known, o.used = map[outputMAC]bool{}, map[outputMAC]bool{}
	key := o.store.memoKey()
	if key == nil {
		return
	}
	o.h = hmac.New(sha256.New, key)
	sum := sha256.Sum256(o.doc)
	o.prefix = []byte("git-reason output v1\x00" + o.digest + "\x00" + o.name + "\x00" + hex.EncodeToString(sum[:]) + "\x00")
	o.path = filepath.Join(o.store.reasonDir(), "outputs.d", o.name)
	data, err := os.ReadFile(o.path)
	if err != nil {
		return
	}
	countShared(len(data))
	o.size = int64(len(data))
	for len(data) > 0 {
		line, rest, _ := bytes.Cut(data, []byte{'\n'})
		data = rest
		// A line of any other length is not one (hex.Decode writes
		// past m for a longer one): a line cut by a crash and joined
		// with the next, or edited.
		var m outputMAC
		if len(line) != hex.EncodedLen(len(m)) {
			continue
		}
		if _, err := hex.Decode(m[:], line); err == nil {
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
	if o.read(); o.h == nil {
		return false
	}
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
	if o.read(); o.h == nil {
		return
	}
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
	if o == nil || o.h == nil {
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
