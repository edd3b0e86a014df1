package gitstore

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// termsMagic starts .git/reason/search.terms; its number changes with the
// file's shape.
const termsMagic = "git reason search terms 1\n"

// minTerm is the length in bytes of a term: a query shorter than it is
// answered by reading every text.
const minTerm = 3

// The terms of the search index (.git/reason/search.terms) answer a query
// without reading every task's texts: for each term (three bytes of a
// text in lower case, strings.ToLower) the tasks whose texts hold it, in
// the search file's order. A text that contains a query in any case
// holds each of the query's terms, so the tasks holding all of them are
// the only ones whose texts are asked; the query's own match decides, as
// it does over the whole file: the same hits, the same order.
//
// The file is made from one version of the search file and says which:
// that file's header (the task refs it was current for) and length. While
// they are the search file's, a task's block is found at the offset the
// terms give. When the search file moved on (a record written, a pull),
// the terms still hold for the tasks whose head did not move: their blocks
// are found by stepping through the search file's task lines, and the
// tasks that moved are asked directly, until they are more than
// staleTerms of them and the terms are made again.
//
// Its shape: termsMagic; "<length of the header> <length of the search
// body> <tasks> <terms> <postings> <length of the names>\n"; the header;
// then little-endian uint32s: per task its block's offset and length in
// the body; per term, sorted, the term (its three bytes, the first
// highest), where its postings start and how many there are; the
// postings (task numbers, ascending within a term); then per task a line
// "<task>\t<head>\n".
type terms struct {
	header  string
	bodyLen int
	n, m    int
	blocks  []byte // n × (offset, length)
	table   []byte // m × (term, start, count)
	posts   []byte // uint32 task numbers
	names   []byte // n lines "<task>\t<head>\n"
}

// staleTerms is how many tasks may have moved since the terms were made
// before a query makes them again.
func staleTerms(tasks int) int { return max(64, tasks/16) }

// usesTerms reports whether a query for lit can be answered from the
// terms: lit holds a whole term and is one text line's worth of UTF-8.
func usesTerms(lit string) bool {
	return len(lit) >= minTerm && !strings.ContainsAny(lit, "\t\n\r") && utf8.ValidString(lit)
}

// searchTerms answers a query for texts containing lit (in any case: the
// terms are lower case) from the terms of body, which is current for the
// refs of header ("" when it is not); ok is false when the terms cannot
// answer it (they do not read or are not made: body is then read whole).
func (x Index) searchTerms(body []byte, header, lit string, match func(string) bool) ([]SearchHit, bool) {
	path := filepath.Join(x.Store.Repo.CommonDir, "reason", "search.terms")
	data, unmap, err := mapShared(path)
	var t *terms
	if err == nil {
		defer unmap()
		t, _ = parseTerms(data)
	}
	switch {
	case t != nil && header != "" && t.header == header && t.bodyLen == len(body):
		if found, ok := t.lookup(lit, nil); ok {
			if dense(len(found), t.n) {
				return nil, false
			}
			return scanBlocks(body, found, match)
		}
	case t != nil:
		offsets, moved, ok := t.follow(body)
		if ok && (len(moved) <= staleTerms(t.n) || header == "") {
			found, ok := t.lookup(lit, offsets)
			if !ok || dense(len(found)+len(moved), t.n) {
				return nil, false
			}
			return scanBlocks(body, mergeSpans(found, moved), match)
		}
	}
	if header == "" {
		return nil, false // terms of a body that is not current would be made again at once
	}
	data, t = makeTerms(body, header)
	if t == nil {
		return nil, false
	}
	_ = writeFileAtomic(path, data) // a cache that cannot be written is made again next time
	if found, ok := t.lookup(lit, nil); ok && !dense(len(found), t.n) {
		return scanBlocks(body, found, match)
	}
	return nil, false
}

// dense reports whether a query whose terms n of tasks hold is better
// answered by one scan of the whole file (scanFor steps from one line
// holding the literal to the next; asking each block costs more once
// they are many).
func dense(n, tasks int) bool { return n > max(64, tasks/8) }

// span is a task's block in the search body.
type span struct{ off, len int }

