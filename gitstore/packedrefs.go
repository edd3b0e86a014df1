package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// packedRefs is one reading of packed-refs, its records sorted by name.
// A repository with tens of thousands of tasks has a packed-refs of
// megabytes; a command that reads a few refs must not parse it whole for
// each of them. As git does, a lookup is a binary search in the file's
// bytes (git writes the file sorted and says so in its header, the
// "sorted" trait; a file without it is sorted once when read), and one
// reading serves a process while packed-refs is the same file (git
// replaces it by renaming a new file over it, so a rewrite is another
// file).
type packedRefs struct {
	data []byte // records only: "<hash> <name>\n", each maybe followed by "^<peeled>\n" lines
	file fs.FileInfo

	// listed holds list's answers by prefix: a process that lists the
	// task refs again and again (the Reasoning page, each request) while
	// packed-refs is the same file reads its records once.
	listed sync.Map // prefix -> []Ref
}

// packedCache holds the last reading of each repository's packed-refs, by
// path.
var packedCache struct {
	sync.Mutex
	m map[string]*packedRefs
}

// packed returns the current packed-refs, read again only when the file
// is not the one last read (another inode, size or modification time).
func (r *Repo) packed() (*packedRefs, error) {
	path := filepath.Join(r.CommonDir, "packed-refs")
	fi, err := os.Stat(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read packed-refs: %w", err)
	}
	packedCache.Lock()
	last := packedCache.m[path]
	packedCache.Unlock()
	if last != nil && sameFile(last.file, fi) {
		return last, nil
	}
	p, err := readPackedRefs(path)
	if err != nil {
		return nil, err
	}
	packedCache.Lock()
	if packedCache.m == nil {
		packedCache.m = map[string]*packedRefs{}
	}
	packedCache.m[path] = p
	packedCache.Unlock()
	return p, nil
}

