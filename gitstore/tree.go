package gitstore

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"git-reason/record"
)

// The one tree reader. Every reader of a task (load, replay, the indexes,
// reuse, verify, and the surfaces above them) reads a commit's trees
// through rootRecords and parseTree, so that no two of them can see one
// tree differently. They refuse what git's fsck refuses (duplicate names,
// entries out of git's order, names that are empty or hold '/', odd
// modes) and everything the writer never writes: a root tree holding more
// than records/, and a records/ entry that is not a regular file named
// <clock>-<kind>-<id>.json.
//
// Mode 100755 is refused too: the writer writes 100644 only, git reads
// 100755 as the same bytes, and a second spelling of one record would give
// one history two trees (and a merge's mode rewrite a record change that
// no record made).

// errBadTree is a tree no reader of a task reads.
var errBadTree = errors.New("not a tree of a task")

// rootRecords returns the records/ tree hash a commit's root tree names:
// "" for an empty root, which holds no records. Any other root is refused.
func rootRecords(h string, data []byte) (string, error) {
	if len(data) == 0 {
		return "", nil
	}
	const entry = "40000 " + RecordsDir + "\x00"
	if len(data) != len(entry)+20 || string(data[:len(entry)]) != entry {
		return "", fmt.Errorf("read tree %s: %w: a task's root tree holds only %s/ (mode 40000)", h, errBadTree, RecordsDir)
	}
	return hex.EncodeToString(data[len(entry):]), nil
}

// rawTree is a records/ tree as read: its bytes and where each entry's
// name and hash are, with no copy of either. Its entries passed
// parseTree's checks, so they are in strictly ascending byte order.
type rawTree struct {
	data []byte
	ents []treeEnt
}

type treeEnt struct {
	name, end int32 // name is data[name:end-21], the hash data[end-20:end]
}

func (t *rawTree) name(i int) []byte { e := t.ents[i]; return t.data[e.name : e.end-21] }
func (t *rawTree) hash(i int) []byte { e := t.ents[i]; return t.data[e.end-20 : e.end] }

// parseTree reads a records/ tree, keeping offsets only, and refuses it
// unless every entry is "100644 <record name>" in strictly ascending
// order (git's order for files; equal names are duplicates). like, when
// not nil, is a tree read before whose leading bytes the new one likely
// shares: the entries wholly inside the bytes both share are the same
// entries, checked already, and are taken without parsing them again.
func parseTree(h string, data []byte, like *rawTree) (*rawTree, error) {
	t := &rawTree{data: data}
	i, copied := 0, 0
	if like != nil && len(like.ents) > 0 {
		p := commonPrefix(like.data, data)
		k := sort.Search(len(like.ents), func(j int) bool { return int(like.ents[j].end) > p })
		if k > 0 {
			t.ents = make([]treeEnt, k, len(like.ents)+1)
			copy(t.ents, like.ents[:k])
			i, copied = int(t.ents[k-1].end), k
		}
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("read tree %s: %w: %s", h, errBadTree, fmt.Sprintf(format, args...))
	}
	for i < len(data) {
		sp := bytes.IndexByte(data[i:], ' ')
		if sp < 0 {
			return nil, bad("missing mode terminator")
		}
		mode := data[i : i+sp]
		name := i + sp + 1
		nul := bytes.IndexByte(data[name:], 0)
		if nul < 0 {
			return nil, bad("missing filename terminator")
		}
		end := name + nul + 1 + 20
		if end > len(data) {
			return nil, bad("truncated object id")
		}
		if end > math.MaxInt32 {
			return nil, bad("too large")
		}
		n := data[name : name+nul]
		// The name as a terminal may show it, bounded, made only for an
		// error.
		shown := func(n []byte) string { return record.PrintableName(string(n)) }
		switch {
		case string(mode) != "100644":
			return nil, bad("%s/%s has mode %s; a record is a regular file (100644)", RecordsDir, shown(n), shown(mode))
		case !recordName(n):
			return nil, bad("%s/%s is not a record's name (<clock>-<kind>-<id>.json)", RecordsDir, shown(n))
		}
		t.ents = append(t.ents, treeEnt{name: int32(name), end: int32(end)})
		if k := len(t.ents); k > 1 {
			switch c := bytes.Compare(t.name(k-2), n); {
			case c == 0:
				return nil, bad("%s/%s is in the tree twice", RecordsDir, shown(n))
			case c > 0:
				return nil, bad("%s/%s comes after %s/%s, out of git's order", RecordsDir, shown(n), RecordsDir, shown(t.name(k-2)))
			}
		}
		i = end
	}
	countTreeEntries(len(t.ents) - copied)
	return t, nil
}