// scanBlocks is scanSearch over the blocks of body, counting what it
// reads; ok is false when one is not a task's block (terms that do not
// belong to body).
func scanBlocks(body []byte, blocks []span, match func(string) bool) (out []SearchHit, ok bool) {
	for _, b := range blocks {
		if b.off+b.len > len(body) || !bytes.HasPrefix(body[b.off:], []byte("T\t")) {
			return nil, false
		}
		countSearchBlock(b.len)
		out = scanSearch(out, string(body[b.off:b.off+b.len]), match)
	}
	return out, true
}

// mergeSpans merges two lists of spans sorted by offset.
func mergeSpans(a, b []span) []span {
	out := append(slices.Clip(a), b...)
	slices.SortFunc(out, func(x, y span) int { return x.off - y.off })
	return out
}

func parseTerms(data []byte) (*terms, error) {
	rest, ok := bytes.CutPrefix(data, []byte(termsMagic))
	if !ok {
		return nil, fmt.Errorf("not a terms file")
	}
	line, rest, ok := bytes.Cut(rest, []byte{'\n'})
	f := strings.Fields(string(line))
	if !ok || len(f) != 6 {
		return nil, fmt.Errorf("no sizes")
	}
	var v [6]int
	for i, s := range f {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > math.MaxUint32 {
			return nil, fmt.Errorf("bad size %q", s)
		}
		v[i] = n
	}
	headerLen, bodyLen, n, m, posts, namesLen := v[0], v[1], v[2], v[3], v[4], v[5]
	if len(rest) != headerLen+8*n+12*m+4*posts+namesLen {
		return nil, fmt.Errorf("sizes do not add up")
	}
	t := &terms{header: string(rest[:headerLen]), bodyLen: bodyLen, n: n, m: m}
	rest = rest[headerLen:]
	t.blocks, rest = rest[:8*n], rest[8*n:]
	t.table, rest = rest[:12*m], rest[12*m:]
	t.posts, t.names = rest[:4*posts], rest[4*posts:]
	return t, nil
}

func u32(b []byte, i int) int { return int(binary.LittleEndian.Uint32(b[4*i:])) }

// termsOf appends the terms of text, in lower case, to out.
func termsOf(out []uint32, text string) []uint32 {
	low := strings.ToLower(text)
	for i := 0; i+minTerm <= len(low); i++ {
		out = append(out, uint32(low[i])<<16|uint32(low[i+1])<<8|uint32(low[i+2]))
	}
	return out
}

