package neutrality

import (
	"fmt"
	"path"
	"strings"
)

// glob is a compiled path glob; see the package documentation for its
// syntax.
type glob struct {
	text string
	segs []string
}

// compileGlob checks a glob's syntax: '**' only as a whole segment, no empty
// segments, valid '[...]' classes. One leading '/' is allowed, since globs
// are rooted anyway.
func compileGlob(text string) (glob, error) {
	p := strings.TrimPrefix(text, "/")
	if p == "" {
		return glob{}, fmt.Errorf("glob %q is empty", text)
	}
	segs := strings.Split(p, "/")
	for _, s := range segs {
		switch {
		case s == "":
			return glob{}, fmt.Errorf("glob %q has an empty path segment", text)
		case s == "**":
		case strings.Contains(s, "**"):
			return glob{}, fmt.Errorf("glob %q: '**' must be a whole path segment", text)
		default:
			if _, err := path.Match(s, ""); err != nil {
				return glob{}, fmt.Errorf("glob %q: bad pattern %q", text, s)
			}
		}
	}
	return glob{text: text, segs: segs}, nil
}

// match reports whether the glob matches the slash-separated path p or one
// of its parent directories.
//
// It walks the path once, keeping the set of glob segments that the path
// so far can have reached (a '**' both stays where it is and lets the next
// segment start), so a glob of n segments costs at most n steps per path
// segment, however many '**' it holds. Backtracking instead would try every
// way of sharing the path among the '**'s, exponentially many.
func (g glob) match(p string) bool {
	n := len(g.segs)
	cur := make([]bool, n+1)
	next := make([]bool, n+1)
	cur[0] = true
	g.closure(cur)
	for p != "" {
		if cur[n] {
			return true // the glob matched a directory holding the file
		}
		head, rest, _ := strings.Cut(p, "/")
		clear(next)
		for i, on := range cur[:n] {
			if !on {
				continue
			}
			if g.segs[i] == "**" {
				if i == n-1 {
					return true // a trailing ** takes this segment and the rest
				}
				next[i] = true
				continue
			}
			if ok, _ := path.Match(g.segs[i], head); ok {
				next[i+1] = true
			}
		}
		g.closure(next)
		cur, next, p = next, cur, rest
	}
	return cur[n]
}

// closure adds to set the segments reachable from it by letting a '**'
// (other than a trailing one, which needs a segment) match nothing.
func (g glob) closure(set []bool) {
	for i := 0; i < len(g.segs)-1; i++ {
		if set[i] && g.segs[i] == "**" {
			set[i+1] = true
		}
	}
}

// globSet matches a path against any of several globs.
type globSet []glob

func (gs globSet) match(p string) bool {
	for _, g := range gs {
		if g.match(p) {
			return true
		}
	}
	return false
}
