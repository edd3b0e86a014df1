package signing

import (
	"strings"

	"golang.org/x/crypto/ssh"
)

// AllowedEntry is one line of an allowed-signers file as a person reviews
// it before trusting the file: who may sign (Principals), under which
// options, with which key. A line that does not read as
// `PRINCIPALS [OPTIONS] KEYTYPE BASE64 [COMMENT]` has only Line.
type AllowedEntry struct {
	Principals string `json:"principals,omitempty"`
	Options    string `json:"options,omitempty"` // e.g. cert-authority, namespaces="git"
	Key        string `json:"key,omitempty"`     // the key's type and SHA256 fingerprint, as ssh-keygen -l prints them
	Line       string `json:"line,omitempty"`    // the line itself, when it does not read as an entry
}

// ListAllowed reads the entries of an allowed-signers file's content, in
// order, skipping blank lines and comments. It judges nothing: every line
// that is not blank or a comment is listed, read or not, so that what a
// person is shown is everything git may take from the file.
func ListAllowed(data []byte) []AllowedEntry {
	var out []AllowedEntry
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		words := allowedWords(line)
		if len(words) == 0 || strings.HasPrefix(words[0], "#") {
			continue
		}
		out = append(out, allowedEntry(line, words))
	}
	return out
}

// allowedEntry reads one line's words: the principals, then either the key
// or options and the key.
func allowedEntry(line string, words []string) AllowedEntry {
	// The key follows the principals directly, or after one word of
	// options.
	for at := 1; at <= 2 && at+1 < len(words); at++ {
		key, _, _, _, err := ssh.ParseAuthorizedKey([]byte(words[at] + " " + words[at+1]))
		if err != nil {
			continue
		}
		e := AllowedEntry{Principals: words[0], Key: key.Type() + " " + ssh.FingerprintSHA256(key)}
		if at == 2 {
			e.Options = words[1]
		}
		return e
	}
	return AllowedEntry{Line: line}
}

// allowedWords splits a line at spaces and tabs outside double quotes (an
// option's value may hold spaces: namespaces="git,file").
func allowedWords(line string) []string {
	var words []string
	var cur strings.Builder
	quoted, in := false, false
	for _, r := range line {
		switch {
		case r == '"':
			quoted = !quoted
			cur.WriteRune(r)
			in = true
		case (r == ' ' || r == '\t') && !quoted:
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}