// lookup returns the blocks of the tasks whose texts hold every term of
// lit, in task order: at the offsets the terms were made with, or, with
// offsets, at offsets[task] (-1: the task moved, left out). ok is false
// when the terms do not parse.
func (t *terms) lookup(lit string, offsets []span) ([]span, bool) {
	want := termsOf(nil, lit)
	slices.Sort(want)
	want = slices.Compact(want)
	type list struct{ start, count int }
	lists := make([]list, 0, len(want))
	for _, w := range want {
		i, found := t.find(w)
		if !found {
			return nil, true // a term no task holds
		}
		start, count := u32(t.table, 3*i+1), u32(t.table, 3*i+2)
		if start+count > len(t.posts)/4 {
			return nil, false
		}
		lists = append(lists, list{start, count})
	}
	slices.SortFunc(lists, func(a, b list) int { return a.count - b.count })
	// The rarest term's tasks, kept while each other term's postings
	// hold them: a binary search each, so that what is read grows with
	// the tasks found, not with the tasks that hold a common term.
	cand := make([]int, 0, lists[0].count)
	for k := range lists[0].count {
		cand = append(cand, u32(t.posts, lists[0].start+k))
	}
	countPostings(lists[0].count)
	for _, l := range lists[1:] {
		if len(cand) == 0 {
			break
		}
		kept := cand[:0]
		for _, c := range cand {
			lo, hi := l.start, l.start+l.count
			for lo < hi {
				mid := int(uint(lo+hi) >> 1)
				countPostings(1)
				if u32(t.posts, mid) < c {
					lo = mid + 1
				} else {
					hi = mid
				}
			}
			if lo < l.start+l.count && u32(t.posts, lo) == c {
				kept = append(kept, c)
			}
		}
		cand = kept
	}
	out := make([]span, 0, len(cand))
	for _, c := range cand {
		if c >= t.n {
			return nil, false
		}
		if offsets != nil {
			if offsets[c].off >= 0 {
				out = append(out, offsets[c])
			}
			continue
		}
		s := span{u32(t.blocks, 2*c), u32(t.blocks, 2*c+1)}
		if s.off+s.len > t.bodyLen {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// find is the index of term w in the table.
func (t *terms) find(w uint32) (int, bool) {
	lo, hi := 0, t.m
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if uint32(u32(t.table, 3*mid)) < w {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < t.m && uint32(u32(t.table, 3*lo)) == w
}

// follow steps through body's task lines beside the terms' tasks (both in
// task order): offsets are where each of the terms' tasks is in body (-1
// when it moved or is gone), moved the blocks of the tasks whose head is
// not the terms' (moved or new). ok is false when either does not parse.
func (t *terms) follow(body []byte) (offsets, moved []span, ok bool) {
	offsets = make([]span, t.n)
	names := t.names
	i := 0
	var name, head string
	next := func() bool {
		line, rest, found := bytes.Cut(names, []byte{'\n'})
		if !found {
			return false
		}
		n, h, found := strings.Cut(string(line), "\t")
		if !found {
			return false
		}
		names, name, head = rest, n, h
		return true
	}
	have := i < t.n && next()
	for pos := 0; pos < len(body); {
		task, bhead, block, _, parsed := nextSearchBlock(body[pos:])
		if !parsed {
			return nil, nil, false
		}
		for have && name < task {
			offsets[i] = span{-1, 0}
			i++
			have = i < t.n && next()
		}
		s := span{pos, len(block)}
		if have && name == task {
			if head == bhead {
				offsets[i] = s
			} else {
				offsets[i] = span{-1, 0}
				moved = append(moved, s)
			}
			i++
			have = i < t.n && next()
		} else {
			moved = append(moved, s)
		}
		pos += len(block)
	}
	for ; i < t.n; i++ {
		offsets[i] = span{-1, 0}
	}
	return offsets, moved, true
}

// makeTerms makes the terms of body, current for header: the file's
// bytes and the terms they hold (nil when body does not parse or is too
// large for them).
func makeTerms(body []byte, header string) ([]byte, *terms) {
	if len(body) > math.MaxUint32 {
		return nil, nil
	}
	var blocks []uint32
	var names bytes.Buffer
	postings := map[uint32][]uint32{}
	var mine []uint32
	for pos := 0; pos < len(body); {
		task, head, block, _, parsed := nextSearchBlock(body[pos:])
		if !parsed {
			return nil, nil
		}
		ord := uint32(len(blocks) / 2)
		blocks = append(blocks, uint32(pos), uint32(len(block)))
		names.WriteString(task + "\t" + head + "\n")
		mine = mine[:0]
		for rest := block; len(rest) > 0; {
			line, after, _ := bytes.Cut(rest, []byte{'\n'})
			rest = after
			if bytes.HasPrefix(line, []byte("F\t")) {
				if _, text, ok := bytes.Cut(line[2:], []byte{'\t'}); ok {
					mine = termsOf(mine, string(text))
				}
			}
		}
		slices.Sort(mine)
		for _, w := range slices.Compact(mine) {
			postings[w] = append(postings[w], ord)
		}
		pos += len(block)
	}
	keys := make([]uint32, 0, len(postings))
	total := 0
	for w, p := range postings {
		keys = append(keys, w)
		total += len(p)
	}
	slices.Sort(keys)
	n, m := len(blocks)/2, len(keys)
	var b bytes.Buffer
	b.Grow(len(termsMagic) + 64 + len(header) + 8*n + 12*m + 4*total + names.Len())
	b.WriteString(termsMagic)
	fmt.Fprintf(&b, "%d %d %d %d %d %d\n", len(header), len(body), n, m, total, names.Len())
	b.WriteString(header)
	le := binary.LittleEndian
	for _, v := range blocks {
		b.Write(le.AppendUint32(nil, v))
	}
	start := 0
	for _, w := range keys {
		p := postings[w]
		b.Write(le.AppendUint32(le.AppendUint32(le.AppendUint32(nil, w), uint32(start)), uint32(len(p))))
		start += len(p)
	}
	for _, w := range keys {
		for _, o := range postings[w] {
			b.Write(le.AppendUint32(nil, o))
		}
	}
	b.Write(names.Bytes())
	data := b.Bytes()
	t, err := parseTerms(data)
	if err != nil {
		return nil, nil
	}
	return data, t
}
