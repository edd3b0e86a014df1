package advisor

import (
	"path/filepath"
	"slices"
	"strings"
)

// shells are the programs whose -c option takes a script whose words
// commandNames reads.
var shells = []string{"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh"}

// opaqueWords move the script or build what it runs from text trust
// does not read: after them a word is not the path it looks like.
var opaqueWords = []string{"cd", "pushd", "popd", "eval", "alias"}

// shellWords are words of the shell's grammar that a glob character
// does not make opaque: [ -f x ], [[ ... ]], { ...; }.
var shellWords = []string{"[", "[[", "{"}

// maxScriptDepth bounds how many shells' -c scripts within one another
// commandNames reads.
const maxScriptDepth = 4

// commandNames is, for each element of argv, the paths it may name: the
// program; each argument and the values argPaths finds in it; and for the
// script of a shell's -c option ([sh, -c, "./tools/review.sh --fast"],
// [env, X=1, bash, -lc, ...]) also every word of that script (scriptWords),
// as an argument, and so on for a shell's -c within it. Whatever of these
// names something in the work tree is covered. opaque says a script uses
// what trust cannot follow: an expansion ($, `), a glob, cd or eval, or
// quotes it cannot read; trust --show then says the script is not fully
// covered.
func commandNames(argv []string) (names [][]string, opaque bool) {
	names = make([][]string, len(argv))
	for i, a := range argv {
		names[i] = argPaths(i, a)
	}
	for _, i := range scriptArgs(argv) {
		words, ok := scriptNames(argv[i], 1)
		names[i] = append(names[i], words...)
		opaque = opaque || !ok
	}
	return names, opaque
}

// scriptNames is what the words of a -c script, and of the scripts of
// shells it runs with -c, may name (argPaths), depth scripts deep;
// false when any of them is opaque (commandNames).
func scriptNames(script string, depth int) ([]string, bool) {
	words, ok := scriptWords(script)
	var out []string
	for _, w := range words {
		out = append(out, argPaths(1, w)...)
	}
	if depth >= maxScriptDepth {
		return out, ok && len(scriptArgs(words)) == 0
	}
	for _, i := range scriptArgs(words) {
		more, fine := scriptNames(words[i], depth+1)
		out, ok = append(out, more...), ok && fine
	}
	return out, ok
}

// scriptArgs are the indexes of argv holding a shell's -c script: after
// a word naming a shell (by its base name), its options (a cluster of
// one-letter options holding c: -c, -ec, -lc; -o and -O take the next
// word), the first other word.
func scriptArgs(argv []string) []int {
	var out []int
	for j, a := range argv {
		if !slices.Contains(shells, filepath.Base(a)) {
			continue
		}
		c, k := false, j+1
		for ; k < len(argv); k++ {
			o := argv[k]
			if o == "--" {
				k++
				break
			}
			if len(o) < 2 || (o[0] != '-' && o[0] != '+') {
				break
			}
			switch {
			case o[1] == '-': // --login, --norc
			case o == "-o" || o == "+o" || o == "-O" || o == "+O":
				k++
			case o[0] == '-' && strings.ContainsRune(o, 'c'):
				c = true
			}
		}
		if c && k < len(argv) {
			out = append(out, k)
		}
	}
	return out
}

// scriptWords splits a shell script into its words as the shell would
// before expanding them: at blanks, newlines and the operators ; & | ( )
// < >, with single quotes, double quotes and backslashes taken out; a
// comment dropped. ok is false when the script holds what the shell
// would expand or search ($, ` or a glob or brace outside quotes), a
// word of opaqueWords, or an unterminated quote: the words are then
// what it names literally, not all it may run.
func scriptWords(s string) (words []string, ok bool) {
	ok = true
	var w strings.Builder
	in, glob := false, false // a word is open; it has an unquoted glob character
	end := func() {
		if in {
			word := w.String()
			if (glob && !slices.Contains(shellWords, word)) || slices.Contains(opaqueWords, word) {
				ok = false
			}
			words = append(words, word)
		}
		w.Reset()
		in, glob = false, false
	}
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == ' ' || ch == '\t' || ch == '\n' || strings.IndexByte(";&|()<>", ch) >= 0:
			end()
		case ch == '#' && !in:
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case ch == '\'':
			n := strings.IndexByte(s[i+1:], '\'')
			if n < 0 {
				return append(words, w.String()+s[i+1:]), false
			}
			w.WriteString(s[i+1 : i+1+n])
			i, in = i+1+n, true
		case ch == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '$' || s[i] == '`' {
					ok = false
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
			if i == len(s) {
				return append(words, w.String()), false
			}
			in = true
		case ch == '\\':
			if i++; i < len(s) && s[i] != '\n' {
				w.WriteByte(s[i])
				in = true
			}
		default:
			if ch == '$' || ch == '`' {
				ok = false
			}
			glob = glob || strings.IndexByte("*?[{", ch) >= 0
			w.WriteByte(ch)
			in = true
		}
	}
	end()
	return words, ok
}
