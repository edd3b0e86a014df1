package schemas

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// maxDepth bounds how deeply a document may nest; maxAliasNodes bounds what
// one alias may expand to, and what all of a document's aliases expand to
// together, since a few nested aliases, or one alias used many times, can
// stand for billions of nodes.
const (
	maxDepth      = 64
	maxAliasNodes = 10000
)

// expansion is what one document's aliases have expanded to: the size of
// each node with its aliases expanded (expandedSize's memo), the sum of
// the sizes of the aliases met outside any expansion, and how many
// expansions toValue is inside (an alias within one is counted in the
// size of the alias that holds it, not again).
type expansion struct {
	sizes  map[*yaml.Node]int
	total  int
	within int
}

func newExpansion() *expansion { return &expansion{sizes: map[*yaml.Node]int{}} }

// toValue turns a YAML tree into the values a JSON decoder would produce
// (maps, slices, strings, float64 and int64, booleans, nil) for the schema
// validator. It refuses what JSON cannot hold or a person did not mean: a
// key given twice, a key that is not a scalar, nesting or alias expansion
// past the bounds.
func toValue(file string, n *yaml.Node, depth int, x *expansion) (any, error) {
	if depth > maxDepth {
		return nil, &DecodeError{File: file, Line: n.Line, Column: n.Column, Msg: fmt.Sprintf("nested more than %d levels deep", maxDepth)}
	}
	if n.Kind == yaml.AliasNode {
		size := expandedSize(n.Alias, x.sizes)
		if size > maxAliasNodes {
			return nil, &DecodeError{File: file, Line: n.Line, Column: n.Column,
				Msg: fmt.Sprintf("alias *%s expands to more than %d nodes", n.Value, maxAliasNodes)}
		}
		if x.within == 0 {
			if x.total += size; x.total > maxAliasNodes {
				return nil, &DecodeError{File: file, Line: n.Line, Column: n.Column,
					Msg: fmt.Sprintf("alias *%s takes the aliases past %d nodes in all", n.Value, maxAliasNodes)}
			}
		}
		x.within++
		defer func() { x.within-- }()
		return toValue(file, n.Alias, depth+1, x)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return map[string]any{}, nil
		}
		return toValue(file, n.Content[0], depth+1, x)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := toValue(file, c, depth+1, x)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		first := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return nil, &DecodeError{File: file, Line: k.Line, Column: k.Column, Msg: "a key must be a plain name, not " + describe(k)}
			}
			if line, dup := first[k.Value]; dup {
				return nil, &DecodeError{File: file, Line: k.Line, Column: k.Column, Field: k.Value,
					Msg: fmt.Sprintf("given twice (first at line %d)", line)}
			}
			first[k.Value] = k.Line
			v, err := toValue(file, n.Content[i+1], depth+1, x)
			if err != nil {
				return nil, err
			}
			out[k.Value] = v
		}
		return out, nil
	}
	return scalar(n), nil
}

// scalar types a scalar by its resolved tag; tags JSON has no type for
// (timestamps, binary) stay strings.
func scalar(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		if b, ok := decodeAs[bool](n); ok {
			return b
		}
	case "!!int":
		if i, ok := decodeAs[int64](n); ok {
			return i
		}
		if f, ok := decodeAs[float64](n); ok {
			return f
		}
	case "!!float":
		if f, ok := decodeAs[float64](n); ok {
			return f
		}
	}
	return n.Value
}

// decodeAs is n decoded as a T, and whether it decodes as one.
func decodeAs[T any](n *yaml.Node) (T, bool) {
	var v T
	err := n.Decode(&v)
	return v, err == nil
}

// expandedSize counts the nodes n stands for with its aliases expanded,
// stopping once past maxAliasNodes.
func expandedSize(n *yaml.Node, memo map[*yaml.Node]int) int {
	if n == nil {
		return 0
	}
	if v, ok := memo[n]; ok {
		return v
	}
	memo[n] = maxAliasNodes + 1 // a cycle counts as too large
	size := 1
	if n.Kind == yaml.AliasNode {
		size = expandedSize(n.Alias, memo)
	}
	for _, c := range n.Content {
		if size > maxAliasNodes {
			break
		}
		size += expandedSize(c, memo)
	}
	memo[n] = size
	return size
}

// lookup finds the node a JSON pointer designates, or the deepest node on
// its way.
func lookup(root *yaml.Node, pointer string) *yaml.Node {
	n := unalias(root)
	if pointer == "" {
		return n
	}
	for _, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		tok = unescape(tok)
		var next *yaml.Node
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == tok {
					next = n.Content[i+1]
					break
				}
			}
		case yaml.SequenceNode:
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(n.Content) {
				next = n.Content[i]
			}
		}
		if next == nil {
			return n
		}
		n = unalias(next)
	}
	return n
}

// FieldPath renders a JSON pointer the way a reader of YAML names a field:
// /advisors/2/local is advisors[2].local. Every message about a field of a
// declarative file names it this way, whoever finds the fault.
func FieldPath(pointer string) string {
	if pointer == "" {
		return ""
	}
	var b strings.Builder
	for _, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		tok = unescape(tok)
		if _, err := strconv.Atoi(tok); err == nil {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

// PointerToken and unescape turn a name into a JSON pointer token and
// back (RFC 6901). They run for every field a validation visits, so a
// name with nothing to escape costs nothing.
func PointerToken(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

func unescape(tok string) string {
	if !strings.Contains(tok, "~") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

func unalias(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}
