package settings

import "strings"

// wildmatch matches text against a pattern as git's wildmatch does for the
// conditions of includeIf: '?' and '*' never match '/' under pathname
// (gitdir:, onbranch:), where "**" spans directories only as a whole path
// component ("**/" may match nothing); without pathname (hasconfig:) both
// match anything. "\x" is a literal x. fold compares ASCII letters without
// case, except a letter escaped in the pattern, as git does. ok is false
// for what this matcher leaves to git: a bracket expression, a trailing
// backslash, or a pattern costing too many steps.
func wildmatch(pattern, text string, pathname, fold bool) (matched, ok bool) {
	if strings.ContainsRune(pattern, '[') || trailingBackslash(pattern) {
		return false, false
	}
	m := &matcher{pathname: pathname, fold: fold, budget: 100000}
	matched = m.match(pattern, text, 0)
	return matched, m.budget >= 0
}

// trailingBackslash reports a pattern ending in an unpaired backslash.
func trailingBackslash(p string) bool {
	n := 0
	for i := len(p) - 1; i >= 0 && p[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

type matcher struct {
	pathname, fold bool
	budget         int
}

// match reports whether p matches all of t; prev is the pattern character
// before p, 0 at the pattern's start (a "**" there spans directories).
func (m *matcher) match(p, t string, prev byte) bool {
	if m.budget--; m.budget < 0 {
		return false
	}
	for len(p) > 0 {
		c := p[0]
		if c == '*' {
			return m.star(p, t, prev == 0 || prev == '/')
		}
		if len(t) == 0 {
			return false
		}
		tc := t[0]
		if m.fold {
			tc = lower(tc)
		}
		switch c {
		case '?':
			if m.pathname && tc == '/' {
				return false
			}
		case '\\':
			if tc != p[1] {
				return false
			}
			p = p[1:]
		default:
			if m.fold {
				c = lower(c)
			}
			if tc != c {
				return false
			}
		}
		prev = p[0]
		p, t = p[1:], t[1:]
	}
	return len(t) == 0
}

// star matches p, which starts with '*', against t; afterSlash says the
// stars begin the pattern or follow a '/'.
func (m *matcher) star(p, t string, afterSlash bool) bool {
	n := 0
	for n < len(p) && p[n] == '*' {
		n++
	}
	rest := p[n:]
	var matchSlash bool
	switch {
	case !m.pathname:
		matchSlash = true
	case n == 1:
		matchSlash = false
	case afterSlash && (rest == "" || rest[0] == '/' || strings.HasPrefix(rest, "\\/")):
		if rest != "" && rest[0] == '/' && m.match(rest[1:], t, '/') {
			return true
		}
		matchSlash = true
	}
	if rest == "" {
		return matchSlash || !strings.ContainsRune(t, '/')
	}
	for i := 0; i < len(t); i++ {
		if m.match(rest, t[i:], '*') {
			return true
		}
		if !matchSlash && t[i] == '/' {
			return false
		}
	}
	return false
}
