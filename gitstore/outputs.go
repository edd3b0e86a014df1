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
	"strconv"

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
// task: 33 bytes each); lines are appended as parts are seen. Its lines
// "whole N" say how many parts the checks that wrote it asked about (a
// check that asks about more than the largest N appends one). A check
// that asks about half of the largest or more (an output of every task)
// and used fewer than half of the file's lines writes the file again
// with those alone, so the parts of states long gone do not pile up. A smaller output (tasks --open, log --grep) is a view of the
// same parts, a subset of the whole's: it leaves the file as it is, or
// the next output of every task would validate again all it left out;
// only when the file holds 64 times the parts it asked about (outputs of
// a view alone for a long time, its tasks changing) does it write the
// file with its own. The count is not MACed: a wrong one costs only
// validations or a larger file, within those 64 times.

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
	asked  int                // the parts looked up (Known)
	whole  int                // the file's "whole N": parts its first check asked about
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
		if n, ok := bytes.CutPrefix(line, []byte("whole ")); ok {
			if n, err := strconv.Atoi(string(n)); err == nil && n > o.whole {
				o.whole = n
			}
			continue
		}
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
	o.asked++
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

// Save writes what Keep noted: appended to the file, or the file begun
// again with only the lines used when most of its lines were not and the
// check was of the whole or the file holds 64 times what it asked about.
// Failing costs only validations.
func (o *OutputChecks) Save() {
	if o == nil || o.h == nil {
		return
	}
	if n := len(o.known); n > 64 && 2*len(o.used) < n && (2*o.asked >= o.whole || 64*o.asked < n) {
		b := bytes.NewBufferString("whole " + strconv.Itoa(o.asked) + "\n")
		for m := range o.used {
			b.Write(append(hex.AppendEncode(nil, m[:]), '\n'))
		}
		_ = git.MkdirAll(filepath.Dir(o.path), 0o755)
		if git.WriteFile(o.path, b.Bytes(), 0o600, 0, false) == nil {
			CountWritten(b.Len())
		}
		return
	}
	if len(o.fresh) == 0 {
		return
	}
	if o.asked > o.whole {
		o.fresh = append([]byte("whole "+strconv.Itoa(o.asked)+"\n"), o.fresh...)
	}
	_ = git.MkdirAll(filepath.Dir(o.path), 0o755)
	if git.AppendFile(o.path, o.fresh, 0o600, 0, true, o.size) == nil {
		CountWritten(len(o.fresh))
	}
}
