package neutrality

import (
	"fmt"
	"strings"
)

// Term is one name that neutral files must not contain.
type Term struct {
	// Name is the name as declared, for example "Acme Cloud"; it is what a
	// violation reports. It must contain at least one letter or digit.
	Name string `json:"name"`
	// DeclaredAs says where the name was declared, for example
	// "vendor acme" or "terms in .reason/neutrality.yaml".
	DeclaredAs string `json:"declared_as"`
}

// Match is one occurrence of a term in a text.
type Match struct {
	Offset int    // byte offset of the first byte of the occurrence
	Line   int    // 1-based line number
	Col    int    // 1-based byte column of the first byte
	Text   string // the occurrence as spelled in the text
	Term   Term   // the term found
}

// Matcher finds terms in text by the rule documented on the package. It is
// safe for concurrent use.
type Matcher struct {
	terms []Term
	// A trie over term keys, node 0 its root. root maps a byte (either
	// case of a letter) to the root's child, 0 when none. Every other
	// node's edges are the folded bytes labels[first[n]:first[n+1]] to the
	// nodes children[first[n]:first[n+1]]: a node holds only the edges it
	// has, so the trie takes memory in proportion to the terms' bytes. (A
	// row of every byte the terms use for every node made a repository's
	// 1 MiB of terms in many scripts a table of 1.2 GB.)
	root     [256]int32
	first    []int32
	labels   []byte
	children []int32
	term     []int32 // term index ending at each node, or -1
}

// NewMatcher builds a matcher for terms. Terms whose keys are equal (such as
// "Acme Cloud" and "acme-cloud") are merged into the first one, and their
// DeclaredAs values joined with "; ". It fails on a term with no letter or
// digit.
func NewMatcher(terms []Term) (*Matcher, error) {
	m := &Matcher{}
	keys := make([]string, 0, len(terms))
	index := map[string]int{}
	for _, t := range terms {
		k := key(t.Name)
		if k == "" {
			return nil, fmt.Errorf("term %q (declared as %s) has no letter or digit", t.Name, t.DeclaredAs)
		}
		if i, ok := index[k]; ok {
			if !strings.Contains("; "+m.terms[i].DeclaredAs+"; ", "; "+t.DeclaredAs+"; ") {
				m.terms[i].DeclaredAs += "; " + t.DeclaredAs
			}
			continue
		}
		index[k] = len(m.terms)
		m.terms = append(m.terms, t)
		keys = append(keys, k)
	}
	// Build with the edges in a map, then lay each node's edges side by
	// side.
	edges := map[uint64]int32{}
	m.term = append(m.term, -1)
	for ti, k := range keys {
		node := int32(0)
		for i := 0; i < len(k); i++ {
			e := uint64(node)<<8 | uint64(k[i])
			child, ok := edges[e]
			if !ok {
				child = int32(len(m.term))
				m.term = append(m.term, -1)
				edges[e] = child
			}
			node = child
		}
		m.term[node] = int32(ti)
	}
	m.first = make([]int32, len(m.term)+1)
	for e := range edges {
		m.first[e>>8+1]++
	}
	for n := 1; n < len(m.first); n++ {
		m.first[n] += m.first[n-1]
	}
	m.labels = make([]byte, len(edges))
	m.children = make([]int32, len(edges))
	next := append([]int32(nil), m.first[:len(m.term)]...)
	for e, child := range edges {
		n := e >> 8
		m.labels[next[n]], m.children[next[n]] = byte(e), child
		next[n]++
	}
	for e, child := range edges {
		if e>>8 == 0 {
			c := byte(e)
			m.root[c] = child
			if c >= 'a' && c <= 'z' {
				m.root[c-'a'+'A'] = child
			}
		}
	}
	return m, nil
}

// child is the node the edge of node labelled by c (folded) leads to, or
// 0 when it has none.
func (m *Matcher) child(node int32, c byte) int32 {
	if node == 0 {
		return m.root[c]
	}
	c = lowerASCII(c)
	for i := m.first[node]; i < m.first[node+1]; i++ {
		if m.labels[i] == c {
			return m.children[i]
		}
	}
	return 0
}

// hasChild reports whether node has an edge.
func (m *Matcher) hasChild(node int32) bool { return m.first[node+1] > m.first[node] }

// Find returns every occurrence of a term in data, in order. Lines are
// separated by '\n'; a match never spans two lines.
func (m *Matcher) Find(data []byte) []Match {
	var out []Match
	line, lineStart := 1, 0
	for i, n := 0, len(data); i < n; {
		c := data[i]
		k, size := class[c], 1
		if k == clHigh {
			k, size = classNonASCII(data, i)
		}
		if !isWord(k) {
			if c == '\n' {
				line++
				lineStart = i + 1
			}
			i += size
			continue
		}
		e := wordEnd(data, i, k, size)
		if m.root[c] != 0 {
			if end, t := m.longest(data, i, e); t >= 0 {
				out = append(out, Match{
					Offset: i, Line: line, Col: i - lineStart + 1,
					Text: string(data[i:end]), Term: m.terms[t],
				})
				i = end
				continue
			}
		}
		i = e
	}
	return out
}

// longest walks the trie from the word data[s:e] on through the words that
// follow it, and returns the end of the longest run whose key is a term's,
// with that term's index, or -1.
func (m *Matcher) longest(data []byte, s, e int) (end int, term int) {
	end, term = -1, -1
	node := int32(0)
	for {
		for j := s; j < e; j++ {
			if node = m.child(node, data[j]); node == 0 {
				return end, term
			}
		}
		if t := m.term[node]; t >= 0 {
			end, term = e, int(t)
		}
		if !m.hasChild(node) || e >= len(data) {
			return end, term
		}
		next := e
		if class[data[next]] == clJoin {
			next++
		}
		if next >= len(data) {
			return end, term
		}
		k, size := classAt(data, next)
		if !isWord(k) {
			return end, term
		}
		s, e = next, wordEnd(data, next, k, size)
	}
}