// recordName reports whether b has the shape of a record's entry name,
// <clock>-<kind>-<id>.json as record.Record.FileName writes it: a clock of
// 10 to 19 digits, a known kind, a ULID. Whether the record inside agrees
// with its name is the record's check (record.ReadStored).
func recordName(b []byte) bool {
	d := 0
	for d < len(b) && b[d] >= '0' && b[d] <= '9' {
		d++
	}
	if d < 10 || d > 19 || d == len(b) || b[d] != '-' {
		return false
	}
	rest := b[d+1:]
	dash := bytes.IndexByte(rest, '-')
	if dash < 0 {
		return false
	}
	if _, err := record.ParseKind(string(rest[:dash])); err != nil {
		return false
	}
	id, ok := bytes.CutSuffix(rest[dash+1:], []byte(".json"))
	if !ok || len(id) != 26 {
		return false
	}
	for _, c := range id {
		// Crockford's base 32, upper case: no I, L, O or U.
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z') || c == 'I' || c == 'L' || c == 'O' || c == 'U' {
			return false
		}
	}
	return true
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	const chunk = 4096
	i := 0
	for i+chunk <= n && bytes.Equal(a[i:i+chunk], b[i:i+chunk]) {
		i += chunk
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// treeOf is the records/ tree whose entries are files (entry name ->
// blob hash, in hex) as git writes it, with its entries placed as
// parseTree places them, for a tree this package read and checked
// before and kept (a saved state's: saved.go), which a tree read later
// is parsed and compared against (parseTree's like, diffTrees): the
// entries both share are then neither parsed nor compared again. nil
// when a name or hash is not one a tree holds. It is no object (nothing
// writes it): it is the tree reader's view of a tree, laid out here at
// three allocations where go-git's encoder, which encodes every tree this
// package writes, formats each entry with fmt.Fprintf (six allocations an
// entry: BenchmarkKeptTree, and reliability's TestStatusCounts bounds what
// a status after a record allocates a record). TestKeptTreeAsGit holds it
// to git mktree's bytes.
func treeOf(files []cacheEntry) *rawTree {
	size := 0
	for _, e := range files {
		size += len("100644 ") + len(e.Name) + 1 + 20
	}
	t := &rawTree{data: make([]byte, 0, size), ents: make([]treeEnt, 0, len(files))}
	for i, e := range files {
		if len(e.Blob) != 40 || strings.IndexByte(e.Name, 0) >= 0 || (i > 0 && files[i-1].Name >= e.Name) || size > math.MaxInt32 {
			return nil
		}
		t.data = append(append(t.data, "100644 "...), e.Name...)
		name := len(t.data) - len(e.Name)
		t.data = append(t.data, 0)
		var x [40]byte
		var h [20]byte
		copy(x[:], e.Blob)
		if _, err := hex.Decode(h[:], x[:]); err != nil {
			return nil
		}
		t.data = append(t.data, h[:]...)
		t.ents = append(t.ents, treeEnt{name: int32(name), end: int32(len(t.data))})
	}
	return t
}

// files is the tree as a map of entry name to blob hash.
func (t *rawTree) files() map[string]string {
	out := make(map[string]string, len(t.ents))
	for i := range t.ents {
		out[string(t.name(i))] = hex.EncodeToString(t.hash(i))
	}
	return out
}

// diffTrees compares two trees: every name whose hash differs, with b's
// hash, or "" when b lacks it.
func diffTrees(a, b *rawTree) map[string]string {
	out := map[string]string{}
	// The entries wholly inside the bytes both trees start with are equal.
	p := commonPrefix(a.data, b.data)
	i := sort.Search(len(a.ents), func(k int) bool { return int(a.ents[k].end) > p })
	j := i
	for i < len(a.ents) || j < len(b.ents) {
		cmp := 0
		switch {
		case i == len(a.ents):
			cmp = 1
		case j == len(b.ents):
			cmp = -1
		default:
			cmp = bytes.Compare(a.name(i), b.name(j))
		}
		switch {
		case cmp < 0:
			out[string(a.name(i))] = ""
			i++
		case cmp > 0:
			out[string(b.name(j))] = hex.EncodeToString(b.hash(j))
			j++
		default:
			if !bytes.Equal(a.hash(i), b.hash(j)) {
				out[string(b.name(j))] = hex.EncodeToString(b.hash(j))
			}
			i++
			j++
		}
	}
	return out
}
