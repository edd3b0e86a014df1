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
	// A trie over term keys. alpha maps a byte (either case) to its column
	// in trans, 0 when no key contains it; node 0 is the root, and a
	// transition to 0 means none.
	alpha    [256]uint8
	width    int
	trans    []int32
	term     []int32 // term index ending at each node, or -1
	hasChild []bool
}

// NewMatcher builds a matcher for terms. Terms whose keys are equal (such as
// "Acme Cloud" and "acme-cloud") are merged into the first one, and their
// DeclaredAs values joined with "; ". It fails on a term with no letter or
// digit.
func NewMatcher(terms []Term) (*Matcher, error) {
	m := &Matcher{width: 1}
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
	for _, k := range keys {
		for i := 0; i < len(k); i++ {
			c := k[i]
			if m.alpha[c] == 0 {
				if m.width == 255 {
					return nil, fmt.Errorf("terms use more than 254 distinct bytes")
				}
				m.alpha[c] = uint8(m.width)
				if u := c - 'a' + 'A'; c >= 'a' && c <= 'z' {
					m.alpha[u] = uint8(m.width)
				}
				m.width++
			}
		}
	}
	m.addNode()
	for ti, k := range keys {
		node := int32(0)
		for i := 0; i < len(k); i++ {
			slot := int(node)*m.width + int(m.alpha[k[i]])
			if m.trans[slot] == 0 {
				m.hasChild[node] = true
				m.trans[slot] = m.addNode()
			}
			node = m.trans[slot]
		}
		m.term[node] = int32(ti)
	}
	return m, nil
}

func (m *Matcher) addNode() int32 {
	m.trans = append(m.trans, make([]int32, m.width)...)
	m.term = append(m.term, -1)
	m.hasChild = append(m.hasChild, false)
	return int32(len(m.term) - 1)
}

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
		if a := m.alpha[c]; a != 0 && m.trans[a] != 0 {
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
	node := 0
	for {
		for j := s; j < e; j++ {
			a := m.alpha[data[j]]
			if a == 0 {
				return end, term
			}
			node = int(m.trans[node*m.width+int(a)])
			if node == 0 {
				return end, term
			}
		}
		if t := m.term[node]; t >= 0 {
			end, term = e, int(t)
		}
		if !m.hasChild[node] || e >= len(data) {
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
