package settings

import (
	"bytes"
	"errors"
	"strings"

	"github.com/go-git/gcfg"
)

// rawVar is one variable of a config file as git's parser hands it on:
// the full name (section lowercased, subsection as written, variable
// lowercased) and the value, hasValue false for a variable written
// without "=".
type rawVar struct {
	key      string
	value    string
	hasValue bool
}

// parseConfig reads a config file with go-git's config parser, gcfg (what
// go-git's plumbing/format/config decodes with), taking its variables in
// file order, as git's parser hands them on: where an include appears
// among them decides what it overrides. ok is false where gcfg refuses the
// file (git may read it: a legacy [section.sub] header, a variable on a
// header's line, a byte-order mark, an empty subsection; Load then asks
// git, which reads it or says where it is wrong), where it names a section
// or variable git refuses (gitName), and where gcfg would read a file
// otherwise than git (gcfgDiffers). TestParserAgainstGit holds the
// two to git config --list.
func parseConfig(data []byte) (vars []rawVar, ok bool) {
	if gcfgDiffers(data) {
		return nil, false
	}
	defer func() {
		// gcfg unquotes with a panic on an escape its scanner let
		// through; such a file is git's to read.
		if recover() != nil {
			vars, ok = nil, false
		}
	}()
	err := gcfg.ReadWithCallback(bytes.NewReader(data), func(section, sub, name, value string, blank bool) error {
		if !gitName(section, false) || name != "" && !gitName(name, true) {
			return errNotGits
		}
		if name == "" {
			return nil // a section header
		}
		key := strings.ToLower(section) + "."
		if sub != "" {
			key += sub + "."
		}
		vars = append(vars, rawVar{key: key + strings.ToLower(name), value: value, hasValue: !blank})
		return nil
	})
	return vars, err == nil
}

// errNotGits stops gcfg at a name git refuses.
var errNotGits = errors.New("a name git refuses")

// gitName reports whether git takes name as a section name (letters,
// digits and "-", ASCII only) or, with variable, as a variable name (the
// same, starting with a letter). gcfg takes any Unicode letter or digit.
func gitName(name string, variable bool) bool {
	if name == "" || variable && !isAlpha(name[0]) {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !isKeyChar(name[i]) {
			return false
		}
	}
	return true
}

// gcfgDiffers reports the forms gcfg reads otherwise than git, found by
// TestParserAgainstGit: a NUL byte; a backslash before a line end, which
// git takes as a line continuation and gcfg keeps as a newline in the
// value; a tab or carriage return after a line's indentation (git turns
// either into a space outside quotes, and refuses a lone carriage return
// at the end of the file; gcfg keeps both); and anything but "=" after a
// variable's name (a comment after a variable written without "=", say),
// which git refuses and gcfg reads.
func gcfgDiffers(data []byte) bool {
	for line := range bytes.Lines(data) {
		if l, ok := bytes.CutSuffix(line, []byte("\n")); ok {
			line = bytes.TrimSuffix(l, []byte("\r")) // CRLF is a line end; a lone CR is not
		}
		body := bytes.TrimLeft(line, " \t")
		switch {
		case bytes.IndexByte(line, 0) >= 0, bytes.HasSuffix(line, []byte("\\")),
			bytes.ContainsAny(body, "\t\r"):
			return true
		case len(body) > 0 && isAlpha(body[0]):
			// A variable: git wants "=" or the line's end after its
			// name and any spaces.
			rest := bytes.TrimLeft(bytes.TrimLeftFunc(body, func(r rune) bool { return r < 0x80 && isKeyChar(byte(r)) }), " ")
			if len(rest) > 0 && rest[0] != '=' {
				return true
			}
		}
	}
	return false
}

// isSpace is git's isspace (its own ctype table): space, tab, line feed
// and carriage return; not vertical tab or form feed.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isKeyChar(c byte) bool { return isAlpha(c) || '0' <= c && c <= '9' || c == '-' }

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// canonicalKey validates and canonicalises a key given on the command line
// as git's git_config_parse_key does: section and variable lowercased,
// subsection as given; ok is false where git refuses the key.
func canonicalKey(key string) (string, bool) {
	last := strings.LastIndexByte(key, '.')
	if last <= 0 || last == len(key)-1 {
		return "", false
	}
	first := strings.IndexByte(key, '.')
	b := []byte(key)
	for i := 0; i < len(b); i++ {
		c := b[i]
		if i < first || i > last {
			if !isKeyChar(c) || i == last+1 && !isAlpha(c) {
				return "", false
			}
			b[i] = lower(c)
		} else if c == '\n' {
			return "", false
		}
	}
	return string(b), true
}
