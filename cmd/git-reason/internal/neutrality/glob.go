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
func (g glob) match(p string) bool { return matchSegs(g.segs, p) }

func matchSegs(segs []string, p string) bool {
	for len(segs) > 0 {
		if segs[0] == "**" {
			if len(segs) == 1 {
				return p != "" // a trailing ** needs something below it
			}
			for {
				if matchSegs(segs[1:], p) {
					return true
				}
				i := strings.IndexByte(p, '/')
				if i < 0 {
					return false
				}
				p = p[i+1:]
			}
		}
		if p == "" {
			return false
		}
		head, rest, _ := strings.Cut(p, "/")
		if ok, _ := path.Match(segs[0], head); !ok {
			return false
		}
		segs, p = segs[1:], rest
	}
	return true
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
