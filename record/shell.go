package record

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// ShellWord reports whether s is a word every shell reads as itself:
// letters, digits, "-_./+:@%,=" and printable characters beyond ASCII
// only, not starting with '-' (it would read as a flag). Branch, tag,
// remote and record file names come from whoever a repository fetched
// from, and git admits "$(...)", backquotes, ';', '|' and quotes in a
// ref name: put on a command line as they are, such a name runs a
// stranger's command when the line is run.
func ShellWord(s string) bool {
	if s == "" || s[0] == '-' || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < utf8.RuneSelf && !strings.ContainsRune(wordChars, r) || unprintable(r) {
			return false
		}
	}
	return true
}

// wordChars are the ASCII characters of a ShellWord.
const wordChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_./+:@%,="

// ShellQuote is s as one word of a command line a person or an agent is
// told to run (a hint, a next step): bare when it is a ShellWord (task
// names, origin, main), else in single quotes (a quote in it closes
// them, is escaped with a backslash and opens them again), what cannot
// be printed made printable (Printable), so that the line read back by
// sh, bash or zsh runs the command it says with s as one argument,
// never a command s holds.
func ShellQuote(s string) string {
	s = Printable(s)
	if ShellWord(s) {
		return s
	}
	return SingleQuoted(s)
}

// SingleQuoted is s in single quotes, as sh, bash, zsh and fish read one
// word: a quote in it closes them, is escaped with a backslash and opens
// them again.
func SingleQuoted(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// PlanWithout is the command that plans task anew with ids switched off
// for one run on top of the advisors disabled now: git -c replaces
// reason.disable's value, and GIT_REASON_DISABLE, when set (fromEnv),
// replaces the key, so the list given is the one in force plus ids.
func PlanWithout(disabled []string, fromEnv bool, ids []string, task string) string {
	list := slices.Clone(disabled)
	for _, id := range ids {
		if !slices.Contains(list, id) {
			list = append(list, id)
		}
	}
	v := ShellQuote(strings.Join(list, ","))
	if fromEnv {
		return "GIT_REASON_DISABLE=" + v + " git reason plan " + task
	}
	return "git -c reason.disable=" + v + " reason plan " + task
}