func sameFile(a, b fs.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// readPackedRefs reads the file; its identity is taken from the open
// file, so that the bytes and the identity are of one file even when
// packed-refs is replaced meanwhile.
func readPackedRefs(path string) (*packedRefs, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &packedRefs{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read packed-refs: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read packed-refs: %w", err)
	}
	data, unmap, err := mapFile(f, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("read packed-refs: %w", err)
	}
	countShared(0)
	p := &packedRefs{data: data, file: fi}
	if unmap != nil {
		runtime.AddCleanup(p, func(unmap func()) { unmap() }, unmap)
	}
	sorted := false
	if bytes.HasPrefix(p.data, []byte("# pack-refs with:")) {
		header, rest, _ := bytes.Cut(p.data, []byte{'\n'})
		// (p.data may be mapped read-only: nothing is appended to it.)
		sorted = bytes.Contains(header, []byte(" sorted ")) || bytes.HasSuffix(header, []byte(" sorted"))
		p.data = rest
	}
	if !sorted {
		if err := p.sort(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// sort puts the records in name order, the first of equal names first.
func (p *packedRefs) sort() error {
	var recs [][]byte
	for at := 0; at < len(p.data); {
		end := p.recordEnd(at, len(p.data))
		if _, _, err := p.record(at); err != nil {
			return err
		}
		if p.data[at] != '#' && p.data[at] != '^' {
			recs = append(recs, p.data[at:end])
		}
		at = end
	}
	name := func(rec []byte) []byte {
		line, _, _ := bytes.Cut(rec, []byte{'\n'})
		return bytes.TrimRight(line, "\r")[41:]
	}
	slices.SortStableFunc(recs, func(a, b []byte) int { return bytes.Compare(name(a), name(b)) })
	var out []byte
	for _, r := range recs {
		out = append(out, r...)
		if r[len(r)-1] != '\n' {
			out = append(out, '\n')
		}
	}
	p.data = out
	return nil
}

// lineEnd is the offset just past the line starting at at.
func (p *packedRefs) lineEnd(at int) int {
	if i := bytes.IndexByte(p.data[at:], '\n'); i >= 0 {
		return at + i + 1
	}
	return len(p.data)
}

// recordEnd is the offset just past the record holding offset mid (its
// line and the peeled lines after it), at most hi.
func (p *packedRefs) recordEnd(mid, hi int) int {
	e := min(p.lineEnd(mid), hi)
	for e < hi && p.data[e] == '^' {
		e = min(p.lineEnd(e), hi)
	}
	return e
}

// recordStart is the start of the record holding offset mid, at least lo.
func (p *packedRefs) recordStart(lo, mid int) int {
	s := lo + bytes.LastIndexByte(p.data[lo:mid], '\n') + 1
	for s > lo && p.data[s] == '^' {
		s = lo + bytes.LastIndexByte(p.data[lo:s-1], '\n') + 1
	}
	return s
}

// record reads the record line at at: its name and value ("" for a line
// that names no ref: a comment or a peeled value).
func (p *packedRefs) record(at int) (name, hash []byte, err error) {
	line := p.data[at:p.lineEnd(at)]
	costs.sharedBytes.Add(int64(len(line))) // what a command looked at of the file
	line = bytes.TrimRight(line, "\r\n")
	if len(line) == 0 || line[0] == '#' || line[0] == '^' {
		return nil, nil, nil
	}
	if len(line) < 42 || line[40] != ' ' || !isHexBytes(line[:40]) {
		return nil, nil, fmt.Errorf("read packed-refs: unexpected line %q", line)
	}
	return line[41:], line[:40], nil
}

func isHexBytes(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// seek is the offset of the first record whose name is not below name
// (len(data) when there is none), and that record's name and value.
func (p *packedRefs) seek(name string) (int, error) {
	lo, hi := 0, len(p.data)
	for lo < hi {
		mid := lo + (hi-lo)/2
		rec := p.recordStart(lo, mid)
		n, _, err := p.record(rec)
		if err != nil {
			return 0, err
		}
		switch c := bytes.Compare(n, []byte(name)); {
		case n == nil || c < 0: // a stray comment sorts nowhere: passed over
			lo = p.recordEnd(mid, hi)
		case c > 0:
			hi = rec
		default:
			return rec, nil
		}
	}
	return lo, nil
}

// lookup returns name's value, "" when absent.
func (p *packedRefs) lookup(name string) (string, error) {
	// The names and the value compared and copied are the mapping's
	// bytes: p, whose cleanup unmaps them, is kept until they are read
	// (packedCache holds it only until packed-refs is read again).
	defer runtime.KeepAlive(p)
	at, err := p.seek(name)
	if err != nil || at >= len(p.data) {
		return "", err
	}
	n, h, err := p.record(at)
	if err != nil || string(n) != name {
		return "", err
	}
	return string(bytes.ToLower(h)), nil
}

// list returns the refs whose name starts with prefix, in name order,
// read once per prefix; the slice is shared and must not be changed.
func (p *packedRefs) list(prefix string) ([]Ref, error) {
	if l, ok := p.listed.Load(prefix); ok {
		return l.([]Ref), nil
	}
	// Every name and hash goes into one string the refs are cut from (a
	// string or two per ref was most of what listing 20,000 refs cost),
	// made at a size no smaller than they need: the bytes of the records
	// under prefix, found by two searches (the names sort together), and
	// as many refs as those bytes have lines. Memory is written once, not
	// grown by doubling and copied, and the records are read in one pass.
	start, err := p.seek(prefix)
	if err != nil {
		return nil, err
	}
	end := len(p.data)
	if after, ok := prefixEnd(prefix); ok {
		if end, err = p.seek(after); err != nil {
			return nil, err
		}
	}
	end = max(end, start)
	lines := bytes.Count(p.data[start:end], []byte{'\n'}) + 1
	var b strings.Builder
	b.Grow(end - start)
	ends := make([]int, 0, 2*lines) // each ref's name end and hash end in b
	if err := p.withPrefixBytes(prefix, func(name, hash []byte) bool {
		b.Write(name)
		ends = append(ends, b.Len())
		if isLowerHex(hash) {
			b.Write(hash)
		} else {
			for _, c := range hash {
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				b.WriteByte(c)
			}
		}
		ends = append(ends, b.Len())
		return true
	}); err != nil {
		return nil, err
	}
	if len(ends) == 0 {
		p.listed.Store(prefix, []Ref(nil))
		return nil, nil
	}
	all := b.String()
	refs := make([]Ref, len(ends)/2)
	at := 0
	for i := range refs {
		name, hash := ends[2*i], ends[2*i+1]
		refs[i] = Ref{all[at:name], all[name:hash]}
		at = hash
	}
	p.listed.Store(prefix, refs)
	return refs, nil
}

// prefixEnd is the least name above every name that starts with prefix
// (false: there is none).
func prefixEnd(prefix string) (string, bool) {
	for i := len(prefix) - 1; i >= 0; i-- {
		if prefix[i] < 0xff {
			return prefix[:i] + string([]byte{prefix[i] + 1}), true
		}
	}
	return "", false
}

// isLowerHex reports whether b is hexadecimal digits in lower case, as
// git writes them.
func isLowerHex(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// withPrefix calls fn for each ref whose name starts with prefix, in name
// order, until fn returns false.
func (p *packedRefs) withPrefix(prefix string, fn func(name, hash string) bool) error {
	return p.withPrefixBytes(prefix, func(name, hash []byte) bool { return fn(string(name), strings.ToLower(string(hash))) })
}

// withPrefixBytes is withPrefix handing fn the file's own bytes (the
// hash as written), which fn must not keep.
func (p *packedRefs) withPrefixBytes(prefix string, fn func(name, hash []byte) bool) error {
	defer runtime.KeepAlive(p) // fn reads the mapping's bytes, as lookup
	at, err := p.seek(prefix)
	if err != nil {
		return err
	}
	for ; at < len(p.data); at = p.lineEnd(at) {
		n, h, err := p.record(at)
		if err != nil {
			return err
		}
		if n == nil {
			continue
		}
		if !bytes.HasPrefix(n, []byte(prefix)) || !fn(n, h) {
			return nil
		}
	}
	return nil
}

// packedID names the packed-refs file as it is now ("none" when there is
// none): its identity (fileIdentity), size and modification time. git
// replaces the file by renaming a new one over it, so any rewrite gives
// another name; a cache keyed by it is stale once packed-refs changes.
func (r *Repo) packedID() (string, error) {
	fi, err := os.Stat(filepath.Join(r.CommonDir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return "none", nil
	}
	if err != nil {
		return "", fmt.Errorf("read packed-refs: %w", err)
	}
	return fmt.Sprintf("%s %d %d", fileIdentity(fi), fi.Size(), fi.ModTime().UnixNano()), nil
}

// readFile reads up to size bytes of f.
func readFile(f *os.File, size int64) ([]byte, error) {
	data := make([]byte, max(size, 0))
	n, err := io.ReadFull(f, data)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return data[:n], nil
}
